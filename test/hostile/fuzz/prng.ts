// The simulator's seeded PRNG (mulberry32), plus the two draws the fuzzer needs: the same seed gives the same request
// stream, so any finding can be replayed.
import { Rng as SimRng } from '../../../src/sim/prng.js';

export class Rng extends SimRng {
  /** Picks by weight: [[weight, value], …]. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((s, [w]) => s + w, 0);
    let x = this.next() * total;
    for (const [w, v] of choices) {
      x -= w;
      if (x < 0) return v;
    }
    return (choices[choices.length - 1] as readonly [number, T])[1];
  }

  /** A fresh seed for a sub-generator. */
  fork(): Rng {
    return new Rng(this.u32());
  }
}
