// The status the workload controllers of kube 1.32 write from what they own: a ReplicaSet's, StatefulSet's and
// DaemonSet's counts of its pods and of those ready, a Deployment's sums over its ReplicaSets with its Available and
// Progressing conditions. The generator and churn both use it, so `kubectl get deploy` READY agrees with the pods.
import { iso } from './gen-meta.js';
import { rec, recs, type Rec, type SimObject } from './types.js';

/** A pod its controller counts as ready: its Ready condition True, and not being deleted. */
export function podIsReady(pod: SimObject): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  return recs(rec(pod.status).conditions).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Available with kube's default maxUnavailable of 25 % (rounded down) of the wanted replicas, or fewer, unavailable. */
export function deploymentAvailable(replicas: number, available: number): boolean {
  return available >= replicas - Math.floor(replicas / 4);
}

/** A Deployment's Available condition; `since` is kept as its lastTransitionTime when the status did not change. */
export function availableCondition(ok: boolean, at: string, since = at): Rec {
  return {
    type: 'Available', status: ok ? 'True' : 'False', lastUpdateTime: at, lastTransitionTime: since,
    reason: ok ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable', message: `Deployment ${ok ? 'has' : 'does not have'} minimum availability.`,
  };
}

/** Counts as the API has them: the fields kube marks omitempty are left out when zero. */
function counts(required: Record<string, number>, omitEmpty: Record<string, number>): Record<string, number> {
  const out = { ...required };
  for (const [k, v] of Object.entries(omitEmpty)) if (v !== 0) out[k] = v;
  return out;
}

const COUNT_FIELDS = [
  'replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'currentReplicas', 'updatedReplicas', 'unavailableReplicas',
  'currentNumberScheduled', 'desiredNumberScheduled', 'numberReady', 'numberAvailable', 'numberUnavailable', 'updatedNumberScheduled',
];

/** `status` with its counts replaced by `next` (those `next` leaves out are gone). */
function withCounts(status: Rec, next: Record<string, number>): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(status)) if (!COUNT_FIELDS.includes(k)) out[k] = v;
  return { ...out, ...next };
}

/**
 * The status a ReplicaSet, StatefulSet or DaemonSet controller writes for `pods` of its own, `ready` of them ready;
 * `rollout`, while one is under way: how many pods are at the current and at the update revision (all of them when
 * not given), and a DaemonSet's desired number (the nodes it may run on; its pods when not given).
 */
export function ownerStatus(kind: string | undefined, status: Rec, pods: number, ready: number, rollout: { current?: number; updated?: number; desired?: number } = {}): Rec {
  switch (kind) {
    case 'ReplicaSet': return withCounts(status, counts({ replicas: pods }, { fullyLabeledReplicas: pods, readyReplicas: ready, availableReplicas: ready }));
    case 'StatefulSet': return withCounts(status, counts({ replicas: pods, availableReplicas: ready }, { readyReplicas: ready, currentReplicas: rollout.current ?? pods, updatedReplicas: rollout.updated ?? pods }));
    case 'DaemonSet': {
      const desired = rollout.desired ?? pods;
      return withCounts(status, counts(
        { currentNumberScheduled: pods, desiredNumberScheduled: desired, numberReady: ready },
        { numberAvailable: ready, numberUnavailable: Math.max(0, desired - ready), updatedNumberScheduled: rollout.updated ?? pods },
      ));
    }
    default: return status;
  }
}

/**
 * A Deployment's status from its ReplicaSets (the newest is `current`) at `now` (ms), as the deployment controller's
 * calculateStatus and syncRolloutStatus make it: a condition is rewritten only when its status or reason changes.
 */
export function deploymentStatus(deploy: SimObject, replicaSets: SimObject[], current: SimObject | undefined, now: number): Rec {
  const at = iso(now);
  const status = rec(deploy.status);
  const wanted = Number(rec(deploy.spec).replicas ?? 1);
  const sum = (field: string, of: SimObject[] = replicaSets): number => of.reduce((n, rs) => n + Number(rec(rs.status)[field] ?? 0), 0);
  const available = sum('availableReplicas');
  const updated = current ? sum('replicas', [current]) : 0;
  const total = replicaSets.reduce((n, rs) => n + Number(rec(rs.spec).replicas ?? 0), 0);
  const next = withCounts(status, counts({}, {
    replicas: sum('replicas'), updatedReplicas: updated, readyReplicas: sum('readyReplicas'), availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  }));
  const conditions = [...recs(status.conditions)];
  // SetDeploymentCondition: nothing changes while the status and the reason stay; the transition time stays with the status.
  const set = (c: Rec, always = false): void => {
    const i = conditions.findIndex((o) => o.type === c.type);
    const was = conditions[i];
    if (!always && was && was.status === c.status && was.reason === c.reason) return;
    const next = { ...c, lastTransitionTime: was && was.status === c.status ? was.lastTransitionTime : at };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
  };
  set(availableCondition(deploymentAvailable(wanted, available), at));
  const name = current?.metadata.name ?? '';
  const progressing = (c: Partial<Record<'status' | 'reason' | 'message', string>>): Rec => ({ type: 'Progressing', status: 'True', lastUpdateTime: at, lastTransitionTime: at, ...c });
  const n = (field: string, of: Rec): number => Number(of[field] ?? 0);
  // DeploymentComplete, else DeploymentProgressing (more updated, ready or available pods, or fewer old ones).
  if (n('updatedReplicas', next) === wanted && n('replicas', next) === wanted && available === wanted) {
    set(progressing({ reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${name}" has successfully progressed.` }));
  } else if (
    n('updatedReplicas', next) > n('updatedReplicas', status) || n('replicas', next) - n('updatedReplicas', next) < n('replicas', status) - n('updatedReplicas', status) ||
    n('readyReplicas', next) > n('readyReplicas', status) || available > n('availableReplicas', status)
  ) {
    set(progressing({ reason: 'ReplicaSetUpdated', message: `ReplicaSet "${name}" is progressing.` }), true);
  } else if (timedOut(deploy, conditions.find((c) => c.type === 'Progressing'), now)) {
    set(progressing({ status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${name}" has timed out progressing.` }));
  }
  return { ...next, conditions };
}

/**
 * kube's DeploymentTimedOut: a rollout that has not progressed for its progressDeadlineSeconds (unset or the largest
 * int32: never). One that completed once (NewReplicaSetAvailable) does not time out; one that timed out stays so.
 */
function timedOut(deploy: SimObject, progressing: Rec | undefined, now: number): boolean {
  const deadline = progressDeadlineMs(deploy);
  if (deadline === undefined || !progressing || progressing.reason === 'NewReplicaSetAvailable') return false;
  return progressing.reason === 'ProgressDeadlineExceeded' || Date.parse(String(progressing.lastUpdateTime)) + deadline < now;
}

/** A Deployment's progress deadline in ms; none where it is unset or kube's "never" (the largest int32). */
export function progressDeadlineMs(deploy: SimObject): number | undefined {
  const seconds = rec(deploy.spec).progressDeadlineSeconds;
  return typeof seconds === 'number' && seconds < 2 ** 31 - 1 ? seconds * 1000 : undefined;
}
