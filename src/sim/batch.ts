// The batch controllers, as kube's run them. The Job controller keeps up to `parallelism` pods of a Job running until
// `completions` of them have succeeded, replaces a pod deleted before it ended (counted as failed, up to
// `backoffLimit`; after failures it waits kube's back-off before it makes one: 10 s, doubled for each failure since
// the last success, up to 10 min), deletes the running ones of a suspended Job, and completes the Job; each pod runs `jobRunMs` and
// succeeds, or fails (`failureShare`: counted failed like a deleted one, or restarted in place under OnFailure). The
// CronJob controller makes a Job at each minute a schedule names and lets old ones go. Churn lends them its pods'
// lives (BatchHost): how a pod is made, started and deleted.
import type { ChurnEvents } from './churn-events.js';
import { podIsReady } from './controller-status.js';
import { clone } from './deep-equal.js';
import { iso } from './gen-meta.js';
import { scheduleNames } from './cron.js';
import { crashBackoffMs, crashLooping, exitedWithError, setReadiness, stoppedPod, type Kubelets } from './kubelet.js';
import { kubeSuffix, type Rng } from './prng.js';
import type { SimStore } from './store.js';
import { keyOf, rec, recs, type Rec, type SimObject } from './types.js';

export interface BatchHost {
  readonly store: SimStore;
  readonly events: ChurnEvents;
  readonly kubelets: Kubelets;
  /** Draws the suffixes of the pods' names. */
  readonly rng: Rng;
  /** Draws whether a Job's pod succeeds (failureShare). */
  readonly outcomes: Rng;
  now(): number;
  /** Whether the CronJob clock runs (it is off with churn's heartbeats). */
  clockRuns(): boolean;
  /** Makes a pod of `owner` from its template (scheduled, Pending) and has its kubelet start it soon, then `started`. */
  makePod(owner: SimObject, name: string, generateName: string, started: (pod: SimObject) => void): SimObject | undefined;
  /** A controller deletes one of its pods: marked, then finished by its kubelet a moment later. */
  deletePod(pod: SimObject): void;
  /** The objects of `gr` that `owner` controls. */
  owned(gr: string, owner: SimObject): SimObject[];
}

/** Back-off records kept before those of Jobs gone or finished are dropped. */
const MAX_BACKOFF_RECORDS = 1024;

/** kube's JobConditionType values this controller sets. */
type Finished = 'Complete' | 'Failed';

export class Batch {
  /** How long a Job's pod runs, once started, before it ends. */
  jobRunMs = 20_000;
  /** The share of Job pods whose container fails (exit code 1), as the generated Jobs' pods do. */
  failureShare = 0.1;
  /** kube's delay before a Job makes a pod after a failure (DefaultJobPodFailureBackOff), doubled per failure since its last success. */
  podFailureBackoffMs = 10_000;
  /** The longest such delay (MaxJobPodFailureBackOff). */
  podFailureBackoffMaxMs = 600_000;
  /**
   * The kubelet's crash back-off before it starts a container that exited again (kube's 10 s), doubled for each restart
   * after the first, up to 30 times it; the container waits in CrashLoopBackOff meanwhile.
   */
  crashBackoffMs = 10_000;
  /** The last minute the CronJob clock looked at (cronTick). */
  private cronMinute: number | undefined;
  /** Each Job's failures since its last success and when the last was, by uid: its back-off (kube's backoffRecord). */
  private readonly failures = new Map<string, { count: number; at: number }>();
  /** The syncs Jobs in back-off wait for, by uid. */
  private readonly retries = new Map<string, NodeJS.Timeout>();

  constructor(private readonly h: BatchHost) {}

