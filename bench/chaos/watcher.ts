// An informer-style raw watch client of clusterpedia: paged list, then watch from the list's resourceVersion with
// bookmarks, resume from the last resourceVersion after any break (clusterpedia killed included), relist on 410.
// It keeps its own key → member-RV map, which must end equal to the members' objects its selector (if any) picks:
// one that left the selector while the watcher was away must have come as DELETED in the catch-up.
import { Agent, request, type Dispatcher } from 'undici';
import { Backoff } from '../../src/lib/backoff.js';
import { sleep } from '../../src/lib/lifecycle.js';
import type { Rng } from '../../src/sim/prng.js';
import type { KeyMap, WatchedView } from './state.js';
import { RESOURCES_PREFIX, servedKey } from './stored.js';

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: { metadata?: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; message?: string };
}

export interface WatcherStats {
  lists: number;
  /** Relists forced by 410 Expired (status or ERROR event). */
  expired: number;
  watches: number;
  events: number;
  bookmarks: number;
  /** Failed requests and broken streams, by cause ("HTTP 503", "ECONNREFUSED", ...). */
  errors: Record<string, number>;
  /** Events whose resourceVersion did not move forward from the last one seen (never expected). */
  outOfOrder: number;
  /** The first few of them: when, what, and where the stream had started. */
  outOfOrderSamples: string[];
  /** Client-side outages injected (watcher-pause faults). */
  pauses: number;
}

class Expired extends Error {}

/** A list or watch answer other than 200: 410 is Expired (relist), anything else an error; the body is drained. */
async function expectOk(res: Dispatcher.ResponseData): Promise<void> {
  if (res.statusCode === 200) return;
  await res.body.dump();
  throw res.statusCode === 410 ? new Expired() : new Error(`HTTP ${res.statusCode}`);
}

export class Watcher {
  readonly items: KeyMap = new Map();
  readonly stats: WatcherStats = { lists: 0, expired: 0, watches: 0, events: 0, bookmarks: 0, errors: {}, outOfOrder: 0, outOfOrderSamples: [], pauses: 0 };
  /** Date.now() of the last change to `items`. */
  lastChangeAt = 0;
  private rv: string | undefined;
  /** The resourceVersion the current watch started from, and the events it brought so far (out-of-order samples). */
  private streamFrom: string | undefined;
  private streamEvents = 0;
  /** The request in flight: aborted by pause(). */
  private current: AbortController | undefined;
  private pausedUntil = 0;
  private wakeFromPause: (() => void) | undefined;
  private readonly agent = new Agent({ keepAliveTimeout: 1_000, connect: { timeout: 5_000 } });

  constructor(
    readonly name: string,
    /** The type it lists and watches, and the selector it asks for, if any. */
    readonly view: WatchedView,
    /** clusterpedia's apiservers: with more than one, every request (list page, watch) goes to one drawn at random. */
    private readonly bases: readonly string[],
    private readonly rng: Rng,
    /** List page size; 0 lists in one response. */
    private readonly pageSize: number,
  ) {}

  /** A client-side outage: drop the connection now, reconnect (from the last resourceVersion) after `ms`. */
  pause(ms: number): void {
    this.stats.pauses++;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    this.current?.abort();
  }

  /** Ends a pause early. */
  resume(): void {
    this.pausedUntil = 0;
    this.wakeFromPause?.();
  }

