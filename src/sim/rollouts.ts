// What a workload controller's rollout does next, decided from counts alone (churn.ts carries it out): a Deployment's
// RollingUpdate step (kube's rolloutRolling), a StatefulSet's next ordinal (its OrderedReady update), a DaemonSet's
// old pods to delete (its rollingUpdate with maxSurge 0).

/** An IntOrString count (`fallback` when unset): a number, or a percentage of `total` rounded by `round`. */
export function resolveIntOrPercent(v: unknown, fallback: string, total: number, round: (x: number) => number): number {
  const s = String(v ?? fallback);
  return s.endsWith('%') ? round((Number(s.slice(0, -1)) * total) / 100) : Number(s);
}

/**
 * A Deployment's RollingUpdate bounds for `replicas` from its `rollingUpdate` parameters (kube's ResolveFenceposts):
 * maxSurge's percentage rounds up, maxUnavailable's down; both 0 leaves one unavailable.
 */
export function rollingBounds(params: { maxSurge?: unknown; maxUnavailable?: unknown }, replicas: number): { surge: number; unavailable: number } {
  const surge = resolveIntOrPercent(params.maxSurge, '25%', replicas, Math.ceil);
  const unavailable = resolveIntOrPercent(params.maxUnavailable, '25%', replicas, Math.floor);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

export interface RollingState {
  /** The Deployment's replicas and bounds. */
  replicas: number;
  surge: number;
  unavailable: number;
  /** The new ReplicaSet's replicas, and how many of its pods are available. */
  current: number;
  available: number;
  /** The old ReplicaSets' replicas, oldest first. */
  olds: number[];
}

/**
 * One step: the new ReplicaSet up by what maxSurge leaves room for (down to the replicas, if it has more), then the old
 * ones, oldest first, down by what maxUnavailable allows with the new pods not yet available. Returns each one's
 * replicas after it; the rollout is over when the new one has every replica and the old ones none.
 */
export function rollingStep(s: RollingState): { current: number; olds: number[] } {
  const oldTotal = s.olds.reduce((n, x) => n + x, 0);
  const current = s.current > s.replicas ? s.replicas : Math.min(s.replicas, s.current + Math.max(0, s.replicas + s.surge - s.current - oldTotal));
  const newUnavailable = Math.max(0, current - s.available);
  let down = current + oldTotal - (s.replicas - s.unavailable) - newUnavailable;
  const olds = s.olds.map((n) => {
    const by = Math.max(0, Math.min(down, n));
    down -= by;
    return n - by;
  });
  return { current, olds };
}

export interface OrderedPod {
  ordinal: number;
  /** Its controller-revision-hash label. */
  revision: string | undefined;
  ready: boolean;
  deleting: boolean;
}

/**
 * A StatefulSet's RollingUpdate, one pod at a time: `wait` while a pod is missing, being deleted or not ready; else
 * the highest ordinal at or above the partition not at the update revision, to replace; `done` when there is none.
 */
export function statefulSetStep(replicas: number, partition: number, update: string, pods: OrderedPod[]): number | 'wait' | 'done' {
  if (pods.length < replicas || pods.some((p) => p.deleting || !p.ready)) return 'wait';
  const stale = pods.filter((p) => p.ordinal >= partition && p.revision !== update).map((p) => p.ordinal);
  return stale.length === 0 ? 'done' : Math.max(...stale);
}

/**
 * A StatefulSet's OrderedReady scaling, one pod at a time: while a pod is being deleted, `wait`; the highest ordinal at
 * or above the replicas, to delete; else the lowest missing one below them (not `pending`, made once its name is free),
 * to make once every pod there is ready (`wait` until then); `done` when the ordinals are exactly those below the
 * replicas.
 */
export function statefulSetScaleStep(replicas: number, pods: OrderedPod[], pending: ReadonlySet<number>): { create: number } | { remove: number } | 'wait' | 'done' {
  if (pods.some((p) => p.deleting)) return 'wait';
  const extra = pods.filter((p) => p.ordinal >= replicas).map((p) => p.ordinal);
  if (extra.length > 0) return { remove: Math.max(...extra) };
  const have = new Set(pods.map((p) => p.ordinal));
  for (let i = 0; i < replicas; i++) {
    if (have.has(i)) continue;
    if (pending.has(i) || pods.some((p) => !p.ready)) return 'wait';
    return { create: i };
  }
  return 'done';
}

/**
 * Which of a DaemonSet's old pods (`oldReady`: whether each is ready) its rollout deletes now, by index: those not
 * ready (unavailable already), then ready ones while fewer than `maxUnavailable` of its `nodes` lack an available pod
 * (`ready` of its pods are).
 */
export function daemonSetDeletions(nodes: number, maxUnavailable: number, ready: number, oldReady: boolean[]): number[] {
  let budget = maxUnavailable - (nodes - ready);
  const out: number[] = [];
  oldReady.forEach((r, i) => {
    if (!r) out.push(i);
  });
  oldReady.forEach((r, i) => {
    if (r && budget > 0) {
      budget--;
      out.push(i);
    }
  });
  return out;
}
