// PediaCluster conditions (reference §4.3): Validated, SynchroRunning, ClusterHealthy and the Ready summary.
import type { Condition } from '../../kube/pediacluster.js';

export type ValidatedState =
  | { ok: true; warning?: string }
  | { ok: false; reason: 'InvalidConfig' | 'InvalidSyncResources'; message: string };

/** Where the cluster's synchro is in its life. */
export type SynchroPhase =
  | { phase: 'None' }
  | { phase: 'Pending' }
  | { phase: 'Running' }
  | { phase: 'Shutdown' }
  | { phase: 'InitialFailed'; message: string };

export type HealthState =
  | { status: 'Unknown'; message: string }
  | { status: 'True'; message: string }
  | { status: 'False'; reason: 'NotReachable' | 'Unhealthy'; message: string };

export interface ClusterConditionState {
  validated: ValidatedState;
  synchro: SynchroPhase;
  health: HealthState;
}

/** Messages of reference §4.3, kept as constants so tests and clients can match them. */
export const MESSAGES = {
  syncResourceRefNotFound: 'Warning: sync resource ref is not found',
  waitInit: 'pediacluster is validated',
  pending: 'cluster synchro is created, wait running',
  running: 'cluster synchro is running',
  shutdown: 'cluster synchro is shutdown',
  waitSynchro: 'wait cluster synchro',
  waitMonitor: "wait cluster synchro's healthy monitor running",
  healthy: 'cluster health responded with ok',
} as const;

/** Builds the four conditions; a condition whose status did not change keeps its lastTransitionTime. */
export function buildConditions(s: ClusterConditionState, previous: readonly Condition[] | undefined, now: string): Condition[] {
  const validated: Omit<Condition, 'lastTransitionTime'> = s.validated.ok
    ? { type: 'Validated', status: 'True', reason: 'Validated', message: s.validated.warning ?? '' }
    : { type: 'Validated', status: 'False', reason: s.validated.reason, message: s.validated.message };
  const synchro = synchroCondition(s);
  const healthy = healthCondition(s);
  const parts = [validated, synchro, healthy];
  const failing = parts.find((c) => c.status !== 'True');
  const ready: Omit<Condition, 'lastTransitionTime'> = failing
    ? { type: 'Ready', status: 'False', reason: 'NotReady', message: `${failing.type} condition is ${failing.status}, reason is ${failing.reason}` }
    : { type: 'Ready', status: 'True', reason: 'Ready', message: '' };
  return [...parts, ready].map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    return { ...c, lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now };
  });
}

function synchroCondition(s: ClusterConditionState): Omit<Condition, 'lastTransitionTime'> {
  const t = 'SynchroRunning';
  switch (s.synchro.phase) {
    case 'None':
      return s.validated.ok
        ? { type: t, status: 'False', reason: 'WaitInit', message: MESSAGES.waitInit }
        : { type: t, status: 'False', reason: s.validated.reason, message: s.validated.message };
    case 'Pending':
      return { type: t, status: 'False', reason: 'Pending', message: MESSAGES.pending };
    case 'Running':
      return { type: t, status: 'True', reason: 'Running', message: MESSAGES.running };
    case 'Shutdown':
      return { type: t, status: 'False', reason: 'Shutdown', message: MESSAGES.shutdown };
    case 'InitialFailed':
      return { type: t, status: 'False', reason: 'InitialFailed', message: s.synchro.message };
  }
}

function healthCondition(s: ClusterConditionState): Omit<Condition, 'lastTransitionTime'> {
  const t = 'ClusterHealthy';
  if (s.synchro.phase === 'None' || s.synchro.phase === 'InitialFailed') return { type: t, status: 'Unknown', reason: 'MonitorStop', message: MESSAGES.waitSynchro };
  if (s.synchro.phase === 'Shutdown') return { type: t, status: 'Unknown', reason: 'MonitorStop', message: MESSAGES.shutdown };
  const h = s.health;
  if (h.status === 'True') return { type: t, status: 'True', reason: 'Healthy', message: h.message };
  if (h.status === 'False') return { type: t, status: 'False', reason: h.reason, message: h.message };
  return { type: t, status: 'Unknown', reason: 'MonitorStop', message: h.message };
}