  /** Lists and watches until `signal` aborts; never stops on an error. */
  async run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 3_000, random: () => this.rng.next() });
    try {
      while (!signal.aborted) {
        const wait = this.pausedUntil - Date.now();
        if (wait > 0) {
          await new Promise<void>((resolve) => {
            this.wakeFromPause = resolve;
            void sleep(wait, signal).then(resolve);
          });
          this.wakeFromPause = undefined;
          continue;
        }
        const ac = new AbortController();
        const onAbort = (): void => ac.abort();
        signal.addEventListener('abort', onAbort, { once: true });
        this.current = ac;
        try {
          if (this.rv === undefined) await this.list(ac.signal);
          await this.watch(ac.signal);
          backoff.reset();
        } catch (e: unknown) {
          if (signal.aborted) break;
          if (ac.signal.aborted) continue;
          if (e instanceof Expired) {
            this.stats.expired++;
            this.rv = undefined;
            continue;
          }
          const cause = errorName(e);
          this.stats.errors[cause] = (this.stats.errors[cause] ?? 0) + 1;
          await sleep(backoff.next(), signal);
        } finally {
          signal.removeEventListener('abort', onAbort);
          this.current = undefined;
        }
      }
    } finally {
      await this.agent.close().catch(() => undefined);
    }
  }

  private url(q: Record<string, string>): string {
    const base = this.bases.length === 1 ? this.bases[0]! : this.rng.pick(this.bases);
    return `${base}${RESOURCES_PREFIX}${this.view.type.path}?${new URLSearchParams({ ...this.view.query, ...q })}`;
  }

  /** A full (paged) list replaces the map, as an informer's Replace does. */
  private async list(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const next: KeyMap = new Map();
    let cont: string | undefined;
    let listRv: string | undefined;
    for (let page = 0; page < 100_000; page++) {
      const q: Record<string, string> = this.pageSize > 0 ? { limit: String(this.pageSize) } : {};
      if (cont) q.continue = cont;
      const res = await request(this.url(q), { dispatcher: this.agent, signal, headersTimeout: 30_000, bodyTimeout: 60_000 });
      await expectOk(res);
      const list = (await res.body.json()) as { items?: WatchEvent['object'][]; metadata?: { resourceVersion?: string; continue?: string } };
      listRv ??= list.metadata?.resourceVersion;
      for (const item of list.items ?? []) {
        const k = servedKey(item.metadata);
        if (k) next.set(k.key, k.rv);
      }
      cont = list.metadata?.continue;
      if (!cont) break;
    }
    if (next.size !== this.items.size || [...next].some(([k, v]) => this.items.get(k) !== v)) this.lastChangeAt = Date.now();
    this.items.clear();
    for (const [k, v] of next) this.items.set(k, v);
    this.rv = listRv;
  }

  /** One watch request, resumed from the last resourceVersion; returns when the server ends it (timeout). */
  private async watch(signal: AbortSignal): Promise<void> {
    this.stats.watches++;
    const timeoutSeconds = String(this.rng.range(20, 90));
    this.streamFrom = this.rv;
    this.streamEvents = 0;
    const res = await request(this.url({ watch: 'true', allowWatchBookmarks: 'true', resourceVersion: this.rv ?? '', timeoutSeconds }), {
      dispatcher: this.agent, signal, headersTimeout: 30_000, bodyTimeout: 120_000,
    });
    await expectOk(res);
    let buf = '';
    for await (const chunk of res.body) {
      buf += (chunk as Buffer).toString('utf8');
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) this.apply(JSON.parse(line) as WatchEvent);
        nl = buf.indexOf('\n');
      }
    }
  }

  private apply(e: WatchEvent): void {
    if (e.type === 'ERROR') {
      if (e.object.code === 410) throw new Expired();
      throw new Error(`ERROR event ${e.object.code ?? ''}`);
    }
    const rv = e.object.metadata?.resourceVersion;
    if (rv !== undefined && this.rv !== undefined && /^\d+$/.test(rv) && /^\d+$/.test(this.rv)) {
      const forward = e.type === 'BOOKMARK' ? BigInt(rv) >= BigInt(this.rv) : BigInt(rv) > BigInt(this.rv);
      if (!forward) {
        this.stats.outOfOrder++;
        if (this.stats.outOfOrderSamples.length < 5) {
          this.stats.outOfOrderSamples.push(`${new Date().toISOString()} ${e.type} ${e.object.metadata?.namespace ?? ''}/${e.object.metadata?.name ?? ''} rv ${rv} after ${this.rv} (event ${this.streamEvents} of a watch from ${this.streamFrom ?? 'none'})`);
        }
      }
    }
    this.streamEvents++;
    if (rv !== undefined) this.rv = rv;
    if (e.type === 'BOOKMARK') {
      this.stats.bookmarks++;
      return;
    }
    this.stats.events++;
    const k = servedKey(e.object.metadata);
    if (!k) return;
    if (e.type === 'DELETED') this.items.delete(k.key);
    else this.items.set(k.key, k.rv);
    this.lastChangeAt = Date.now();
  }
}

function errorName(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    return e.message.startsWith('HTTP') || e.message.startsWith('ERROR') ? e.message : e.name;
  }
  return 'unknown';
}
