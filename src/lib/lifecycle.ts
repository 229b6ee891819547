// Runnables: everything long-running has start(signal) and is awaited by its role through runAll.
import { setMaxListeners } from 'node:events';

/** A long-running part of a role. `start` resolves when the part has stopped after `signal` aborted. */
export interface Runnable {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
}

/**
 * An AbortController whose signal takes any number of abort listeners: one signal that many parts stop on (every
 * runnable, every cluster's synchro) is no leak, but past ten listeners Node 20 warns that it may be one.
 */
export function manyListenersController(): AbortController {
  const ac = new AbortController();
  setMaxListeners(0, ac.signal);
  return ac;
}

/**
 * Starts every runnable and waits for all of them to stop.
 * The first one to fail aborts the others; its error is rethrown once all have stopped.
 * Aborting `signal` stops all of them (the normal shutdown path).
 */
export async function runAll(runnables: readonly Runnable[], signal: AbortSignal): Promise<void> {
  // Every runnable waits on this signal, some in two places at once (a sleep and a queue wait): binding's dozen
  // runnables pass Node's threshold of 10 and printed a "possible memory leak" warning at every start.
  const inner = manyListenersController();
  const onAbort = (): void => inner.abort(signal.reason);
  if (signal.aborted) inner.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });

  let firstError: unknown;
  let failed = false;
  try {
    await Promise.all(
      runnables.map(async (r) => {
        try {
          await r.start(inner.signal);
          if (!inner.signal.aborted) {
            // A runnable that returns on its own while others keep running is a bug in that runnable;
            // treat it as a failure so the role does not run half-alive.
            throw new Error(`${r.name} stopped unexpectedly`);
          }
        } catch (e: unknown) {
          if (!failed) {
            failed = true;
            firstError = e;
          }
          inner.abort(e);
        }
      }),
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (failed && !signal.aborted) throw firstError;
}

/**
 * Runs `fn` under a child of `parent` that may carry any number of abort listeners: parts that hand one signal to
 * many listeners (a synchro per cluster, a request per group version) would otherwise trip Node's leak warning. With
 * `timeoutMs`, the child also aborts after that long, with a TimeoutError as AbortSignal.timeout's. Either way `parent`
 * is let go of when `fn` is done: `AbortSignal.any([parent, AbortSignal.timeout(ms)])` would do the same but, on Node
 * 20, leaves an entry on `parent` per call for as long as `parent` lives (a health probe every few seconds on a
 * cluster's lifetime signal grows the heap by tens of MB a day on a fleet).
 */
export async function withChildSignal<T>(parent: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>, timeoutMs?: number): Promise<T> {
  const inner = manyListenersController();
  const onAbort = (): void => inner.abort(parent?.reason);
  if (parent?.aborted) inner.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => inner.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  try {
    return await fn(inner.signal);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onAbort);
  }
}

/** Resolves when `signal` aborts (immediately if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Sleeps `ms`, waking early (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Injected clock and sleeper, so what waits or times out can be driven by tests (STYLE §13). */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep };

/**
 * The reason an internal timer's controller is aborted with once what it timed has settled: abort() without one builds
 * a DOMException, stack trace and all, a third of a deadline()'s cost; no one reads this reason.
 */
const SETTLED = 'settled';

/**
 * Awaits `p`, calling `slow` with the time waited every `everyMs` while it is pending: a wait that should be short
 * (a loop stopping, a synchro shutting down) says so when it is not, instead of holding things up in silence.
 */
export async function awaitNoting<T>(p: Promise<T>, everyMs: number, slow: (waitedMs: number) => void, clock: Clock = systemClock): Promise<T> {
  const stop = new AbortController();
  const started = clock.now();
  void (async () => {
    for (;;) {
      await clock.sleep(everyMs, stop.signal);
      if (stop.signal.aborted) return;
      slow(clock.now() - started);
    }
  })();
  try {
    return await p;
  } finally {
    stop.abort(SETTLED);
  }
}

/**
 * `p`, or what `expired()` returns thrown once `ms` pass first. `p` runs on, unwatched (a late failure of it is
 * dropped): for a call that may never settle, as one on a database connection that died without a word does — a
 * half-open TCP connection answers nothing until the kernel gives up on it, up to a quarter of an hour.
 */
export async function deadline<T>(p: Promise<T>, ms: number, expired: () => Error, clock: Clock = systemClock): Promise<T> {
  const stop = new AbortController();
  p.catch(() => undefined);
  const timeout = clock.sleep(ms, stop.signal).then(() => {
    if (stop.signal.aborted) return new Promise<never>(() => undefined);
    throw expired();
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    stop.abort(SETTLED);
  }
}
