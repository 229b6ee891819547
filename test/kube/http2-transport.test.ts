// Requests to a member over HTTP/2 where its TLS handshake picks it (as kube-apiserver's does): watches share a
// connection, each stream flow-controlled on its own; over HTTP/1.1, a connection each, and never pipelined.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { manyListenersController } from '../../src/lib/lifecycle.js';
import { kubeConfigFromString } from '../../src/kube/kubeconfig.js';
import { Http2Transport } from '../../src/kube/http2-transport.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { generateCertificates } from '../../src/sim/tls.js';

const RESOURCES = [
  '/api/v1/pods', '/api/v1/services', '/api/v1/configmaps', '/api/v1/secrets', '/api/v1/serviceaccounts', '/api/v1/events',
  '/apis/apps/v1/deployments', '/apis/apps/v1/replicasets', '/apis/batch/v1/jobs', '/apis/networking.k8s.io/v1/ingresses',
];
const running: { sim: SimCluster; client: KubeClient; ac: AbortController }[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) {
    r.ac.abort();
    await r.client.close();
    await r.sim.stop();
  }
});

/** Starts a watch on each core resource and reads it in the background; resolves once the member holds them all. */
async function watchAll(http2: boolean, clientHttp2?: boolean): Promise<{ sim: SimCluster; client: KubeClient; events: Map<string, number> }> {
  const sim = await startSimulatedCluster({ pods: 10, seed: 5, tls: true, http2, bookmarkIntervalMs: 100 });
  const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)), clientHttp2 === undefined ? {} : { http2: clientHttp2 });
  // One signal for all of the test's watches (the synchro gives each resource its own).
  const ac = manyListenersController();
  running.push({ sim, client, ac });
  const events = new Map<string, number>();
  for (const r of RESOURCES) {
    // One after the other, each started once the one before it was answered: how the synchro starts its watches,
    // and what would hang behind a pipelined watch.
    const stream = client.watch(r, { allowWatchBookmarks: true }, ac.signal);
    const first = await stream.next();
    expect(first.done).toBe(false);
    events.set(r, 1);
    void (async () => {
      for await (const ev of stream) if (ev.type !== 'BOOKMARK') events.set(r, (events.get(r) ?? 0) + 1);
    })().catch(() => undefined);
  }
  for (let i = 0; i < 200 && sim.openWatches < RESOURCES.length; i++) await new Promise((res) => setTimeout(res, 10));
  expect(sim.openWatches).toBe(RESOURCES.length);
  return { sim, client, events };
}

