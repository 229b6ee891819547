// Small pieces every benchmark script shares: numeric settings from the environment, and a seeded random source.
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

/** A schema of nested string properties with descriptions, as controller-gen writes them, of about `kb` kB. */
export function crdSchema(kb: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; JSON.stringify(properties).length < kb * 1024; i++) {
    properties[`field${i}`] = { type: 'string', description: `Field${i} is one of the provider's settings; see the provider documentation for what it accepts and when it is required.` };
  }
  return { type: 'object', properties: { spec: { type: 'object', properties }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
}
