// Leader election over any lock with lease semantics (a Kubernetes Lease, or a row in storage):
// acquire, renew every retry period, give up leadership when renewals fail for the renew deadline or find the lock
// held by another.
import type { Logger } from './log.js';
import { deadline, systemClock, type Clock } from './lifecycle.js';

/** A lock that can be taken or renewed atomically by one holder at a time, expiring after its duration. */
export interface LeaseLock {
  /** A description for logs (e.g. "Lease clusterpedia-system/clusterpedia-synchro"). */
  readonly description: string;
  /** Takes the lock if free or expired, renews it if ours. True when we hold it afterwards. */
  tryAcquireOrRenew(identity: string, leaseDurationMs: number): Promise<boolean>;
  /** Gives the lock up so another candidate need not wait for expiry. */
  release(identity: string): Promise<void>;
}

export interface LeaderElectionOptions {
  lock: LeaseLock;
  identity: string;
  /** How long a lock is valid without renewal (kube default 15 s). */
  leaseDurationMs: number;
  /** A leader that could not renew for this long steps down (kube default 10 s; must be < leaseDuration). */
  renewDeadlineMs: number;
  /** Period of acquisition attempts and renewals (kube default 2 s). */
  retryPeriodMs: number;
  logger: Logger;
  clock?: Clock;
  random?: () => number;
}

/** Leadership was lost while leading: the process must stop writing at once (the caller exits and restarts). */
export class LeadershipLostError extends Error {
  readonly code = 'LeadershipLost';
  constructor(description: string, taken = false) {
    super(taken ? `lost leadership of ${description}: another holder has it` : `lost leadership of ${description}: could not renew it in time`);
  }
}

/**
 * Waits until this candidate leads, then runs `lead(leaderSignal)` while renewing. Returns when `signal` aborts
 * (after releasing the lock). Throws LeadershipLostError when renewals fail for the renew deadline, or at once when
 * one finds the lock held by another (asked twice): `lead` has
 * been aborted and awaited by then, so nothing writes once this throws. A new leader can only acquire after the
 * lease expires, which is later than our deadline: two leaders never write at once.
 */
export async function runLeaderElection(o: LeaderElectionOptions, signal: AbortSignal, lead: (leaderSignal: AbortSignal) => Promise<void>): Promise<void> {
  if (o.renewDeadlineMs >= o.leaseDurationMs) throw new Error('renew deadline must be shorter than the lease duration');
  const clock = o.clock ?? systemClock;
  const random = o.random ?? Math.random;
  const jittered = (): number => Math.round(o.retryPeriodMs * (1 + 0.2 * random()));
  const bounded = <T>(p: Promise<T>, ms: number): Promise<T> => {
    const within = Math.max(1, Math.round(ms));
    return deadline(p, within, () => new Error(`no answer within ${within} ms`), clock);
  };
  // An attempt not answered within `withinMs` failed: a leader whose renewal hung (a connection that died without a
  // word) must still step down by the renew deadline, before its lease expires and another candidate takes it.
  // 'taken': the lock answered that another holder has it.
  const attempt = async (withinMs: number): Promise<'held' | 'taken' | 'failed'> => {
    try {
      return (await bounded(o.lock.tryAcquireOrRenew(o.identity, o.leaseDurationMs), withinMs)) ? 'held' : 'taken';
    } catch (e: unknown) {
      o.logger.warn({ lock: o.lock.description, err: String(e) }, 'leader election attempt failed');
      return 'failed';
    }
  };

  // Candidate.
  let logged = false;
  while (!signal.aborted) {
    if ((await attempt(o.renewDeadlineMs)) === 'held') break;
    if (!logged) {
      o.logger.info({ lock: o.lock.description, identity: o.identity }, 'waiting to become the leader');
      logged = true;
    }
    await clock.sleep(jittered(), signal);
  }
  if (signal.aborted) return;
  o.logger.info({ lock: o.lock.description, identity: o.identity }, 'became the leader');

  // Leader: work under a signal we abort if renewals fail.
  const leader = new AbortController();
  const onAbort = (): void => leader.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let work: Promise<void> | undefined;
  let lost: LeadershipLostError | undefined;
  try {
    let lastRenew = clock.now();
    work = lead(leader.signal).finally(() => leader.abort());
    const stopped = work.then(() => undefined, () => undefined);
    while (!leader.signal.aborted) {
      await Promise.race([clock.sleep(o.retryPeriodMs, leader.signal), stopped]);
      if (leader.signal.aborted) break;
      const left = (): number => o.renewDeadlineMs - (clock.now() - lastRenew);
      let renewal = await attempt(left());
      // Held by another: its holder took it (our renewals failed past its expiry as it saw the clocks, or storage went
      // back in time); asked again at once, so one conflicting write to the lock is not taken for a loss. Staying
      // leader until the deadline would only have our writes refused, or, without fencing, two leaders at once.
      if (renewal === 'taken' && left() > 0) renewal = await attempt(left());
      if (renewal === 'held') lastRenew = clock.now();
      else if (renewal === 'taken' || left() <= 0) {
        lost = new LeadershipLostError(o.lock.description, renewal === 'taken');
        o.logger.error({ lock: o.lock.description, identity: o.identity, reason: renewal === 'taken' ? 'HeldByAnother' : 'RenewDeadline' }, 'lost leadership; stopping');
        leader.abort(lost);
      }
    }
    await work;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!lost) {
      await bounded(o.lock.release(o.identity), o.renewDeadlineMs)
        .catch((e: unknown) => o.logger.warn({ err: String(e) }, 'could not release the leader lock; it will expire'));
    }
  }
  if (lost) throw lost;
}