describe('member watches', () => {
  it('over HTTP/2 when the member offers it: every watch on one connection', async () => {
    const { sim, client, events } = await watchAll(true);
    expect(client.protocol).toBe('h2');
    expect(sim.openConnections).toBe(1);
    expect(sim.openHttp2Connections).toBe(1);
    // Started together (as the synchro starts a member's watches once its lists end), they still share it.
    const together = await Promise.all(RESOURCES.map(async (r) => {
      const s = client.watch(r, { allowWatchBookmarks: true }, running.at(-1)!.ac.signal);
      await s.next();
      return s;
    }));
    expect(together).toHaveLength(RESOURCES.length);
    expect(sim.openWatches).toBe(2 * RESOURCES.length);
    expect(sim.openConnections).toBe(1);
    // They carry changes: one made in the member reaches its watch on the shared connection (bookmarks not counted).
    const pod = sim.snapshot('pods')[0]!;
    const before = events.get('/api/v1/pods') ?? 0;
    sim.store.patch('pods', pod.metadata.namespace ?? 'default', pod.metadata.name ?? '', { metadata: { labels: { touched: 'yes' } } });
    for (let i = 0; i < 200 && (events.get('/api/v1/pods') ?? 0) === before; i++) await new Promise((res) => setTimeout(res, 10));
    expect(events.get('/api/v1/pods')).toBe(before + 1);
  }, 30_000);

  it('many big lists at once on one HTTP/2 connection are all answered, as kube-apiserver answers them', async () => {
    const sim = await startSimulatedCluster({ pods: 2000, seed: 5, tls: true, http2: true });
    const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
    running.push({ sim, client, ac: new AbortController() });
    // Node's own limit on a session's unsent data (maxSessionMemory) made the simulator refuse some of these with
    // ENHANCE_YOUR_CALM; Go's server waits on flow control instead.
    const lists = await Promise.all([...RESOURCES, ...RESOURCES].map(async (r) => (await client.json<{ items: unknown[] }>(`${r}?limit=500`)).items.length));
    expect(lists.every((n) => n > 0)).toBe(true);
    expect(sim.openConnections).toBe(1);
  }, 30_000);

  it('over HTTP/1.1 when the member does not offer HTTP/2: a connection each, none pipelined behind another', async () => {
    const { sim, client } = await watchAll(false);
    expect(client.protocol).toBe('http/1.1');
    expect(sim.openConnections).toBe(RESOURCES.length);
  }, 30_000);

  it('http2: false keeps HTTP/1.1 even where HTTP/2 is offered', async () => {
    const { sim, client } = await watchAll(true, false);
    expect(client.protocol).toBe('http/1.1');
    expect(sim.openConnections).toBe(RESOURCES.length);
  }, 30_000);

  it('a member that stops offering HTTP/2 (another server at its address) gets its watches over HTTP/1.1, none pipelined', async () => {
    const certs = await generateCertificates();
    const sim = await startSimulatedCluster({ pods: 10, seed: 5, tls: certs, http2: true, bookmarkIntervalMs: 100 });
    const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
    const ac = new AbortController();
    running.push({ sim, client, ac });
    await (client.watch(RESOURCES[0]!, { allowWatchBookmarks: true }, ac.signal)).next();
    expect(client.protocol).toBe('h2');
    await sim.stop();
    const again = await startSimulatedCluster({ pods: 10, seed: 5, tls: certs, token: sim.token ?? null, port: sim.port, bookmarkIntervalMs: 100 });
    running.push({ sim: again, client: await KubeClient.create(kubeConfigFromString(kubeconfigFor(again))), ac: new AbortController() });
    // The first attempt may find the old connection gone, as any would after a restart; the next connection to the
    // address is HTTP/1.1 and refused once; from then on every watch has a connection of its own.
    let failures = 0;
    for (const r of RESOURCES) {
      for (;;) {
        try {
          await client.watch(r, { allowWatchBookmarks: true }, ac.signal).next();
          break;
        } catch {
          failures++;
          expect(failures).toBeLessThanOrEqual(2);
        }
      }
    }
    expect(client.protocol).toBe('http/1.1');
    expect(again.openHttp2Connections).toBe(0);
    expect(again.openWatches).toBe(RESOURCES.length);
    expect(again.openConnections).toBeGreaterThanOrEqual(RESOURCES.length);
  }, 30_000);

  it('more watches than one connection carries (100) open another connection, started together or not', async () => {
    const sim = await startSimulatedCluster({ pods: 1, seed: 5, tls: true, http2: true, bookmarkIntervalMs: 100 });
    for (let i = 0; i < 150; i++) sim.addCRD({ group: `g${i % 10}.example.io`, plural: `things${i}s`, kind: `Thing${i}`, scope: 'Namespaced', versions: [{ name: 'v1' }] });
    const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
    const ac = manyListenersController();
    running.push({ sim, client, ac });
    await Promise.all(Array.from({ length: 150 }, async (_, i) => {
      await client.watch(`/apis/g${i % 10}.example.io/v1/things${i}s`, { allowWatchBookmarks: true }, ac.signal).next();
    }));
    expect(sim.openWatches).toBe(150);
    expect(sim.openHttp2Connections).toBe(2);
    expect(sim.openConnections).toBe(2);
  }, 30_000);
});

/**
 * A TCP relay to a member that can fall silent: its connections then stay open and carry nothing either way, as across
 * a network partition, or as a session that no longer reads its socket (Node 20, after a member restart).
 */
