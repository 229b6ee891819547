// Serves one watch: initial state or catch-up from a revision, then live changes from the feed, with bookmarks,
// timeouts, a bounded buffer (a client that stops reading is dropped) and 410 Expired when the revision is too old.
import type { ServerResponse } from 'node:http';
import type { Change, KeyFilter, ListPage, StorageReader, StoredRow, WatchFilter } from '../../storage/types.js';
import { status as makeStatus } from '../../kube/status.js';
import type { ChangeFeed, FeedSubscriber } from './change-feed.js';
import { KeyHashSet } from '../../lib/key-hash-set.js';
import { StreamWriter } from './stream-writer.js';
import { aheadOfStoreMessage } from './read-revision.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Turns one event into its wire line (JSON text of the event object, without newline). */
export interface EventEncoder {
  event(type: EventType, row: StoredRow, revision: string): string;
  bookmark(revision: string, annotations?: Record<string, string>): string;
}

export interface WatchParams {
  storage: StorageReader;
  feed: ChangeFeed;
  filter: WatchFilter;
  /** JS evaluation of the same filter for live changes (identical semantics to storage). */
  matches: (row: StoredRow) => boolean;
  /** undefined or '0': send the current state first. Otherwise: changes after this revision. */
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  timeoutMs: number;
  /**
   * Deadline of the initial events (--request-timeout; 0 = none): they hold a storage cursor, i.e. one of a few
   * pooled connections, for as long as the client takes to read them.
   */
  initialTimeoutMs: number;
  bookmarkIntervalMs: number;
  bufferBytes: number;
  /** Lists the current state for the initial events. */
  initial: () => Promise<ListPage>;
  /**
   * For a filter an object can enter or leave (label and field selectors): the keys of the rows matching it and the
   * revision they hold for — `from` where that can be known (selector-history.ts), else the revision they were read
   * at — or undefined when there are more than the watch may hold. The watch then tells the client, as kube-apiserver
   * does, when an object starts matching (ADDED) and stops matching (DELETED).
   */
  matchingKeys?: (from: string) => Promise<{ keys: KeyHashSet; revision: string } | undefined>;
  /** What this server's watches remember together (Membership). */
  members: MemberBudget;
  encoder: EventEncoder;
  contentType: string;
}

class Subscriber implements FeedSubscriber {
  queue: Change[] = [];
  bytes = 0;
  head = '0';
  /** Why the feed ended this watch (a 410 for the client), once it has. */
  expired: string | undefined;
  overflow = false;
  notify: (() => void) | undefined;
  /**
   * `onOverflow` runs from the feed, not from the watch loop: a client that stopped reading leaves that loop
   * parked on the socket's 'drain', so only the feed side can notice the backlog and cut the connection.
   */
  constructor(private readonly limit: number, private readonly onOverflow: () => void) {}
  push(changes: readonly Change[], head: string): void {
    if (this.overflow) return;
    for (const c of changes) {
      this.queue.push(c);
      this.bytes += c.row.object.length;
    }
    this.head = head;
    if (this.bytes > this.limit) {
      this.overflow = true;
      this.queue = [];
      this.bytes = 0;
      this.onOverflow();
    }
    this.notify?.();
  }
  expire(message: string): void {
    this.expired = message;
    this.notify?.();
  }
}

/**
 * A watch remembers at most this many objects (16–32 bytes each, KeyHashSet) to report those leaving its selector;
 * past it, it judges each change on its own state only.
 */
export const MAX_WATCH_MEMBERS = 1_000_000;
/** How long before a watch's deadline its last bookmark goes out (kube-apiserver's cacher: 2 s). */
export const BOOKMARK_BEFORE_END_MS = 2_000;
/** All watches of a server together remember at most this many objects (32–64 MB). */
export const MAX_MEMBERS_ALL_WATCHES = 2_000_000;

/** What the watches of one server remember together, against MAX_MEMBERS_ALL_WATCHES. */
export class MemberBudget {
  held = 0;
  constructor(readonly limit = MAX_MEMBERS_ALL_WATCHES) {}
}

/**
 * A watch's length in seconds: what the client asked for, else, as kube-apiserver does, a random time in
 * [max/2, max] so that clients spread out.
 */
