// Small pieces every benchmark script shares: numeric settings from the environment, and a seeded random source.
import { readFileSync } from 'node:fs';
import { Rng as SimRng } from '../src/sim/prng.js';

/** A non-negative number from environment variable `name`, or `fallback`; a bad value stops the run naming it. */
export function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number`);
  return v;
}

/** A seeded draw of integers in [0, n) (the simulator's mulberry32): the same seed draws the same sequence. */
export type Rng = (n: number) => number;

export function rng(seed: number): Rng {
  const g = new SimRng(seed);
  return (n) => g.int(n);
}

/**
 * The node flags clusterpedia ships with: those of bin/clusterpedia's `#!/usr/bin/env -S node …` line (the Dockerfile's
 * ENTRYPOINT has the same). Benchmarks start the bundle with them, so they measure the process users run.
 */
export function shippedNodeFlags(): string[] {
  const first = readFileSync(new URL('../bin/clusterpedia', import.meta.url), 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\/usr\/bin\/env -S node(.*)$/.exec(first);
  if (!m) throw new Error(`bin/clusterpedia: unexpected first line ${JSON.stringify(first)}`);
  return (m[1] ?? '').split(' ').filter(Boolean);
}
