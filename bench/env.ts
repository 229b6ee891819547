// Small pieces every benchmark script shares: numeric settings from the environment, and a seeded random source.

/** A non-negative number from environment variable `name`, or `fallback`; a bad value stops the run naming it. */
export function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number`);
  return v;
}

/** A seeded generator (mulberry32) of integers in [0, n): the same seed draws the same sequence. */
export type Rng = (n: number) => number;

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}
