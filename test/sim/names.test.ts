// Generated object names are unique, as a real cluster's are (kube retries a generateName that collides).
import { expect, it } from 'vitest';
import fc from 'fast-check';
import { distinctSuffix, rngFor } from '../../src/sim/prng.js';
import { startSimulatedCluster } from '../../src/sim/index.js';

it('distinctSuffix never repeats within one sequence', () => {
  fc.assert(fc.property(fc.integer(), fc.integer({ min: 1, max: 3000 }), (seed, n) => {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) seen.add(distinctSuffix(rngFor('t', seed), i));
    return seen.size === n;
  }), { numRuns: 40 });
});

it('sim-55 with seed 1 and 10,000 pods (which once served one pod name twice) has unique pod names', async () => {
  const c = await startSimulatedCluster({ name: 'sim-55', seed: 1, pods: 10_000 });
  try {
    const pods = c.store.list('pods');
    expect(pods.length).toBe(10_000);
    expect(new Set(pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)).size).toBe(10_000);
  } finally {
    await c.stop();
  }
});
