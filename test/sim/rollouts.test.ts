// The rollout decisions, step by step from counts: kube's rolloutRolling, OrderedReady updates, DaemonSet budgets.
import { describe, expect, it } from 'vitest';
import { daemonSetDeletions, resolveIntOrPercent, rollingBounds, rollingStep, statefulSetScaleStep, statefulSetStep } from '../../src/sim/rollouts.js';

describe('a Deployment RollingUpdate', () => {
  it('resolves maxSurge up and maxUnavailable down, one unavailable when both are 0', () => {
    expect(rollingBounds({}, 10)).toEqual({ surge: 3, unavailable: 2 });
    expect(rollingBounds({}, 3)).toEqual({ surge: 1, unavailable: 0 });
    expect(rollingBounds({ maxSurge: 0, maxUnavailable: '0%' }, 5)).toEqual({ surge: 0, unavailable: 1 });
    expect(rollingBounds({ maxSurge: '50%', maxUnavailable: 2 }, 5)).toEqual({ surge: 3, unavailable: 2 });
    expect(resolveIntOrPercent(undefined, '1', 7, Math.floor)).toBe(1);
  });

  it('steps from the old ReplicaSet to the new one within its bounds, each new pod available before the next step', () => {
    // 4 replicas, surge 1, unavailable 1 (the 25 % defaults); every new pod becomes available between steps.
    let s = { replicas: 4, surge: 1, unavailable: 1, current: 0, available: 0, olds: [4] };
    const seen: string[] = [];
    for (let i = 0; i < 10 && !(s.current === 4 && s.olds[0] === 0); i++) {
      const next = rollingStep(s);
      seen.push(`${next.current}/${next.olds.join(',')}`);
      expect(next.current + (next.olds[0] ?? 0)).toBeLessThanOrEqual(4 + 1);
      s = { ...s, current: next.current, available: next.current, olds: next.olds };
    }
    // kube's numbers: up to 5 pods in all, at least 3 available.
    expect(seen).toEqual(['1/3', '2/2', '3/1', '4/0']);
  });

  it('waits while the new pods are not available; takes the oldest ReplicaSet down first; scales down a new one over the replicas', () => {
    // Scaling up is bounded by the surge alone; scaling down waits for the new pods.
    expect(rollingStep({ replicas: 4, surge: 1, unavailable: 1, current: 1, available: 0, olds: [3] })).toEqual({ current: 2, olds: [3] });
    expect(rollingStep({ replicas: 4, surge: 1, unavailable: 1, current: 2, available: 0, olds: [3] })).toEqual({ current: 2, olds: [3] });
    expect(rollingStep({ replicas: 4, surge: 1, unavailable: 1, current: 2, available: 2, olds: [1, 2] })).toEqual({ current: 2, olds: [0, 1] });
    expect(rollingStep({ replicas: 2, surge: 1, unavailable: 0, current: 5, available: 5, olds: [] })).toEqual({ current: 2, olds: [] });
  });
});

describe('a StatefulSet RollingUpdate', () => {
  const pod = (ordinal: number, revision: string, ready = true, deleting = false): { ordinal: number; revision: string; ready: boolean; deleting: boolean } => ({ ordinal, revision, ready, deleting });

  it('replaces the highest stale ordinal at or above the partition, one at a time, once all are ready', () => {
    expect(statefulSetStep(3, 0, 'b', [pod(0, 'a'), pod(1, 'a'), pod(2, 'a')])).toBe(2);
    expect(statefulSetStep(3, 0, 'b', [pod(0, 'a'), pod(1, 'a'), pod(2, 'b')])).toBe(1);
    expect(statefulSetStep(3, 0, 'b', [pod(0, 'a'), pod(1, 'a'), pod(2, 'b', false)])).toBe('wait');
    expect(statefulSetStep(3, 0, 'b', [pod(0, 'a'), pod(1, 'a', true, true), pod(2, 'b')])).toBe('wait');
    expect(statefulSetStep(3, 0, 'b', [pod(0, 'a'), pod(2, 'b')])).toBe('wait');
    expect(statefulSetStep(3, 0, 'b', [pod(0, 'b'), pod(1, 'b'), pod(2, 'b')])).toBe('done');
    expect(statefulSetStep(3, 2, 'b', [pod(0, 'a'), pod(1, 'a'), pod(2, 'b')])).toBe('done');
  });
});

describe('a StatefulSet scaled OrderedReady', () => {
  const pod = (ordinal: number, ready = true, deleting = false): { ordinal: number; revision: string; ready: boolean; deleting: boolean } => ({ ordinal, revision: 'a', ready, deleting });

  it('makes the lowest missing ordinal once the others are ready, and deletes the highest extra one, one at a time', () => {
    expect(statefulSetScaleStep(3, [pod(0), pod(1)], new Set())).toEqual({ create: 2 });
    expect(statefulSetScaleStep(3, [pod(0), pod(2)], new Set())).toEqual({ create: 1 });
    expect(statefulSetScaleStep(3, [pod(0), pod(1, false)], new Set())).toBe('wait');
    expect(statefulSetScaleStep(3, [pod(0), pod(1)], new Set([2]))).toBe('wait');
    expect(statefulSetScaleStep(1, [pod(0), pod(1), pod(2)], new Set())).toEqual({ remove: 2 });
    expect(statefulSetScaleStep(1, [pod(0), pod(1), pod(2, true, true)], new Set())).toBe('wait');
    expect(statefulSetScaleStep(2, [pod(0), pod(1, false)], new Set())).toBe('done');
  });
});

describe('a DaemonSet rollout', () => {
  it('deletes the old pods not ready at once, ready ones only within maxUnavailable', () => {
    // 4 nodes, all ready: one at a time.
    expect(daemonSetDeletions(4, 1, 4, [true, true, true, true])).toEqual([0]);
    // One node already down (3 ready): none of the ready ones, but the unready old pod.
    expect(daemonSetDeletions(4, 1, 3, [true, false, true])).toEqual([1]);
    expect(daemonSetDeletions(4, 2, 4, [true, true, true])).toEqual([0, 1]);
  });
});