/** `holdFirst`: the first connection is accepted and never answered (a handshake that cannot complete). */
async function relay(port: number, o: { holdFirst?: boolean } = {}): Promise<{ port: number; silence(): void; close(): Promise<void> }> {
  const pairs: Array<[Socket, Socket]> = [];
  const held: Socket[] = [];
  const server: Server = createServer((a) => {
    if (o.holdFirst && held.length === 0 && pairs.length === 0) {
      held.push(a.on('error', () => {}));
      return;
    }
    const b = connect(port, '127.0.0.1');
    a.pipe(b).pipe(a);
    a.on('error', () => b.destroy());
    b.on('error', () => a.destroy());
    pairs.push([a, b]);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    port: (server.address() as { port: number }).port,
    silence: () => {
      for (const [a, b] of pairs) {
        a.unpipe(b);
        b.unpipe(a);
        a.pause();
        b.pause();
      }
    },
    close: async () => {
      for (const a of held.splice(0)) a.destroy();
      for (const [a, b] of pairs.splice(0)) {
        a.destroy();
        b.destroy();
      }
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

describe('Http2Transport', () => {
  const sims: SimCluster[] = [];
  afterEach(async () => {
    for (const s of sims.splice(0)) await s.stop();
  });

  it('closes a connection that answers no PING: its requests fail and the next ones go over a new connection', async () => {
    const certs = await generateCertificates();
    const sim = await startSimulatedCluster({ pods: 5, seed: 5, tls: certs, http2: true, bookmarkIntervalMs: 100 });
    sims.push(sim);
    const r = await relay(sim.port);
    const url = `https://127.0.0.1:${r.port}`;
    const h1Pool = new Agent({ connect: { ca: certs.caCert } });
    const t = new Http2Transport(new URL(url), { ca: certs.caCert }, () => h1Pool, undefined, { pingIntervalMs: 50, deadAfterMs: 400 });
    const get = async (path: string): Promise<number | string> => {
      await t.ready();
      try {
        const res = await request(`${url}${path}`, { dispatcher: t.pick(), headers: { authorization: `Bearer ${sim.token}` }, headersTimeout: 20_000 });
        await res.body.dump();
        return res.statusCode;
      } catch (e: unknown) {
        return (e as Error).message;
      }
    };
    try {
      expect(t.current).toBeUndefined();
      expect(await get('/readyz')).toBe(200);
      expect(t.current).toBe('h2');
      // Alive and answering: kept past the deadline (its PINGs are answered).
      await new Promise((res) => setTimeout(res, 600));
      expect(await get('/readyz')).toBe(200);
      expect(sim.openHttp2Connections).toBe(1);
      r.silence();
      const started = Date.now();
      expect(await get('/readyz')).toMatch(/answered no PING for \d+s; closed/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await get('/readyz')).toBe(200);
      expect(sim.openHttp2Connections).toBe(2);
    } finally {
      await t.close();
      await h1Pool.close();
      await r.close();
    }
  }, 30_000);

  /** A watch of pods at `url` through the transport's pick, as KubeClient.send dispatches it; its status, or the error. */
  async function watchThrough(t: Http2Transport, sim: SimCluster, url = sim.url): Promise<number | string> {
    await t.ready();
    const dispatcher = t.pick();
    try {
      const r = await request(`${url}/api/v1/pods?watch=true&allowWatchBookmarks=true`, { dispatcher, headers: { authorization: `Bearer ${sim.token}` } });
      r.body.destroy();
      return r.statusCode;
    } catch (e: unknown) {
      return (e as Error).message;
    }
  }

  it('when the handshake that learns the protocol fails, the HTTP/2 connection decides: h2 kept, HTTP/1.1 refused once', async () => {
    const certs = await generateCertificates();
    const tls = { ca: certs.caCert };
    const h1Pool = new Agent({ connect: tls });
    for (const http2 of [true, false]) {
      const sim = await startSimulatedCluster({ pods: 1, seed: 5, tls: certs, http2 });
      sims.push(sim);
      // The probe's connection is the relay's first: held unanswered, so the probe always times out. (A probe given
      // 0 ms instead still finished its handshake first now and then, under load.)
      const r = await relay(sim.port, { holdFirst: true });
      const url = `https://127.0.0.1:${r.port}`;
      const t = new Http2Transport(new URL(url), tls, () => h1Pool, 50);
      if (http2) {
        expect(await watchThrough(t, sim, url)).toBe(200);
        expect(sim.openHttp2Connections).toBe(1);
      } else {
        expect(await watchThrough(t, sim, url)).toMatch(/did not negotiate HTTP\/2/);
        expect(t.current).toBe('http/1.1');
        expect(await watchThrough(t, sim, url)).toBe(200);
        expect(sim.openHttp2Connections).toBe(0);
      }
      await t.close();
      await r.close();
    }
    await h1Pool.close();
  }, 30_000);
});
