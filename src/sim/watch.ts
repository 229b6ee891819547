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
  const send = (type: string, obj: SimObject | Record<string, unknown>, raw = false): void => {
    let object: unknown = obj;
    if (!raw && w.asTable) {
      const rv = (obj as SimObject).metadata.resourceVersion;
      object = toTable(def, [obj as SimObject], { resourceVersion: rv }, Date.now(), { withColumns: !columnsSent, include: w.include, wire });
      columnsSent = true;
    } else if (!raw) object = wire(obj as SimObject);
    res.write(`${JSON.stringify({ type, object })}\n`);
  };

  if (!initial && startRev < store.window.compactedRev) {
    send('ERROR', statusBody(410, 'Expired', `too old resource version: ${startRev} (${store.window.compactedRev})`) as unknown as Record<string, unknown>, true);
    res.end();
    return;
  }

  const inScope = (o: SimObject): boolean => !prefix || (o.metadata.namespace ?? '') === w.namespace;
  const passes = (o: SimObject | null): boolean => o !== null && inScope(o) && matches(def, opts, o);
  const deliver = (ev: ChangeEvent): void => {
    if (ev.gr !== w.gr) return;
    const was = passes(ev.prev);
    const is = ev.type !== 'DELETED' && passes(ev.object);
    if (ev.type === 'DELETED') {
      if (was || passes(ev.object)) send('DELETED', ev.object);
    } else if (is) send(was ? 'MODIFIED' : 'ADDED', ev.object);
    else if (was && ev.prev) {
      // Stopped matching: kube sends DELETED carrying the previous object at the event's revision.
      send('DELETED', { ...ev.prev, metadata: { ...ev.prev.metadata, resourceVersion: String(ev.rev) } });
    }
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
  const bookmark = (initialEnd: boolean): void => {
    const metadata: Record<string, unknown> = { resourceVersion: String(Math.max(covered, store.deliveredRevision)) };
    if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    send('BOOKMARK', { kind: def.kind, apiVersion: apiVersionOf(def.group, w.version), metadata }, true);
  };
  if (opts.sendInitialEvents === true) bookmark(true);

  const unsubscribe = store.onChange((ev) => {
    if (ev.rev > covered) deliver(ev);
  });
  const timers: NodeJS.Timeout[] = [];
  const active: ActiveWatch = {
    gr: w.gr,
    close: (abort) => {
      cleanup();
      if (abort) res.destroy();
      else res.end();
    },
  };
  const cleanup = (): void => {
    unsubscribe();
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
