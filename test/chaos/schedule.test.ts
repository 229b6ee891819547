// The chaos schedule: a seed names the same faults; with several clusterpedia processes a kill picks one of them.
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../bench/chaos/options.js';
import { planFaults, type Fault } from '../../bench/chaos/schedule.js';

const full = { seed: 19018, backend: 'postgres' as const, clusters: PRESETS.full.clusters, watchers: 4, durationMs: PRESETS.full.durationMs, count: PRESETS.full.faults };
const kills = (faults: { fault: Fault }[]): Extract<Fault, { kind: 'kill' }>[] => faults.map((p) => p.fault).filter((f): f is Extract<Fault, { kind: 'kill' }> => f.kind === 'kill');

describe('planFaults', () => {
  it('is the same plan for the same seed', () => {
    expect(planFaults(full)).toEqual(planFaults(full));
    expect(planFaults({ ...full, processes: 4 })).toEqual(planFaults({ ...full, processes: 4 }));
  });

  it('names no kill target for a single process, so a binding seed plans what it planned before targets existed', () => {
    const plan = planFaults(full);
    expect(kills(plan).length).toBeGreaterThan(3);
    expect(kills(plan).every((k) => !('target' in k))).toBe(true);
    expect(planFaults({ ...full, processes: 1 })).toEqual(plan);
  });

  it('spreads the kills of a split deployment over every process', () => {
    const targets = new Set<number>();
    for (let seed = 1; seed <= 5; seed++) for (const k of kills(planFaults({ ...full, seed, processes: 4 }))) targets.add(k.target ?? -1);
    expect([...targets].sort()).toEqual([0, 1, 2, 3]);
  });
});
