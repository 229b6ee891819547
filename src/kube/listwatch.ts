// Our own list/watch loop (STYLE §12): paged list streamed to the handler, watch with bookmarks and randomised
// timeouts, 410 → relist, back-off on errors, resume from a resourceVersion, never stops until aborted.
import type { Logger } from 'pino';
import { Backoff, type BackoffOptions } from '../lib/backoff.js';
import { systemClock, type Clock } from '../lib/lifecycle.js';
import { KubeApiError, MAX_RESPONSE_BYTES, type KubeClient, type SizedWatchEvent } from './client.js';
import type { KubeList, KubeObject } from './types.js';
import { compareMemberRv } from '../storage/resource-version.js';

/**
 * Why a list runs: the first one; the watch's resourceVersion expired (410); a list that failed, started again; the
 * member's resourceVersions went back behind the one to resume from (`rewound`: see memberRewound).
 */
export type ListReason = 'initial' | 'expired' | 'restart' | 'rewound';

/** What the loop drives. Every method is awaited: a slow handler slows the socket, never buffers without bound. */
export interface ListWatchHandler {
  /** A (re)list begins: every page until listEnd is one consistent snapshot. */
  listStart(reason: ListReason): Promise<void>;
  /**
   * One page of the list (items as the server sent them: no kind/apiVersion); `bytes` is the page's JSON size. The
   * array is the handler's to consume: it may take items out as it goes, so what it has handled can be collected.
   */
  listPage(items: KubeObject[], bytes: number): Promise<void>;
  /** The list is complete at `resourceVersion`: keys not seen since listStart have vanished. */
  listEnd(resourceVersion: string): Promise<void>;
  /** One watch event; `bytes` is its JSON size. */
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject, bytes: number): Promise<void>;
  /** The server's progress marker: nothing older than this is pending. */
  bookmark(resourceVersion: string): Promise<void>;
  /** The watch is established (resource status: Syncing). */
  watching(): void;
  /** A failure the loop will retry by itself (resource status: Error). */
  failed(err: KubeApiError, phase: 'list' | 'watch'): void;
  /**
   * The member refused the field selector (400 BadRequest: an aggregated API whose storage takes none). True when the
   * handler drops what the selector would have left out itself: the loop then goes on without it.
   */
  selectorRefused?(err: KubeApiError): boolean;
}

/**
 * Limits how many lists run at once across many loops. A list holds a parsed page in memory while its items are
 * handed over; hundreds of loops listing together would hold hundreds of pages. Watches need no permit.
 */
export interface ListGate {
  /** Resolves with the release function once a list may run; rejects if `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
}

export interface ListWatchOptions {
  client: KubeClient;
  /** Collection path, all namespaces: /api/v1/pods, /apis/apps/v1/deployments. */
  path: string;
  /** Page size of lists (limit). 0 = unpaged. */
  pageSize: number;
  /**
   * The largest list page read (bytes; MAX_RESPONSE_BYTES by default). A larger one is dropped unread and asked
   * again at a quarter of the limit, until it fits; the limit grows back on pages far below it.
   */
  maxPageBytes?: number;
  /** Watch timeoutSeconds is drawn uniformly from this range, so many watches do not reconnect in lockstep. */
  watchTimeoutSeconds: readonly [number, number];
  /** Shared limit on concurrent lists; none when absent. */
  listGate?: ListGate;
  /** Start by watching from this resourceVersion instead of listing (resume after restart). */
  resumeResourceVersion?: string;
  /** Sent with every list and watch: only the objects it selects are listed and watched. */
  fieldSelector?: string;
  handler: ListWatchHandler;
  logger: Logger;
  backoff?: BackoffOptions;
  clock?: Clock;
  random?: () => number;
}

/** Outcome when the loop stops (only on abort): the last resourceVersion fully handed to the handler. */
export interface ListWatchResult {
  resourceVersion: string | undefined;
}

/**
 * Runs until `signal` aborts. Never gives up: every failure is retried with back-off; 410 relists;
 * a watch that ends normally is re-opened from the last resourceVersion (no relist).
 */
