// What a list's or get's `resourceVersion` asks of the answer's revision, as kube-apiserver reads it (API concepts,
// "The ResourceVersion parameter"), and the checks that hold an answer to it.
//
// This server keeps the newest state only, never a past one. So:
// - "any" (unset or "0") and "not older than N" get the newest state, which is never older than a revision this store
//   issued; a revision ahead of the store itself was never issued by it (its storage was reset or restored since);
// - "exact N" gets the newest state when nothing the list covers changed after N (then it is the state at N), and
//   410 Expired otherwise: kube answers so for a revision its storage no longer holds, and client-go then lists again
//   from the newest. Before, such a list was answered with the newest state, a different one than asked.
import { expired, type StatusError } from '../../kube/status.js';
import type { KeyFilter, ListPage, ListQuery, StorageReader } from '../../storage/types.js';
import type { ChangeFeed } from './change-feed.js';
import { checkedResourceVersion, type ResourceVersionMatch } from './list-options-kube.js';

export type RevisionWanted =
  | { kind: 'newest' }
  | { kind: 'notOlderThan'; rv: bigint }
  | { kind: 'exact'; rv: bigint };

export interface RevisionParams {
  resourceVersion: string | undefined;
  resourceVersionMatch: ResourceVersionMatch | undefined;
  /** The limit the client asked for (not one the server imposed). */
  limit: number | undefined;
  continued: boolean;
}

/**
 * Kube's table for lists: with a match, what it says; without one, "exact" for a first page with a limit (the legacy
 * rule client-go's paged relist relies on) and "not older than" otherwise. "0" and continue pages: the newest.
 */
export function revisionWanted(p: RevisionParams): RevisionWanted {
  const rv = checkedResourceVersion(p.resourceVersion);
  if (rv === undefined || rv === '0' || p.continued) return { kind: 'newest' };
  const n = BigInt(rv);
  if (p.resourceVersionMatch === 'Exact') return { kind: 'exact', rv: n };
  if (p.resourceVersionMatch === 'NotOlderThan') return { kind: 'notOlderThan', rv: n };
  return p.limit !== undefined && p.limit > 0 ? { kind: 'exact', rv: n } : { kind: 'notOlderThan', rv: n };
}

/** A get's: unset the newest, "0" any (ours is the newest), anything else not older than it. */
export function getRevisionWanted(rv: string | undefined): RevisionWanted {
  return revisionWanted({ resourceVersion: rv, resourceVersionMatch: undefined, limit: undefined, continued: false });
}

/** What a revision this store never issued is told, for a list or get (a 410 Status) and a watch (its ERROR event). */
export function aheadOfStoreMessage(rv: bigint | string, current: string): string {
  return `resource version ${rv} is newer than the newest this server holds (${current}): its storage was reset or `
    + 'restored since; list again without resourceVersion';
}

function aheadOfStore(rv: bigint, current: string): StatusError {
  return expired(aheadOfStoreMessage(rv, current));
}

/**
 * Before reading: a revision ahead of the store. Ahead of the change feed only is normal for a moment (another replica
 * answered at a revision this one has not polled yet), so storage is asked then, not before.
 */
export async function checkBeforeRead(wanted: RevisionWanted, feed: ChangeFeed, storage: StorageReader): Promise<void> {
  if (wanted.kind === 'newest' || wanted.rv <= BigInt(feed.headRevision)) return;
  const current = await storage.currentRevision();
  if (wanted.rv > BigInt(current)) throw aheadOfStore(wanted.rv, current);
}

/** What can move an object in or out of a list without changing any of these: labels, fields, owners can. */
function coveredBy(q: ListQuery): KeyFilter {
  const f: KeyFilter = { types: q.types };
  for (const k of ['clusters', 'namespaces', 'names', 'fuzzyNames', 'since', 'before'] as const) {
    if (q[k] !== undefined) Object.assign(f, { [k]: q[k] });
  }
  return f;
}

/**
 * After reading a page at `revision`: for "exact N", whether the list is the state at N, i.e. nothing of the types,
 * clusters, namespaces and names it covers changed in (N, revision]. The change log is read outside the page's
 * snapshot, which is sound: every revision up to the page's is committed, and one compacted away since counts as a
 * change.
 */
export async function checkAfterRead(wanted: RevisionWanted, revision: string, q: ListQuery, storage: StorageReader): Promise<void> {
  if (wanted.kind !== 'exact') return;
  const at = BigInt(revision);
  if (wanted.rv >= at) {
    if (wanted.rv > at) throw aheadOfStore(wanted.rv, revision);
    return;
  }
  const r = await storage.changedBetween(wanted.rv.toString(), revision, coveredBy(q));
  if (r.expired && r.lost) throw expired(`resource version ${wanted.rv} is not one this storage holds (it went back past it: a restore, a failover, a database crash that lost its last commits); list again without resourceVersion`);
  if (r.expired) throw expired(`The resourceVersion for the provided list is too old: ${wanted.rv} (the oldest kept is ${r.oldestRevision}); list again without resourceVersion`);
  if (r.changed) {
    throw expired(`resource version ${wanted.rv} (exact): what this list covers changed since, and this server keeps only the `
      + 'newest state; list again without resourceVersion or with resourceVersionMatch=NotOlderThan');
  }
}

/** checkAfterRead for a page of rows: one that fails it is let go before the error is thrown. */
export async function checkPage(wanted: RevisionWanted, page: ListPage, q: ListQuery, storage: StorageReader): Promise<void> {
  try {
    await checkAfterRead(wanted, page.revision, q, storage);
  } catch (e: unknown) {
    await abandon(page);
    throw e;
  }
}

/** Gives a page that will not be served back its connection: a streamed one holds a snapshot until its rows end. */
async function abandon(page: ListPage): Promise<void> {
  const it = page.rows[Symbol.asyncIterator]();
  try {
    // An iterator never started has no cursor to close, and return() would not run its cleanup: start it first.
    await it.next();
  } finally {
    await it.return?.();
  }
}
