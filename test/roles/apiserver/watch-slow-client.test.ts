// A watch client that stops reading is disconnected once its backlog passes --watch-buffer-bytes (memory stays bounded).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { openStorage } from '../../../src/storage/open.js';
import { silentLogger } from '../../../src/lib/log.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { stalledGet, within } from '../../hostile/stalled-client.js';

let storage: Storage;
let api: TestApiserver;

beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: [pod('c1', 'default', 'seed')], deletes: [] });
  await storage.putClusterStatus('c1', healthyStatus('c1'));
  api = await startTestApiserver(storage, (o) => {
    o.limits.watchBufferBytes = 256 * 1024;
  });
});

afterAll(async () => {
  await api?.stop();
  await storage?.close();
});

it('cuts a watch whose client does not read, and keeps serving others', async () => {
  const rev = await storage.currentRevision();
  const url = new URL(api.base);
  const sock = connect(Number(url.port), '127.0.0.1');
  await new Promise<void>((r) => sock.once('connect', () => r()));
  sock.write(`GET /apis/clusterpedia.io/v1beta1/resources/api/v1/pods?watch=true&resourceVersion=${rev} HTTP/1.1\r\nHost: x\r\n\r\n`);
  // Read the response head, then stop reading altogether.
  await new Promise<void>((r) => sock.once('data', () => r()));
  sock.pause();
  const closed = new Promise<void>((r) => sock.once('close', () => r()));
  let isClosed = false;
  void closed.then(() => (isClosed = true));

  // ~40 MB of changes: far beyond the socket buffers and the 256 KiB watch buffer.
  const padding = 'x'.repeat(20_000);
  for (let batch = 0; batch < 40 && !isClosed; batch++) {
    const upserts = Array.from({ length: 50 }, (_, i) => {
      const p = pod('c1', 'default', `bulk-${batch}-${i}`);
      (p.object.metadata.annotations as Record<string, string>).padding = padding;
      return p;
    });
    await storage.write({ upserts, deletes: [] });
    await new Promise((r) => setTimeout(r, 60));
  }
  await Promise.race([closed, new Promise((_, rej) => setTimeout(() => rej(new Error('slow watch client was not disconnected')), 15_000))]);

  // The server is fine: a normal list still works.
  const r = await fetch(`${api.base}/apis/clusterpedia.io/v1beta1/resources/api/v1/pods?limit=1`);
  expect(r.status).toBe(200);
  sock.destroy();
});

it('a timeoutSeconds beyond what a timer can hold does not make the watch loop wake every millisecond', async () => {
  const rev = await storage.currentRevision();
  // setTimeout clamps longer delays to 1 ms and warns: each warning is one spin of a loop that should be asleep.
  const overflows: string[] = [];
  const onWarning = (w: Error): void => {
    if (w.name === 'TimeoutOverflowWarning') overflows.push(w.message);
  };
  process.on('warning', onWarning);
  const ac = new AbortController();
  try {
    const r = await fetch(`${api.base}/apis/clusterpedia.io/v1beta1/resources/api/v1/pods?watch=true&resourceVersion=${rev}&timeoutSeconds=99999999999`, { signal: ac.signal });
    expect(r.status).toBe(200);
    await new Promise((res) => setTimeout(res, 500));
  } finally {
    ac.abort();
    process.off('warning', onWarning);
  }
  expect(overflows).toEqual([]);
});

describe('a watch client that stops reading its initial events (they hold a storage cursor)', () => {
  let cut: TestApiserver;
  beforeAll(async () => {
    // ~40 MB in one cluster: the initial events of a watch on it cannot fit in the socket buffers.
    const padding = 'x'.repeat(20_000);
    for (let batch = 0; batch < 40; batch++) {
      const upserts = Array.from({ length: 50 }, (_, i) => {
        const p = pod('c2', 'default', `initial-${batch}-${i}`);
        (p.object.metadata.annotations as Record<string, string>).padding = padding;
        return p;
      });
      await storage.write({ upserts, deletes: [] });
    }
    await storage.putClusterStatus('c2', healthyStatus('c2'));
    cut = await startTestApiserver(storage, (o) => {
      o.limits.requestTimeoutMs = 1000;
      o.watch.maxTimeoutSeconds = 4;
    });
  });
  afterAll(async () => {
    await cut?.stop();
  });

  it('is cut at --request-timeout, so stalled watches cannot take every storage connection from lists', async () => {
    const port = Number(new URL(cut.base).port);
    // More stalled watches than the SQLite read pool has connections (4); none asks for a timeout.
    const stalled = await Promise.all([0, 1, 2, 3, 4].map(() => stalledGet(port, '/apis/clusterpedia.io/v1beta1/resources/clusters/c2/api/v1/pods?watch=true')));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const r = await within(fetch(`${cut.base}/apis/clusterpedia.io/v1beta1/resources/api/v1/pods?limit=1`), 4000, 'a list beside stalled watches');
      expect(r.status).toBe(200);
      for (const s of stalled) s.socket.resume();
      await within(Promise.all(stalled.map((s) => s.closed)), 10_000, 'stalled watches closed by the server');
    } finally {
      for (const s of stalled) s.destroy();
    }
  });
});