export async function runListWatch(o: ListWatchOptions, signal: AbortSignal): Promise<ListWatchResult> {
  const clock = o.clock ?? systemClock;
  const random = o.random ?? Math.random;
  const backoff = new Backoff(o.backoff ?? { initialMs: 500, maxMs: 30_000, random });
  let rv = o.resumeResourceVersion;
  let reason: ListReason = 'initial';
  // A resourceVersion this run did not get from the member's own answers (one stored before a restart, or one kept
  // across a failure that may have been the member going away) is checked before watching from it.
  let unverified = rv !== undefined;
  // Without the field selector once the member refused it and the handler filters in its place.
  let run = o;

  while (!signal.aborted) {
    try {
      if (rv === undefined) {
        rv = await list(run, reason, signal);
        unverified = false;
        if (rv === undefined) break; // aborted mid-list
      }
      if (unverified) {
        const current = await memberRewound(run, rv, signal);
        unverified = false;
        if (current !== undefined) {
          o.logger.warn({ resourceVersion: rv, memberResourceVersion: current },
            'the member is behind the resourceVersion to resume from (restored from a backup, or a new cluster at its address?); relisting');
          rv = undefined;
          reason = 'rewound';
          continue;
        }
      }
      const started = clock.now();
      let progressed = false;
      const outcome = await watchOnce(run, rv, random, signal, (next) => {
        rv = next;
        progressed = true;
        backoff.reset();
      });
      if (outcome === 'ended' && !progressed && clock.now() - started < 1000 && !signal.aborted) {
        // A server that closes watches at once would otherwise be hammered in a tight loop.
        await clock.sleep(backoff.next(), signal);
      }
      if (outcome === 'expired') {
        o.logger.info({ resourceVersion: rv }, 'watch resourceVersion expired; relisting');
        rv = undefined;
        reason = 'expired';
      }
    } catch (e: unknown) {
      if (signal.aborted) break;
      const err = e instanceof KubeApiError ? e : new KubeApiError(String(e instanceof Error ? e.message : e), 0, 'Unknown', true, { cause: e });
      if (err.expired) {
        // A continue token or list RV too old: start the list again; a watch RV too old: relist.
        rv = undefined;
        reason = 'expired';
        continue;
      }
      o.handler.failed(err, rv === undefined ? 'list' : 'watch');
      unverified = rv !== undefined;
      if (run.fieldSelector && err.status === 400 && o.handler.selectorRefused?.(err)) {
        o.logger.warn({ err: err.message, fieldSelector: run.fieldSelector },
          'the member refused the field selector; listing and watching without it, what it selected kept here');
        run = { ...o, fieldSelector: undefined };
        continue;
      }
      const delay = Math.max(backoff.next(), (err.retryAfterSeconds ?? 0) * 1000);
      o.logger.warn({ err: err.message, status: err.status, delayMs: delay }, 'list/watch failed; retrying');
      // A relist after the member went back must still start by forgetting what storage holds of it.
      if (rv === undefined && reason !== 'rewound') reason = 'restart';
      await clock.sleep(delay, signal);
    }
  }
  return { resourceVersion: rv };
}

/**
 * The member's current resourceVersion when it is behind `rv`, else undefined. A kube-apiserver asked to watch from a
 * resourceVersion it has not reached waits in silence until it gets there (its watch cache drops everything older),
 * so a member restored from an etcd backup, or a new cluster at the same address, would never be heard from again.
 * One list of one object (a consistent read) says where the member is. Only decimal resourceVersions are compared
 * (compareMemberRv, the order storage's guards use), as etcd's are; any other form passes.
 */
async function memberRewound(o: ListWatchOptions, rv: string, signal: AbortSignal): Promise<string | undefined> {
  // A resourceVersion that cannot be ordered (not decimal) cannot be found behind: nothing to ask.
  if (compareMemberRv(rv, '0') === 'unordered') return undefined;
  let value: KubeList<unknown>;
  try {
    ({ value } = await o.client.jsonSized<KubeList<unknown>>(o.path, { query: { limit: 1, fieldSelector: o.fieldSelector }, signal, maxBytes: o.maxPageBytes ?? MAX_RESPONSE_BYTES }));
  } catch (e: unknown) {
    // A server that ignores limit (some aggregated APIs) and answers more than a page: it cannot tell; watch as before.
    if (e instanceof KubeApiError && e.reason === 'ResponseTooLarge' && !signal.aborted) return undefined;
    throw e;
  }
  const current = value.metadata?.resourceVersion;
  return current !== undefined && compareMemberRv(current, rv) === 'older' ? current : undefined;
}

/** Lists page by page into the handler. Returns the list's resourceVersion, or undefined when aborted. */
async function list(o: ListWatchOptions, reason: ListReason, signal: AbortSignal): Promise<string | undefined> {
  const release = o.listGate ? await o.listGate.acquire(signal) : undefined;
  try {
    return await listPages(o, reason, signal);
  } finally {
    release?.();
  }
}

async function listPages(o: ListWatchOptions, reason: ListReason, signal: AbortSignal): Promise<string | undefined> {
  await o.handler.listStart(reason);
  for await (const { page, bytes } of pagesOf<KubeObject>(o.client, o.path, { pageSize: o.pageSize, maxPageBytes: o.maxPageBytes, fieldSelector: o.fieldSelector, logger: o.logger, signal })) {
    await o.handler.listPage(page.items ?? [], bytes);
    if (!page.metadata?.continue) {
      const rv = page.metadata?.resourceVersion;
      if (!rv) throw new KubeApiError(`list ${o.path} returned no resourceVersion`, 200, 'InvalidResponse', true);
      await o.handler.listEnd(rv);
      return rv;
    }
  }
  return undefined;
}

