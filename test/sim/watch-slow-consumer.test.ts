// A watch whose client stops reading, as kube's cacher treats it: closed once its buffer stays full, cleanly, so the
// client resumes from the last event it got and loses nothing; a client that reads is never closed, bursts included.
import { get, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { sleep } from '../../src/lib/lifecycle.js';
import { openWatch, type WatchEvent } from './helpers.js';

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.stop();
  c = undefined;
});

const cm = (name: string, bytes: number): SimObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { blob: 'x'.repeat(bytes) } });

/** A watch over plain HTTP whose body is not read until `read()`: the socket's buffers fill, then the server's. */
function pausedWatch(cluster: SimCluster, path: string): Promise<{ res: IncomingMessage; read: () => Promise<WatchEvent[]> }> {
  return new Promise((resolve, reject) => {
    get(`${cluster.url}${path}`, (res) => {
      res.pause();
      resolve({
        res,
        read: () => new Promise((done, fail) => {
          const chunks: Buffer[] = [];
          res.on('data', (b: Buffer) => chunks.push(b));
          res.on('end', () => done(Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as WatchEvent)));
          res.on('error', fail);
          res.resume();
        }),
      });
    }).on('error', reject);
  });
}

describe('a watch whose client stops reading', () => {
  it('is closed once its buffer stays full; the events it got are a prefix, and a watch from the last one brings the rest', async () => {
    c = await startSimulatedCluster({ pods: 5, watchBufferEvents: 10, token: null });
    const from = c.revision;
    const slow = await pausedWatch(c, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}`);
    // 60 × 256 KiB: far more than the kernel's socket buffers on both sides hold.
    const names = Array.from({ length: 60 }, (_, i) => `big-${String(i).padStart(2, '0')}`);
    for (const name of names) {
      c.store.create('configmaps', cm(name, 256 * 1024));
      await sleep(5);
    }
    const deadline = Date.now() + 10_000;
    while (c.unresponsiveWatchesClosed === 0 && Date.now() < deadline) await sleep(50);
    expect(c.unresponsiveWatchesClosed).toBe(1);
    expect(c.openWatches).toBe(0);

    // Read now: the stream ends cleanly after what was written before the close, in order.
    const got = await slow.read();
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(names.length);
    expect(got.map((e) => e.type)).toEqual(got.map(() => 'ADDED'));
    expect(got.map((e) => e.object.metadata.name)).toEqual(names.slice(0, got.length));

    // The client watches again from the last event it got, as client-go does, and misses nothing.
    const last = got[got.length - 1]!.object.metadata.resourceVersion;
    const again = await openWatch(c, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${last}`);
    try {
      const rest = await again.until((e) => e.object.metadata.name === names[names.length - 1], 10_000);
      expect(rest.map((e) => e.object.metadata.name)).toEqual(names.slice(got.length));
    } finally {
      again.close();
    }
  });

  it('a client that reads keeps its watch through a burst made in one go, far past its buffer', async () => {
    c = await startSimulatedCluster({ pods: 5, watchBufferEvents: 10, tls: true, http2: true });
    const w = await openWatch(c, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${c.revision}`);
    try {
      // One synchronous loop: nothing is read until it ends (over HTTP/2 the stream's window is 64 KiB).
      const names = Array.from({ length: 300 }, (_, i) => `burst-${i}`);
      for (const name of names) c.store.create('configmaps', cm(name, 4096));
      const seen = await w.until((e) => e.object.metadata.name === names[names.length - 1], 10_000);
      expect(seen.map((e) => e.object.metadata.name)).toEqual(names);
      expect(c.unresponsiveWatchesClosed).toBe(0);
      expect(c.openWatches).toBe(1);
    } finally {
      w.close();
    }
  });
});
