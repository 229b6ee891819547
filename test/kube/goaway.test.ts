// A member that closes its HTTP/2 connection gracefully (GOAWAY, NO_ERROR), as kube-apiserver's --goaway-chance does
// after some requests: undici 7 fails every request still on that connection. A GET is sent again on another one; a
// watch ends with reason GoAway, which the list/watch loop takes as a normal end (src/kube/listwatch.ts).
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, KubeClient } from '../../src/kube/client.js';
import { kubeConfigFromString } from '../../src/kube/kubeconfig.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { makeCa, makeServingCert } from '../support/certs.js';

let sim: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.stop();
  client = undefined;
  sim = undefined;
});

async function member(pods: number): Promise<{ sim: SimCluster; client: KubeClient }> {
  sim = await startSimulatedCluster({ pods, tls: true, http2: true });
  client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
  return { sim, client };
}

/** Resolves once the member has taken a request for `path` and not answered it whole yet. */
async function inFlight(s: SimCluster, path: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (s.requestLog.entries((r) => r.path === path && r.durationMs === undefined).length > 0) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`${path} never in flight`);
}

describe('a graceful GOAWAY from the member', () => {
  it('a list in flight on the connection is asked again on another one, and answered', async () => {
    const m = await member(2000);
    const first = await m.client.json<{ items: unknown[] }>('/api/v1/pods', { query: { limit: 1 } });
    expect(first.items).toHaveLength(1);
    m.sim.requestLog.clear();
    const list = m.client.json<{ items: unknown[] }>('/api/v1/pods');
    await inFlight(m.sim, '/api/v1/pods');
    m.sim.faults.goAway(1);
    await m.client.json('/version');
    m.sim.faults.goAway(0);
    expect((await list).items.length).toBe(m.sim.snapshot('pods').length);
    // Taken twice by the member: the first answer was cut off on our side when the connection went away.
    expect(m.sim.requestLog.entries((r) => r.path === '/api/v1/pods').length).toBe(2);
  });

  it('a watch on the connection ends with reason GoAway, not a network failure', async () => {
    const m = await member(5);
    const ac = new AbortController();
    const stream = m.client.watch('/api/v1/pods', { resourceVersion: String(m.sim.revision) }, ac.signal);
    const ended = (async (): Promise<unknown> => {
      try {
        for await (const ev of stream) void ev;
        return 'ended';
      } catch (e: unknown) {
        return e;
      }
    })();
    for (let i = 0; i < 200 && m.sim.openWatches === 0; i++) await new Promise((r) => setTimeout(r, 5));
    m.sim.faults.goAway(1);
    await m.client.json('/version');
    const e = await ended;
    expect(e).toBeInstanceOf(KubeApiError);
    expect((e as KubeApiError).goAway).toBe(true);
    expect((e as KubeApiError).reason).toBe('GoAway');
    ac.abort();
  });

  it('a GET is sent twice at most, however many GOAWAYs it meets, and then fails with reason GoAway', async () => {
    // A server whose every connection goes away gracefully as soon as a request arrives, without answering it.
    const ca = await makeCa('goaway-ca');
    const serving = await makeServingCert(ca);
    let streams = 0;
    const server = http2.createSecureServer({ cert: serving.cert, key: serving.key });
    server.on('stream', (stream) => {
      streams++;
      stream.session?.close();
      stream.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'g', server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caData: Buffer.from(ca.cert).toString('base64') }],
      users: [{ name: 'u', token: 't' }], contexts: [{ name: 'g', cluster: 'g', user: 'u' }], currentContext: 'g',
    });
    client = await KubeClient.create(kc);
    try {
      const e = await client.json('/api/v1/pods').then(() => undefined, (err: unknown) => err);
      expect(e).toBeInstanceOf(KubeApiError);
      expect((e as KubeApiError).reason).toBe('GoAway');
      expect(streams).toBe(2);
    } finally {
      await client.close();
      client = undefined;
      await new Promise((r) => server.close(r));
    }
  });
});
