// --request-timeout bounds every non-watch request: a list whose client stops reading is cut at the deadline (and
// gives back its inflight slot and storage connection); a request stuck on storage gets a 504 Status at the deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import type { JoinedPage, ListPage, ListQuery, Storage } from '../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../support/apiserver.js';
import { healthyStatus, pod } from '../support/fixtures.js';
import { stalledGet, within } from './stalled-client.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
let storage: Storage;

/** ~40 MB of pods: far more than loopback socket buffers hold, so a client that stops reading really stalls the server. */
async function fillLarge(s: Storage, cluster: string): Promise<void> {
  const padding = 'x'.repeat(20_000);
  for (let b = 0; b < 40; b++) {
    const upserts = Array.from({ length: 50 }, (_, i) => {
      const p = pod(cluster, 'default', `big-${b}-${i}`);
      (p.object.metadata.annotations as Record<string, string>).padding = padding;
      return p;
    });
    await s.write({ upserts, deletes: [] });
  }
  await s.putClusterStatus(cluster, healthyStatus(cluster));
}

beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await fillLarge(storage, 'c1');
});

afterAll(async () => {
  await storage?.close();
});

/**
 * The deadline of the stalled lists. It must outlast starting all three of them (each reads its page before its first
 * byte: 20 MB for the limit=1000 case), or the first is cut before the probe. At 1 s, one full CI run on a loaded
 * machine took 1,075 ms to get the third answer started, and the probe got 200.
 */
const DEADLINE_MS = 3000;

describe('a list whose client stops reading', () => {
  let api: TestApiserver;
  beforeAll(async () => {
    api = await startTestApiserver(storage, (o) => {
      o.limits.requestTimeoutMs = DEADLINE_MS;
      o.limits.maxRequestsInflight = 3;
    });
  });
  afterAll(async () => api?.stop());

  it.each([
    ['unpaged, streamed from a cursor', `${P}/api/v1/pods`],
    ['a page of 1,000 read at once and sent whole (20 MB)', `${P}/api/v1/pods?limit=1000`],
  ])('%s: is cut at the deadline, and its inflight slot and storage connection are given back', async (_what, path) => {
    const port = Number(new URL(api.base).port);
    // As many stalled lists as the inflight limit allows, each answering already: before the deadline the server is
    // full. (Stalled at once instead, a loaded machine could parse the next request before the last of them: 200.)
    const stalled = await within(Promise.all([0, 1, 2].map(() => stalledGet(port, path, true))), 5000, 'stalled lists answered');
    try {
      expect((await fetch(`${api.base}${P}/api/v1/pods?limit=1`)).status).toBe(429);
      // Past the deadline the slots are free again (the stalled handlers ended), and lists read storage normally.
      await new Promise((r) => setTimeout(r, DEADLINE_MS + 500));
      const r = await fetch(`${api.base}${P}/api/v1/pods?limit=1`);
      expect(r.status).toBe(200);
      expect(((await r.json()) as { items: unknown[] }).items).toHaveLength(1);
      // The stalled clients find a truncated body and a closed connection once they read again (no keep-alive reuse).
      for (const s of stalled) s.socket.resume();
      await within(Promise.all(stalled.map((s) => s.closed)), 10_000, 'stalled lists closed by the server');
    } finally {
      for (const s of stalled) s.destroy();
    }
  });
});

describe('a request stuck on storage', () => {
  let api: TestApiserver;
  let release: () => void = () => {};
  let hung = new Promise<void>((r) => (release = r));
  beforeAll(async () => {
    // A database that stops answering list queries (a lock, a lost connection without a reset) until released.
    const stuck = new Proxy(storage, {
      get(target, prop, receiver) {
        if (prop === 'list') return async (q: ListQuery, signal?: AbortSignal): Promise<ListPage> => {
          await hung;
          return target.list(q, signal);
        };
        if (prop === 'listJoined') return async (q: ListQuery, signal?: AbortSignal): Promise<JoinedPage | undefined> => {
          await hung;
          return target.listJoined?.(q, signal);
        };
        const v: unknown = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    api = await startTestApiserver(stuck, (o) => {
      o.limits.requestTimeoutMs = 300;
    });
  });
  afterAll(async () => {
    release();
    await api?.stop();
  });

  it('gets a 504 Status at the deadline instead of hanging', async () => {
    const started = Date.now();
    const r = await within(fetch(`${api.base}${P}/api/v1/pods?limit=5`), 5000, 'answer to a request stuck on storage');
    expect(r.status).toBe(504);
    const body = (await r.json()) as { kind: string; reason: string; code: number };
    expect(body).toMatchObject({ kind: 'Status', reason: 'Timeout', code: 504 });
    expect(Date.now() - started).toBeLessThan(3000);
    // Once storage answers again, so does the server.
    release();
    hung = Promise.resolve();
    const ok = await fetch(`${api.base}${P}/api/v1/pods?limit=5`);
    expect(ok.status).toBe(200);
  });
});
