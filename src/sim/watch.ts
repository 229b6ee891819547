// WATCH: newline-delimited events from a revision, selector transitions, bookmarks, timeouts, 410 ERROR events, initial events.
import type { ServerResponse } from 'node:http';
import { checkFieldSelector } from './field-selector.js';
import type { ListOptions } from './list-options.js';
import { matches } from './list.js';
import { errors, statusBody } from './status.js';
import type { SimStore } from './store.js';
import { toTable, type IncludeObject } from './table.js';
import { apiVersionOf, type ChangeEvent, type ResourceDef, type SimObject } from './types.js';
import { wireObject } from './wire.js';

export interface WatchRequest {
  store: SimStore;
  def: ResourceDef;
  gr: string;
  version: string;
  namespace: string | undefined;
  opts: ListOptions;
  asTable: boolean;
  /** What a Table event's row carries (`includeObject`). */
  include: IncludeObject;
  bookmarkIntervalMs: number;
  /** Live changes held for a client that stops reading before its watch is closed (SimClusterOptions.watchBufferEvents). */
  bufferEvents: number;
  res: ServerResponse;
  registry: WatchRegistry;
}

interface ActiveWatch {
  gr: string;
  close(abort: boolean): void;
}

/** Every open watch of a cluster, so faults can drop them and a removed CRD can end its watches. */
export class WatchRegistry {
  private readonly active = new Set<ActiveWatch>();
  /** Watches closed because their client stopped reading while changes kept coming. */
  unresponsiveClosed = 0;

  get size(): number {
    return this.active.size;
  }

  add(w: ActiveWatch): void {
    this.active.add(w);
  }

  remove(w: ActiveWatch): void {
    this.active.delete(w);
  }

  /** Ends every watch: cleanly (the stream ends, as when kube-apiserver closes a watch) or by destroying the socket. */
  dropAll(abort = false): number {
    const all = [...this.active];
    for (const w of all) w.close(abort);
    return all.length;
  }

  closeResource(gr: string): void {
    for (const w of [...this.active]) if (w.gr === gr) w.close(false);
  }
}

/** How long a watch's buffer may stay full before the watch is closed (kube's dispatch waits up to ~100 ms). */
export const UNRESPONSIVE_AFTER_MS = 1_000;