  /**
   * The Job controller's sync of the Job at `ns`/`name` (made, changed, or one of its pods started, ended or was
   * deleted): pods made or deleted to match what it still needs, its status written, the Job finished when its pods
   * have succeeded or it has failed too often.
   */
  syncJob(ns: string, name: string): void {
    const job = this.h.store.get('jobs.batch', ns, name);
    if (!job || job.metadata.deletionTimestamp || finished(job)) return;
    const spec = rec(job.spec);
    const status = rec(job.status);
    const pods = this.h.owned('pods', job).filter((p) => !p.metadata.deletionTimestamp);
    let active = pods.filter((p) => !ended(p));
    const succeeded = Number(status.succeeded ?? 0);
    const failed = Number(status.failed ?? 0);
    const completions = spec.completions === undefined || spec.completions === null ? undefined : Number(spec.completions);
    const parallelism = Number(spec.parallelism ?? 1);
    const suspended = spec.suspend === true;
    let outcome: { type: Finished; reason: string; message: string } | undefined;
    if (failed > Number(spec.backoffLimit ?? 6)) outcome = { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    else if (completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0) {
      outcome = { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
    }
    // Without completions, the first success ends the work: the pods running finish, no new one starts.
    const wanted = outcome || suspended ? 0 : Math.max(0, Math.min(parallelism, completions !== undefined ? completions - succeeded : succeeded > 0 ? 0 : parallelism));
    for (const extra of active.slice(wanted)) this.h.deletePod(extra);
    active = active.slice(0, wanted);
    const jobName = job.metadata.name ?? '';
    const waitMs = active.length < wanted ? this.backoffLeft(job) : 0;
    if (waitMs > 0) this.retry(job, waitMs);
    for (let i = active.length; i < wanted && waitMs <= 0; i++) {
      const pod = this.h.makePod(job, `${jobName}-${kubeSuffix(this.h.rng)}`, `${jobName}-`, (p) => this.started(p));
      if (pod) active.push(pod);
    }
    const at = iso(this.h.now());
    const wasSuspended = recs(status.conditions).some((c) => c.type === 'Suspended' && c.status === 'True');
    let conditions = recs(status.conditions);
    if (suspended !== wasSuspended && (suspended || conditions.some((c) => c.type === 'Suspended'))) {
      conditions = [...conditions.filter((c) => c.type !== 'Suspended'), suspended ? condition('Suspended', at, 'JobSuspended', 'Job suspended') : condition('Suspended', at, 'JobResumed', 'Job resumed', 'False')];
    }
    // A Job resumed starts its clock again (kube resets startTime; activeDeadlineSeconds counts from there).
    const startTime = wasSuspended && !suspended ? at : status.startTime ?? (suspended ? undefined : at);
    if (outcome?.type === 'Complete') conditions.push(condition('SuccessCriteriaMet', at, outcome.reason, outcome.message));
    else if (outcome) conditions.push(condition('FailureTarget', at, outcome.reason, outcome.message));
    if (outcome) conditions.push(condition(outcome.type, at, outcome.reason, outcome.message));
    const next: Rec = {
      ...(conditions.length > 0 ? { conditions } : {}),
      ...(startTime !== undefined ? { startTime } : {}),
      ...(outcome?.type === 'Complete' ? { completionTime: at } : {}),
      ...(active.length > 0 ? { active: active.length } : {}),
      ...(succeeded > 0 ? { succeeded } : {}),
      ...(failed > 0 ? { failed } : {}),
      terminating: this.h.owned('pods', job).filter((p) => p.metadata.deletionTimestamp).length,
      ready: active.filter(podIsReady).length,
      uncountedTerminatedPods: {},
    };
    if (JSON.stringify(next) !== JSON.stringify(job.status)) this.h.store.update('jobs.batch', { ...clone(job), status: next }, { subresource: 'status' });
    if (suspended !== wasSuspended) this.h.events.controller(job, 'job-controller', suspended ? 'Suspended' : 'Resumed', suspended ? 'Job suspended' : 'Job resumed');
    if (outcome) this.finish(job, outcome);
  }

  /** Stops the syncs waiting out a back-off. */
  close(): void {
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }

  /** How long `job` must still wait before it makes a pod: its back-off after its last failure, 0 when over or none. */
  private backoffLeft(job: SimObject): number {
    const f = this.failures.get(job.metadata.uid ?? '');
    if (!f || f.count === 0) return 0;
    const delay = Math.min(this.podFailureBackoffMs * 2 ** (f.count - 1), this.podFailureBackoffMaxMs);
    return f.at + delay - this.h.now();
  }

  /** Drops the back-off records of Jobs deleted or finished (kube's are dropped with the Job). */
  private forgetGoneJobs(): void {
    const live = new Set<string>();
    for (const [, j] of this.h.store.table('jobs.batch')?.entries() ?? []) if (!finished(j)) live.add(j.metadata.uid ?? '');
    for (const uid of [...this.failures.keys()]) if (!live.has(uid)) this.failures.delete(uid);
  }

  /** Syncs `job` again in `ms` (once: a sync already waiting stays). */
  private retry(job: SimObject, ms: number): void {
    const uid = job.metadata.uid ?? '';
    if (this.retries.has(uid)) return;
    const ns = job.metadata.namespace ?? '';
    const name = job.metadata.name ?? '';
    this.retries.set(uid, setTimeout(() => {
      this.retries.delete(uid);
      this.syncJob(ns, name);
    }, ms).unref());
  }

  /**
   * A pod of a Job was deleted over HTTP before it ended: the Job controller counts it failed (kube's pod failure
   * policy default) and makes another while the Job is still under its backoff limit.
   */
  podDeleted(pod: SimObject): void {
    if (!ended(pod)) this.count(pod, 'failed');
  }

  /** The Job that controls `pod`, if it is there (the same one: its uid). */
  private jobOf(pod: SimObject): SimObject | undefined {
    const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
    const job = ref && this.h.store.get('jobs.batch', pod.metadata.namespace ?? '', ref.name);
    return job && job.metadata.uid === ref?.uid ? job : undefined;
  }

  /** A pod of a Job that has not finished ended as `field` says: the Job counts it and syncs. */
  private count(pod: SimObject, field: 'succeeded' | 'failed'): void {
    const job = this.jobOf(pod);
    if (!job || finished(job)) return;
    const status = rec(job.status);
    const uid = job.metadata.uid ?? '';
    if (field === 'failed') this.failures.set(uid, { count: (this.failures.get(uid)?.count ?? 0) + 1, at: this.h.now() });
    else this.failures.delete(uid);
    if (this.failures.size > MAX_BACKOFF_RECORDS) this.forgetGoneJobs();
    this.h.store.update('jobs.batch', { ...clone(job), status: { ...status, [field]: Number(status[field] ?? 0) + 1 } }, { subresource: 'status' });
    this.syncJob(job.metadata.namespace ?? '', job.metadata.name ?? '');
  }

  /**
   * The CronJob controller by the clock: at each minute a CronJob's schedule names (cron.ts, in its time zone if it
   * names one), it makes a Job named `<cronjob>-<minutes since the epoch>` (not when suspended, nor, with Forbid,
   * while one is active), which the Job controller runs. The first call only starts the clock; off while churn's
   * heartbeats are. Returns the Jobs made.
   */
  cronTick(now: number): number {
    if (!this.h.clockRuns()) return 0;
    const minute = Math.floor(now / 60_000);
    const from = this.cronMinute;
    this.cronMinute = minute;
    if (from === undefined || minute <= from) return 0;
    let made = 0;
    for (let m = Math.max(from + 1, minute - 4); m <= minute; m++) {
      for (const key of [...(this.h.store.table('cronjobs.batch')?.keys() ?? [])]) if (this.fire(key, m)) made++;
    }
    return made;
  }

  /** The run at `minute` of the CronJob at `key`, if its schedule names it: its Job, started. */
  private fire(key: string, minute: number): boolean {
    const cj = this.h.store.table('cronjobs.batch')?.get(key);
    if (!cj) return false;
    const spec = rec(cj.spec);
    const ns = cj.metadata.namespace ?? '';
    const name = `${cj.metadata.name ?? ''}-${minute}`;
    const active = recs(rec(cj.status).active);
    const timeZone = typeof spec.timeZone === 'string' ? spec.timeZone : undefined;
    if (spec.suspend === true || !scheduleNames(String(spec.schedule ?? ''), minute, timeZone) || this.h.store.get('jobs.batch', ns, name)) return false;
    if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) return false;
    const template = rec(spec.jobTemplate);
    const job = this.h.store.create('jobs.batch', {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: {
        name, namespace: ns, labels: { ...(rec(rec(template.metadata).labels) as Record<string, string>) },
        annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': iso(minute * 60_000) },
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cj.metadata.name ?? '', uid: cj.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: { parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed', ...clone(rec(template.spec)) },
    }, ns);
    this.h.events.controller(cj, 'cronjob-controller', 'SuccessfulCreate', `Created job ${name}`);
    this.h.store.update('cronjobs.batch', { ...clone(cj), status: { ...rec(cj.status), active: [...active, { apiVersion: 'batch/v1', kind: 'Job', name, namespace: ns, uid: job.metadata.uid, resourceVersion: job.metadata.resourceVersion }], lastScheduleTime: iso(minute * 60_000) } }, { subresource: 'status' });
    this.syncJob(ns, name);
    return true;
  }

  /** A Job's pod started: its Job counts it ready, and it runs `jobRunMs` to its end. */
  private started(pod: SimObject): void {
    this.resync(pod);
    this.h.kubelets.later(this.jobRunMs, keyOf(pod), pod.metadata.uid ?? '', (p) => this.ran(p));
  }

  /** The Job of `pod` counts its pods again (one became ready, or stopped being). */
  private resync(pod: SimObject): void {
    const job = this.jobOf(pod);
    if (job) this.syncJob(job.metadata.namespace ?? '', job.metadata.name ?? '');
  }

  /**
   * A Job's pod ran to its end: it succeeded, or (`failureShare` of the time) its container exited 1. A pod that fails
   * under restartPolicy OnFailure has its container started again, and runs once more; otherwise the pod is Succeeded
   * or Failed, and its Job counts it.
   */
  private ran(pod: SimObject): void {
    if (pod.metadata.deletionTimestamp || rec(pod.status).phase !== 'Running') return;
    const failed = this.h.outcomes.chance(this.failureShare);
    const now = this.h.now();
    if (failed && rec(pod.spec).restartPolicy === 'OnFailure') {
      const restarts = Number(recs(rec(pod.status).containerStatuses)[0]?.restartCount ?? 0);
      const again = (p: SimObject): void => {
        this.h.store.update('pods', restarted(p, this.h.now()), { subresource: 'status' });
        this.resync(p);
        this.h.kubelets.later(this.jobRunMs, keyOf(p), p.metadata.uid ?? '', (q) => this.ran(q));
      };
      // Started again at once the first time; after that, once the kubelet's crash back-off is over (its Job counts it
      // not ready meanwhile).
      if (restarts === 0) return again(pod);
      const looping = this.h.store.update('pods', crashLooping(pod, now), { subresource: 'status' });
      this.h.events.kubeletWarning(looping);
      this.resync(looping);
      this.h.kubelets.later(crashBackoffMs(restarts, this.crashBackoffMs), keyOf(pod), pod.metadata.uid ?? '', again);
      return;
    }
    const done = stoppedPod(pod, now, failed ? { exitCode: 1, reason: 'Error' } : undefined);
    done.status = { ...rec(done.status), phase: failed ? 'Failed' : 'Succeeded' };
    this.h.store.update('pods', done, { subresource: 'status' });
    this.count(pod, failed ? 'failed' : 'succeeded');
  }

  /** A Job finished: its event, and its CronJob (if any) told, the Jobs beyond its history limits let go. */
  private finish(job: SimObject, outcome: { type: Finished; reason: string; message: string }): void {
    this.failures.delete(job.metadata.uid ?? '');
    if (outcome.type === 'Complete') this.h.events.controller(job, 'job-controller', 'Completed', 'Job completed');
    else this.h.events.controller(job, 'job-controller', outcome.reason, outcome.message, 'Warning');
    const ns = job.metadata.namespace ?? '';
    const cjRef = job.metadata.ownerReferences?.find((r) => r.kind === 'CronJob');
    const cj = cjRef && this.h.store.get('cronjobs.batch', ns, cjRef.name);
    if (!cj || cj.metadata.uid !== cjRef?.uid) return;
    const when = iso(this.h.now());
    const active = recs(rec(cj.status).active).filter((a) => a.uid !== job.metadata.uid);
    const { active: _was, ...rest } = rec(cj.status);
    this.h.store.update('cronjobs.batch', { ...clone(cj), status: { ...rest, ...(active.length > 0 ? { active } : {}), ...(outcome.type === 'Complete' ? { lastSuccessfulTime: when } : {}) } }, { subresource: 'status' });
    this.h.events.controller(cj, 'cronjob-controller', 'SawCompletedJob', `Saw completed job: ${job.metadata.name ?? ''}, status: ${outcome.type}`);
    // The finished Jobs kept: the newest successfulJobsHistoryLimit and failedJobsHistoryLimit, by scheduled time.
    const scheduled = (j: SimObject): number => Date.parse(j.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? j.metadata.creationTimestamp ?? '');
    const spec = rec(cj.spec);
    for (const [type, limit] of [['Complete', Number(spec.successfulJobsHistoryLimit ?? 3)], ['Failed', Number(spec.failedJobsHistoryLimit ?? 1)]] as const) {
      const done = this.h.owned('jobs.batch', cj).filter((j) => finished(j) === type).sort((a, b) => scheduled(a) - scheduled(b));
      for (const old of done.slice(0, Math.max(0, done.length - limit))) {
        this.h.store.delete('jobs.batch', ns, old.metadata.name ?? '', { propagationPolicy: 'Background' });
        this.h.events.controller(cj, 'cronjob-controller', 'SuccessfulDelete', `Deleted job ${old.metadata.name ?? ''}`);
      }
    }
  }
}

/** How a Job ended (its Complete or Failed condition is True), if it has. */
function finished(job: SimObject): Finished | undefined {
  const c = recs(rec(job.status).conditions).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c?.type as Finished | undefined;
}

function ended(pod: SimObject): boolean {
  const phase = rec(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

function condition(type: string, at: string, reason: string, message: string, status = 'True'): Rec {
  return { type, status, lastProbeTime: at, lastTransitionTime: at, reason, message };
}

/**
 * `pod` with its first container started again (restartPolicy OnFailure; it has no probe to wait for): at once after
 * it exited 1, or once its crash back-off (CrashLoopBackOff, its exit already recorded) is over.
 */
function restarted(pod: SimObject, now: number): SimObject {
  const next = clone(pod);
  const first = recs(rec(next.status).containerStatuses)[0];
  if (!first) return next;
  const at = iso(now);
  const running = rec(rec(first.state).running);
  const exited = running.startedAt === undefined ? {} : {
    lastState: exitedWithError(first, running.startedAt, at),
  };
  Object.assign(first, { ...exited, restartCount: Number(first.restartCount ?? 0) + 1, ready: true, started: true, state: { running: { startedAt: at } } });
  setReadiness(rec(next.status), true, at);
  return next;
}
