// A small seeded PRNG (mulberry32): the same seed gives the same request stream, so any finding can be replayed.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)] as T;
  }

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
    return new Rng(Math.floor(this.next() * 4294967296));
  }
}