/** Starts streaming; validation errors are thrown before any header is written so they become a plain Status. */
export function serveWatch(w: WatchRequest): void {
  const { store, def, opts, res } = w;
  checkFieldSelector(def, opts.fieldSelector);
  const current = store.revision;
  const rv = opts.resourceVersion === '' ? undefined : Number(opts.resourceVersion);
  if (rv !== undefined && rv > current && opts.sendInitialEvents !== undefined) throw errors.tooLargeResourceVersion(rv, current);
  const initial = opts.sendInitialEvents === true || (opts.sendInitialEvents === undefined && (rv === undefined || rv === 0));
  const startRev = initial || rv === undefined || rv === 0 ? current : rv;
  const prefix = def.namespaced && w.namespace ? `${w.namespace}/` : '';

  // HTTP/2 has no chunked encoding (and refuses the header): its frames carry the stream.
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', ...(res.req.httpVersionMajor >= 2 ? {} : { 'transfer-encoding': 'chunked' }) });
  // client-node waits for the headers before it reports the watch as started (toolchain §4).
  res.flushHeaders();

  // As kube-apiserver: a Table watch sends the column definitions with its first object event only.
  let columnsSent = false;
  const wire = (o: SimObject): unknown => wireObject(o, def, w.version, false);
  // The response is backed up (write returned false) until 'drain': live changes then wait in `held`.
  let backedUp = false;
  const send = (type: string, obj: SimObject | Record<string, unknown>, raw = false): void => {
    let object: unknown = obj;
    if (!raw && w.asTable) {
      const rv = (obj as SimObject).metadata.resourceVersion;
      object = toTable(def, [obj as SimObject], { resourceVersion: rv }, Date.now(), { withColumns: !columnsSent, include: w.include, wire });
      columnsSent = true;
    } else if (!raw) object = wire(obj as SimObject);
    if (!res.write(`${JSON.stringify({ type, object })}\n`)) backedUp = true;
  };

  if (!initial && startRev < store.window.compactedRev) {
    send('ERROR', statusBody(410, 'Expired', `too old resource version: ${startRev} (${store.window.compactedRev})`) as unknown as Record<string, unknown>, true);
    res.end();
    return;
  }

  const inScope = (o: SimObject): boolean => !prefix || (o.metadata.namespace ?? '') === w.namespace;
  const passes = (o: SimObject | null): boolean => o !== null && inScope(o) && matches(def, opts, o);
  /** What a change means to this watch, if anything. */
  const outgoing = (ev: ChangeEvent): [string, SimObject] | undefined => {
    if (ev.gr !== w.gr) return undefined;
    const was = passes(ev.prev);
    const is = ev.type !== 'DELETED' && passes(ev.object);
    if (ev.type === 'DELETED') return was || passes(ev.object) ? ['DELETED', ev.object] : undefined;
    if (is) return [was ? 'MODIFIED' : 'ADDED', ev.object];
    // Stopped matching: kube sends DELETED carrying the previous object at the event's revision.
    if (was && ev.prev) return ['DELETED', { ...ev.prev, metadata: { ...ev.prev.metadata, resourceVersion: String(ev.rev) } }];
    return undefined;
  };
  const deliver = (ev: ChangeEvent): void => {
    const out = outgoing(ev);
    if (out) send(...out);
  };

  const table = store.table(w.gr);
  // What this watch has covered: initial events are the state at the current revision; a replay goes as far as the
  // store has delivered (held changes come later, through the listener, never twice).
  let covered: number;
  if (initial && table) {
    for (const [, o] of table.entries('', prefix)) if (matches(def, opts, o)) send('ADDED', o);
    covered = current;
  } else {
    const upTo = store.deliveredRevision;
    for (const ev of store.window.since(startRev)) if (ev.rev <= upTo) deliver(ev);
    covered = Math.max(startRev, upTo);
  }
  // Live changes for this watch that wait for the client to read (kube's cacheWatcher input buffer).
  const held: [string, SimObject][] = [];
  const bookmark = (initialEnd: boolean): void => {
    // Best effort, as kube's: none while changes wait, as it would claim a revision they have not reached.
    if (held.length > 0) return;
    const metadata: Record<string, unknown> = { resourceVersion: String(Math.max(covered, store.deliveredRevision)) };
    if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    send('BOOKMARK', { kind: def.kind, apiVersion: apiVersionOf(def.group, w.version), metadata }, true);
  };
  if (opts.sendInitialEvents === true) bookmark(true);

  // As kube's cacher: a watch whose client stops reading while its changes keep coming is closed once its buffer is
  // full ("Forcing watcher close due to unresponsiveness"); what it held is dropped, and the client watches again from
  // the last event it got. kube waits a little for a full buffer to make room; so does this, UNRESPONSIVE_AFTER_MS,
  // which also spares a client that reads but met a burst the simulator made in one go (a loop of creates).
  let overflowing: NodeJS.Timeout | undefined;
  const unsubscribe = store.onChange((ev) => {
    if (ev.rev <= covered) return;
    const out = outgoing(ev);
    if (!out) return;
    if (!backedUp && held.length === 0) return send(...out);
    held.push(out);
    if (held.length > w.bufferEvents && !overflowing) {
      overflowing = setTimeout(() => {
        overflowing = undefined;
        if (held.length <= w.bufferEvents) return;
        w.registry.unresponsiveClosed++;
        active.close(false);
      }, UNRESPONSIVE_AFTER_MS);
    }
  });
  res.on('drain', () => {
    backedUp = false;
    while (held.length > 0 && !backedUp) send(...held.shift()!);
  });
  const timers: NodeJS.Timeout[] = [];
  const active: ActiveWatch = {
    gr: w.gr,
    close: (abort) => {
      cleanup();
      held.length = 0;
      if (abort) res.destroy();
      else res.end();
    },
  };
  const cleanup = (): void => {
    unsubscribe();
    clearTimeout(overflowing);
    for (const t of timers) clearTimeout(t);
    w.registry.remove(active);
  };
  w.registry.add(active);
  if (opts.allowWatchBookmarks && w.bookmarkIntervalMs > 0) timers.push(setInterval(() => bookmark(false), w.bookmarkIntervalMs));
  if (opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0) {
    timers.push(setTimeout(() => active.close(false), opts.timeoutSeconds * 1000));
    // kube-apiserver's watch cache also sends a bookmark 2 s before a watch's deadline, whatever its interval.
    if (opts.allowWatchBookmarks && opts.timeoutSeconds > 2) timers.push(setTimeout(() => bookmark(false), opts.timeoutSeconds * 1000 - 2000));
  }
  res.on('close', cleanup);
}