export function watchTimeoutSeconds(requested: number | undefined, maxTimeoutSeconds: number): number {
  return requested ?? Math.round(maxTimeoutSeconds / 2 + Math.random() * (maxTimeoutSeconds / 2));
}

/** The identity of a row within a watch (which may span several resource types). */
export const rowKey = (r: Pick<StoredRow, 'cluster' | 'group' | 'resource' | 'namespace' | 'name'>): string => `${r.cluster}/${r.group}/${r.resource}/${r.namespace}/${r.name}`;

/** The part of a watch filter that no write changes for an object: what a catch-up judged here reads. */
export function keyFilterOf(f: WatchFilter): KeyFilter {
  const k: WatchFilter = { ...f };
  delete k.labels;
  delete k.fields;
  return k;
}

/**
 * What the client holds, so that a change moving an object into or out of a label or field selector reaches it as
 * ADDED or DELETED, as kube-apiserver's watch cache sends it (it compares the object before and after; the change log
 * keeps no object before, so the watch remembers which ones it has shown). The keys start as the objects the watch
 * listed, or, for a watch from a resourceVersion, those matching then (selector-history.ts) — else, for a selector on a
 * field a write can change, those matching when read, at `exactAfter`. A change at or before that revision is judged on
 * its own state alone, as without the set: one that moved an object out of the selector then is not reported.
 *
 * Keys are remembered by hash (KeyHashSet): two objects taken for one would at worst turn an ADDED into a MODIFIED
 * or send a DELETED for an object the client does not hold, both of which clients take as they would the right event.
 * A watch whose set would pass MAX_WATCH_MEMBERS, or the server's budget, forgets it and from then on judges each
 * change on its own state.
 */
export class Membership {
  private keys: KeyHashSet | undefined;

  private constructor(keys: KeyHashSet, private readonly exactAfter: bigint, private readonly budget: MemberBudget) {
    this.keys = keys;
  }

  /** A membership holding `keys`, or undefined when the budget cannot take them. */
  static take(keys: KeyHashSet, exactAfter: bigint, budget: MemberBudget): Membership | undefined {
    if (keys.size > MAX_WATCH_MEMBERS || budget.held + keys.size > budget.limit) return undefined;
    budget.held += keys.size;
    return new Membership(keys, exactAfter, budget);
  }

  /** Still remembering (not given up for the size or the budget). */
  get active(): boolean {
    return this.keys !== undefined;
  }

  /** The event to send for a change (undefined: none), given whether its row matches the filter; keeps the set. */
  event(c: Change, matches: boolean): EventType | undefined {
    if (!this.keys) return matches ? c.type : undefined;
    const key = rowKey(c.row);
    const known = this.keys.has(key);
    if (c.type === 'DELETED') {
      this.remove(key);
      return known || matches ? 'DELETED' : undefined;
    }
    if (BigInt(c.revision) <= this.exactAfter) {
      if (!matches) return undefined;
      this.add(key);
      return c.type;
    }
    if (matches) {
      this.add(key);
      return known ? 'MODIFIED' : 'ADDED';
    }
    if (!known) return undefined;
    this.remove(key);
    return 'DELETED';
  }

  /** An event the watch sent without asking (initial state, catch-up filtered in storage). */
  sent(type: EventType, row: StoredRow): void {
    if (type === 'DELETED') this.remove(rowKey(row));
    else this.add(rowKey(row));
  }

  /** Gives the keys back to the budget (the watch ended). */
  release(): void {
    if (!this.keys) return;
    this.budget.held -= this.keys.size;
    this.keys = undefined;
  }

  private add(key: string): void {
    if (!this.keys?.add(key)) return;
    this.budget.held++;
    if (this.keys.size > MAX_WATCH_MEMBERS || this.budget.held > this.budget.limit) this.release();
  }

  private remove(key: string): void {
    if (this.keys?.delete(key)) this.budget.held--;
  }
}

/** Longest delay setTimeout honours; a longer one fires after 1 ms, which would spin the loop of a watch asked to last years. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Time past its deadline a watch has to flush its last bytes before a client that is not reading is cut. */
export const END_GRACE_MS = 5_000;

/**
 * Destroys `res` after `ms` (unref'd: it only ever acts on an open connection, which keeps the process alive by
 * itself). None past setTimeout's range: a watch asked to last years is not cut at once.
 */