export interface PagesOptions {
  /** limit; 0 asks for everything at once. */
  pageSize: number;
  /** The largest page read (bytes; MAX_RESPONSE_BYTES by default). */
  maxPageBytes?: number;
  /** Accept header (e.g. metadata only); JSON by default. */
  accept?: string;
  fieldSelector?: string;
  logger?: Logger;
  signal: AbortSignal;
}

/**
 * The pages of one list, each read whole but within `maxPageBytes`. Pages of large objects (Helm release Secrets,
 * CRDs with big schemas) can make a page at the configured limit hundreds of megabytes: one too large is dropped
 * unread and asked again at a quarter of the limit, until it fits (a continue token is valid with any limit), and
 * the limit grows back on pages far below the bound. The consumer handles a page before the next is read; an
 * abort throws, so a list cut short never looks complete.
 */
export async function* pagesOf<T>(client: KubeClient, path: string, o: PagesOptions): AsyncGenerator<{ page: KubeList<T>; bytes: number }> {
  const maxBytes = o.maxPageBytes ?? MAX_RESPONSE_BYTES;
  let limit = o.pageSize;
  let cont: string | undefined;
  for (;;) {
    o.signal.throwIfAborted();
    let got: { value: KubeList<T>; bytes: number };
    try {
      got = await client.jsonSized<KubeList<T>>(path, { query: { limit: limit > 0 ? limit : undefined, continue: cont, fieldSelector: o.fieldSelector }, accept: o.accept, signal: o.signal, maxBytes });
    } catch (e: unknown) {
      if (!(e instanceof KubeApiError) || e.reason !== 'ResponseTooLarge' || o.signal.aborted) throw e;
      if (limit === 1) {
        throw new KubeApiError(`list ${path}: one object is larger than ${maxBytes} bytes, or the server does not page (limit=1)`, 200, 'ResponseTooLarge', true, { cause: e });
      }
      limit = limit > 0 ? Math.max(1, Math.floor(limit / 4)) : UNPAGED_FALLBACK_LIMIT;
      o.logger?.info({ path, limit, maxBytes }, 'list page too large; asking for smaller pages');
      continue;
    }
    // Far below the bound: back towards the configured size (objects differ in size across a list).
    if (limit > 0 && limit < o.pageSize && got.bytes < maxBytes / 8) limit = Math.min(o.pageSize, limit * 2);
    yield { page: got.value, bytes: got.bytes };
    cont = got.value.metadata?.continue || undefined;
    if (!cont) return;
  }
}

/** The first limit asked of an unpaged list (pageSize 0) whose answer was too large. */
const UNPAGED_FALLBACK_LIMIT = 100;

type WatchOutcome = 'ended' | 'expired';

async function watchOnce(
  o: ListWatchOptions, fromRv: string, random: () => number, signal: AbortSignal, advanced: (rv: string) => void,
): Promise<WatchOutcome> {
  const [lo, hi] = o.watchTimeoutSeconds;
  const timeoutSeconds = Math.round(lo + random() * Math.max(0, hi - lo));
  let announced = false;
  const announce = (): void => {
    if (announced) return;
    announced = true;
    o.handler.watching();
  };
  const events = o.client.watch(o.path, { resourceVersion: fromRv, allowWatchBookmarks: true, timeoutSeconds, fieldSelector: o.fieldSelector }, signal,
    // The server sends bookmarks about every minute; a silent stream longer than the timeout plus slack is dead.
    (timeoutSeconds + 90) * 1000, announce);
  try {
    for await (const ev of events) {
      if (await take(o, ev, advanced) === 'expired') return 'expired';
    }
  } catch (e: unknown) {
    // The member closed the watch's HTTP/2 connection gracefully (GOAWAY), which it would have served to its end:
    // an end like a timeout's, watched again from the last resourceVersion, not a failure (src/kube/client-errors.ts).
    if (e instanceof KubeApiError && e.goAway && !signal.aborted) {
      o.logger.debug({ resourceVersion: fromRv }, 'watch connection closed by the member (GOAWAY); watching again');
      return 'ended';
    }
    throw e;
  }
  return 'ended';
}

/** One watch event into the handler; 'expired' for a 410 ERROR event. */
async function take(o: ListWatchOptions, ev: SizedWatchEvent, advanced: (rv: string) => void): Promise<'expired' | undefined> {
  const rv = ev.object?.metadata?.resourceVersion;
  switch (ev.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      await o.handler.event(ev.type, ev.object, ev.bytes);
      if (rv) advanced(rv);
      break;
    case 'BOOKMARK':
      if (rv) {
        await o.handler.bookmark(rv);
        advanced(rv);
      }
      break;
    case 'ERROR': {
      const st = ev.object as { code?: number; reason?: string; message?: string };
      if (st.code === 410 || st.reason === 'Expired' || st.reason === 'Gone') return 'expired';
      throw new KubeApiError(`watch ${o.path}: ${st.code ?? ''} ${st.reason ?? ''}: ${st.message ?? ''}`, st.code ?? 500, st.reason ?? 'WatchError', true);
    }
    default:
      break;
  }
  return undefined;
}
