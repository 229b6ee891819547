// The kubelet's part in deleting a pod: once the pod is marked (deletionTimestamp), it stops the containers, writes
// their last status and removes the pod, with a grace period of zero. Churn does this for the pods it deletes, a few
// operations on; a pod deleted over HTTP is finished a moment later (Kubelets), as a container that heeds SIGTERM is,
// and the pod its controller makes in its place is started a moment after it was made.
import { clone } from './deep-equal.js';
import { iso } from './gen-meta.js';
import type { SimStore } from './store.js';
import { rec, recs, type Rec, type SimObject } from './types.js';

/**
 * Sets a pod's Ready and ContainersReady conditions as the kubelet's status manager does: True, or False for `reason`;
 * their transition time moves only when their status does.
 */
export function setReadiness(status: Rec, ready: boolean, at: string, reason = 'ContainersNotReady'): void {
  const want = ready ? 'True' : 'False';
  for (const c of recs(status.conditions)) {
    if ((c.type !== 'Ready' && c.type !== 'ContainersReady') || (c.status === want && (ready || c.reason === reason))) continue;
    if (c.status !== want) c.lastTransitionTime = at;
    c.status = want;
    if (ready) delete c.reason;
    else c.reason = reason;
  }
}

/** Writes a marked pod's last status (its running containers terminated, not ready) and removes it. */
export function finishPod(store: SimStore, pod: SimObject, now: number): void {
  store.update('pods', stoppedPod(pod, now), { subresource: 'status' });
  store.delete('pods', pod.metadata.namespace, pod.metadata.name ?? '');
}

/** `pod` with its running containers terminated (exit code 0, Completed, unless `exit` says otherwise) at `now`, and not ready. */
export function stoppedPod(pod: SimObject, now: number, exit: { exitCode: number; reason: string } = { exitCode: 0, reason: 'Completed' }): SimObject {
  const next = clone(pod);
  const status = rec(next.status);
  const at = iso(now);
  for (const s of recs(status.containerStatuses)) {
    const running = rec(rec(s.state).running);
    if (!running.startedAt) continue;
    Object.assign(s, { ready: false, started: false, state: { terminated: { ...exit, startedAt: running.startedAt, finishedAt: at, ...(s.containerID ? { containerID: s.containerID } : {}) } } });
  }
  setReadiness(status, false, at, 'PodCompleted');
  next.status = status;
  return next;
}

/** The cluster's kubelets, for the pods deleted or made in answer to requests over HTTP: each acts a moment later. */
export class Kubelets {
  private readonly pending = new Set<NodeJS.Timeout>();
  /** How long a deleted pod's containers take to stop after the mark, for a pod deleted over HTTP. */
  stopMs = 1_000;
  /** How long a new pod's containers take to start, for a pod its controller made in answer to a request over HTTP. */
  startMs = 2_000;

  constructor(private readonly store: SimStore, private readonly now: () => number = Date.now) {}

  /**
   * Finishes the pod at `key` soon, if it is still the one with `uid` (not deleted and made again meanwhile); `gone`
   * is told of it once the pod is removed (a finalizer may keep it).
   */
  terminate(key: string, uid: string, gone?: (pod: SimObject) => void): void {
    this.after(this.stopMs, key, uid, (pod) => {
      finishPod(this.store, pod, this.now());
      if (this.store.table('pods')?.get(key)?.metadata.uid !== uid) gone?.(pod);
    });
  }

  /** Starts the pod at `key` soon with `start`, if it is still the one with `uid`. */
  start(key: string, uid: string, start: (pod: SimObject) => void): void {
    this.after(this.startMs, key, uid, start);
  }

  /** Acts on the pod at `key` `ms` from now (its containers ended, say), if it is still the one with `uid`. */
  later(ms: number, key: string, uid: string, act: (pod: SimObject) => void): void {
    this.after(ms, key, uid, act);
  }

  /** Forgets what is pending (the cluster is stopping). */
  stop(): void {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }

  private after(ms: number, key: string, uid: string, act: (pod: SimObject) => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      const pod = this.store.table('pods')?.get(key);
      if (pod?.metadata.uid === uid) act(pod);
    }, ms);
    timer.unref();
    this.pending.add(timer);
  }
}

/** The kubelet's back-off before starting a container again after `restarts` restarts, as Go prints it: 10s … 5m0s. */
export function crashBackoff(restarts: number): string {
  const seconds = crashBackoffMs(restarts, 10_000) / 1000;
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

/** That back-off in ms, from `baseMs` (kube's 10 s) doubled for each restart after the first, up to 30 times it (5 min). */
export function crashBackoffMs(restarts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, restarts - 1), 30 * baseMs);
}

/** A container's last state once it exited 1 (`at`) after running since `startedAt`, as the kubelet records it. */
export function exitedWithError(container: Rec, startedAt: unknown, at: string): Rec {
  return { terminated: { exitCode: 1, reason: 'Error', startedAt, finishedAt: at, ...(container.containerID ? { containerID: container.containerID } : {}) } };
}

/**
 * `pod` with its first container exited 1 (`now`) and waiting out the kubelet's crash back-off before it starts again
 * (CrashLoopBackOff, kube's message); not ready.
 */
export function crashLooping(pod: SimObject, now: number): SimObject {
  const next = clone(pod);
  const first = recs(rec(next.status).containerStatuses)[0];
  if (!first) return next;
  const at = iso(now);
  const was = rec(rec(first.state).running).startedAt ?? at;
  const message = `back-off ${crashBackoff(Number(first.restartCount ?? 0))} restarting failed container=${String(first.name)} pod=${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;
  Object.assign(first, {
    ready: false, started: false,
    lastState: exitedWithError(first, was, at),
    state: { waiting: { reason: 'CrashLoopBackOff', message } },
  });
  setReadiness(rec(next.status), false, at);
  return next;
}