export function cutAfterMs(res: ServerResponse, ms: number): NodeJS.Timeout | undefined {
  return ms <= MAX_TIMER_MS ? setTimeout(() => res.destroy(), Math.max(0, ms)).unref() : undefined;
}

/** Why a watch from `from` cannot go on: the revision left the change log, or storage went back past it. */
function expiredMessage(from: string, r: { oldestRevision: string; lost?: true }): string {
  return r.lost
    ? `resource version ${from} is not one this storage holds (it went back past it: a restore, a failover, a database crash that lost its last commits): list again`
    : `too old resource version: ${from} (${r.oldestRevision})`;
}

export async function serveWatch(res: ServerResponse, signal: AbortSignal, p: WatchParams): Promise<void> {
  // The feed must know its head before we subscribe, or changes between our start revision and its head are lost.
  await p.feed.ready;
  // The client will re-watch from its last revision; we keep our memory bounded.
  const sub = new Subscriber(p.bufferBytes, () => res.destroy());
  const { head: feedHead, unsubscribe } = p.feed.subscribe(sub);
  const rv = p.resourceVersion;
  const listsFirst = rv === undefined || rv === '' || rv === '0' || p.sendInitialEvents === true;
  // What matches, read before the response starts: a change made once the client sees its watch open (a test, a
  // controller that watches, then acts) is then judged against it, however slow the read; read after, it would have
  // raced with that change and an object leaving the selector would not have been reported.
  let matching: { keys: KeyHashSet; revision: string } | undefined;
  try {
    matching = listsFirst ? undefined : await p.matchingKeys?.(rv);
  } catch (e: unknown) {
    unsubscribe();
    throw e;
  }
  res.writeHead(200, { 'content-type': p.contentType, 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  const out = new StreamWriter(res, { chunkBytes: 16 * 1024 });
  const line = async (s: string): Promise<void> => {
    await out.write(`${s}\n`);
  };
  let sent = 0n;
  const deadline = Date.now() + p.timeoutMs;
  // A client that stops reading parks this function on 'drain', where neither the deadline nor the signal is looked
  // at (and the feed's overflow check sees only live changes). Cut such a connection: the initial events by
  // --request-timeout, the whole watch at its deadline plus a grace. The client re-watches from its last revision.
  let cut: NodeJS.Timeout | undefined;
  const cutAfter = (ms: number): void => {
    clearTimeout(cut);
    // A watch left pending at shutdown (waiting for a storage connection that will not come) must not hold the exit.
    cut = cutAfterMs(res, ms);
  };
  cutAfter(Math.min(p.initialTimeoutMs > 0 ? p.initialTimeoutMs : Infinity, p.timeoutMs + END_GRACE_MS));
  let members: Membership | undefined;
  try {
    // 1. Initial state or catch-up, up to the feed head at subscription time.
    let from: string;
    // Ahead of the feed is normal for a moment (another replica listed at a revision this one's feed has not polled
    // yet); ahead of storage itself, the revision was never issued by this store: it was reset (an emptyDir SQLite
    // file, a new database) or restored from a backup. Waiting would keep the client's cache silently stale until the
    // revisions caught up, so it is told to list again, as for a revision too old. The initial events of a watch-list
    // from such a revision would be older than it asked for, too.
    if (rv !== undefined && rv !== '' && rv !== '0' && BigInt(rv) > BigInt(feedHead)) {
      const current = await p.storage.currentRevision();
      if (BigInt(rv) > BigInt(current)) {
        await line(JSON.stringify({ type: 'ERROR', object: makeStatus(410, 'Expired', aheadOfStoreMessage(rv, current)) }));
        return;
      }
      // Between the feed's head and storage's: issued since the feed last looked, or issued and then lost when storage
      // went back, before the revision moved up past it again (the catch-up below, which would tell, does not run).
      const r = await p.storage.changesSince(rv, p.filter, 1);
      if (r.expired) {
        await line(JSON.stringify({ type: 'ERROR', object: makeStatus(410, 'Expired', expiredMessage(rv, r)) }));
        return;
      }
    }
    if (listsFirst) {
      const page = await p.initial();
      let shown = p.matchingKeys ? new KeyHashSet() : undefined;
      for await (const row of page.rows) {
        if (signal.aborted) return;
        shown?.add(rowKey(row));
        if (shown && shown.size > MAX_WATCH_MEMBERS) shown = undefined;
        await line(p.encoder.event('ADDED', row, row.revision));
      }
      from = page.revision;
      if (shown) members = Membership.take(shown, BigInt(from), p.members);
      if (p.sendInitialEvents) await line(p.encoder.bookmark(from, { 'k8s.io/initial-events-end': 'true' }));
    } else {
      from = rv;
      if (matching) members = Membership.take(matching.keys, BigInt(matching.revision), p.members);
    }
    // What the client holds is known as at `from` (listed then, or matching then): the catch-up reads every change in
    // scope and judges each against it, so an object that left the selector since is DELETED, one that entered ADDED.
    // Otherwise storage filters the catch-up, and each change is judged on its new state alone.
    const judged = members !== undefined && (listsFirst || matching?.revision === from);
    const catchUpFilter = judged ? keyFilterOf(p.filter) : p.filter;
    sent = BigInt(from);
    while (sent < BigInt(feedHead)) {
      const r = await p.storage.changesSince(sent.toString(), catchUpFilter, 500);
      if (r.expired) {
        await line(JSON.stringify({ type: 'ERROR', object: makeStatus(410, 'Expired', expiredMessage(from, r)) }));
        return;
      }
      for (const c of r.changes) {
        if (judged) {
          const type = members?.event(c, p.matches(c.row));
          if (type) await line(p.encoder.event(type, c.row, c.revision));
          continue;
        }
        members?.sent(c.type, c.row);
        await line(p.encoder.event(c.type, c.row, c.revision));
      }
      const next = BigInt(r.revision);
      if (next <= sent) break;
      sent = next;
    }
    await out.flush();
    cutAfter(deadline - Date.now() + END_GRACE_MS);

    // 2. Live changes from the feed.
    // Every interval, and, as kube-apiserver's watch cache does, once shortly before the watch's deadline: a client
    // that re-watches when it ends (an informer, every few minutes) resumes from its end, not from up to an interval
    // before, so a selector watch's catch-up (judged on each object's new state) is as short as the reconnect.
    const bookmarkAfter = (now: number): number => {
      const heartbeat = now + p.bookmarkIntervalMs;
      const beforeEnd = deadline - BOOKMARK_BEFORE_END_MS;
      return beforeEnd > now && beforeEnd < heartbeat ? beforeEnd : heartbeat;
    };
    let nextBookmark = bookmarkAfter(Date.now());
    while (!signal.aborted && Date.now() < deadline) {
      if (sub.expired !== undefined) {
        await line(JSON.stringify({ type: 'ERROR', object: makeStatus(410, 'Expired', sub.expired) }));
        return;
      }
      if (sub.overflow) return;
      const batch = sub.queue;
      sub.queue = [];
      sub.bytes = 0;
      for (const c of batch) {
        const rev = BigInt(c.revision);
        if (rev <= sent) continue;
        const type = members ? members.event(c, p.matches(c.row)) : p.matches(c.row) ? c.type : undefined;
        if (type) await line(p.encoder.event(type, c.row, c.revision));
        sent = rev;
      }
      if (p.allowBookmarks && Date.now() >= nextBookmark) {
        // The feed's head only once every change it brought is sent: changes pushed while this loop waited on a slow
        // client are still queued, and a client resuming from a bookmark past them would never see them.
        const h = sub.queue.length === 0 ? BigInt(sub.head) : sent;
        await line(p.encoder.bookmark((h > sent ? h : sent).toString()));
        nextBookmark = bookmarkAfter(Date.now());
      }
      await out.flush();
      if (sub.queue.length > 0) continue;
      const wait = Math.max(0, Math.min(deadline - Date.now(), p.allowBookmarks ? nextBookmark - Date.now() : deadline - Date.now(), MAX_TIMER_MS));
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, wait);
        const onAbort = (): void => done();
        signal.addEventListener('abort', onAbort, { once: true });
        sub.notify = done;
        function done(): void {
          clearTimeout(t);
          signal.removeEventListener('abort', onAbort);
          sub.notify = undefined;
          resolve();
        }
      });
    }
  } finally {
    members?.release();
    unsubscribe();
    if (!res.destroyed && !res.writableEnded) {
      try {
        await out.end();
      } catch {
        // The client is gone; nothing to finish.
      }
    }
    clearTimeout(cut);
  }
}
