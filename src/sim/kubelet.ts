// The kubelet's part in deleting a pod: once the pod is marked (deletionTimestamp), it stops the containers, writes
// their last status and removes the pod, with a grace period of zero. Churn does this for the pods it deletes, a few
// operations on; a pod deleted over HTTP is finished a moment later (Kubelets), as a container that heeds SIGTERM is.
import { clone } from './deep-equal.js';
import { iso } from './gen-meta.js';
import type { SimStore } from './store.js';
import { rec, recs, type SimObject } from './types.js';

/** How long a deleted pod's containers take to stop after the mark, for a pod deleted over HTTP. */
const STOP_MS = 1_000;

/** Writes a marked pod's last status (its running containers terminated, not ready) and removes it. */
export function finishPod(store: SimStore, pod: SimObject, now: number): void {
  const next = clone(pod);
  const status = rec(next.status);
  const at = iso(now);
  for (const s of recs(status.containerStatuses)) {
    const running = rec(rec(s.state).running);
    if (!running.startedAt) continue;
    Object.assign(s, { ready: false, started: false, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: running.startedAt, finishedAt: at, ...(s.containerID ? { containerID: s.containerID } : {}) } } });
  }
  for (const c of recs(status.conditions)) {
    if ((c.type === 'Ready' || c.type === 'ContainersReady') && c.status !== 'False') Object.assign(c, { status: 'False', reason: 'PodCompleted', lastTransitionTime: at });
  }
  next.status = status;
  store.update('pods', next, { subresource: 'status' });
  store.delete('pods', pod.metadata.namespace, pod.metadata.name ?? '');
}

/** The cluster's kubelets, for the pods deleted over HTTP: each is finished STOP_MS after its mark. */
export class Kubelets {
  private readonly pending = new Set<NodeJS.Timeout>();

  constructor(private readonly store: SimStore, private readonly now: () => number = Date.now) {}

  /** Finishes the pod at `key` soon, if it is still the one with `uid` (not deleted and made again meanwhile). */
  terminate(key: string, uid: string): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      const pod = this.store.table('pods')?.get(key);
      if (pod?.metadata.uid === uid) finishPod(this.store, pod, this.now());
    }, STOP_MS);
    timer.unref();
    this.pending.add(timer);
  }

  /** Forgets what is pending (the cluster is stopping). */
  stop(): void {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }
}
