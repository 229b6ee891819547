// Faults through the module API and the /_sim/ admin endpoints; the bounded request log.
import { connect as connectHttp2, type ClientHttp2Session } from 'node:http2';
import { fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call, openWatch } from './helpers.js';

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.stop();
  c = undefined;
});

describe('faults', () => {
  it('fails the next N requests with a chosen status and Retry-After', async () => {
    c = await startSimulatedCluster({ pods: 5 });
    c.faults.failNext(2, 429, 3);
    const a = await call(c, '/api/v1/pods');
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('3');
    expect(a.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 3 } });
    expect((await call(c, '/api/v1/pods')).status).toBe(429);
    expect((await call(c, '/api/v1/pods')).status).toBe(200);
    c.faults.failNext(1, 503);
    expect((await call(c, '/version')).body).toMatchObject({ reason: 'ServiceUnavailable', code: 503 });
  });

  it('fails only the requests for one path when asked, leaving the others alone', async () => {
    c = await startSimulatedCluster({ pods: 5 });
    c.faults.failNext(2, 503, undefined, '/apis/apps/v1');
    expect((await call(c, '/api/v1/pods')).status).toBe(200);
    expect((await call(c, '/apis/apps/v1?x=1')).status).toBe(503);
    expect((await call(c, '/apis/apps/v1/deployments')).status).toBe(200);
    expect((await call(c, '/apis/apps/v1')).status).toBe(503);
    expect((await call(c, '/apis/apps/v1')).status).toBe(200);
  });

  it('refuses field selectors on one path, as an aggregated API without them does, until cleared', async () => {
    c = await startSimulatedCluster({ pods: 5 });
    c.faults.refuseFieldSelectors('/api/v1/pods');
    const refused = await call(c, '/api/v1/pods?fieldSelector=metadata.namespace%21%3Dkube-system');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: expect.stringContaining('"metadata.namespace!=kube-system" is not supported') });
    expect((await call(c, '/api/v1/pods?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dx')).status).toBe(400);
    expect((await call(c, '/api/v1/pods')).status).toBe(200);
    expect((await call(c, '/api/v1/configmaps?fieldSelector=metadata.namespace%21%3Dkube-system')).status).toBe(200);
    c.faults.clear();
    expect((await call(c, '/api/v1/pods?fieldSelector=metadata.namespace%21%3Dkube-system')).status).toBe(200);
  });

  it('ends an HTTP/2 connection gracefully after a request (kube\'s --goaway-chance): GOAWAY NO_ERROR, its watch goes on', async () => {
    c = await startSimulatedCluster({ pods: 5, tls: true, http2: true });
    const sim = c;
    const session: ClientHttp2Session = connectHttp2(sim.url, { ca: sim.caData });
    try {
      const auth = { authorization: `Bearer ${sim.token}` };
      const get = (path: string): Promise<{ status: number; body: string }> => new Promise((resolve, reject) => {
        const stream = session.request({ ':path': path, ...auth });
        let status = 0;
        let body = '';
        stream.on('response', (h) => { status = Number(h[':status']); });
        stream.on('data', (d: Buffer) => { body += d.toString(); });
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
      });
      let goneAway = false;
      const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => {
        goneAway = true;
        resolve(code);
      }));
      sim.faults.goAway(1);
      // A watch is long-running: it never ends its connection (kube spares them too).
      const watch = session.request({ ':path': `/api/v1/configmaps?watch=true&resourceVersion=${sim.revision}`, ...auth });
      let events = '';
      watch.on('data', (d: Buffer) => { events += d.toString(); });
      await new Promise((resolve) => watch.once('response', resolve));
      await new Promise((r) => setTimeout(r, 50));
      expect(goneAway).toBe(false);
      expect((await get('/api/v1/namespaces')).status).toBe(200);
      expect(await goaway).toBe(0);
      // The watch opened before it still carries changes; no new stream is taken on the connection.
      sim.store.create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-goaway', namespace: 'default' } });
      for (let i = 0; i < 100 && !events.includes('after-goaway'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(events).toContain('"name":"after-goaway"');
      expect(() => session.request({ ':path': '/version', ...auth })).toThrow();
    } finally {
      session.destroy();
    }
  });

  it('slows responses', async () => {
    c = await startSimulatedCluster({ pods: 5 });
    c.faults.slow(300);
    const t = Date.now();
    await call(c, '/version');
    expect(Date.now() - t).toBeGreaterThanOrEqual(280);
  });

  it('goes down (connections refused, watches cut) and comes back on the same port', async () => {
    c = await startSimulatedCluster({ pods: 5 });
    const w = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${c.revision}`);
    await c.faults.down();
    await w.ended;
    await expect(fetch(`${c.url}/version`)).rejects.toThrow();
    await c.faults.up();
    expect((await call(c, '/version')).status).toBe(200);
    expect(c.url).toBe(`http://127.0.0.1:${c.port}`);
  });

  it('drops all watches cleanly, so clients resume', async () => {
    c = await startSimulatedCluster({ pods: 5 });
    const w1 = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${c.revision}`);
    const w2 = await openWatch(c, `/api/v1/configmaps?watch=true&resourceVersion=${c.revision}`);
    expect(c.openWatches).toBe(2);
    expect(c.faults.dropWatches()).toBe(2);
    await Promise.all([w1.ended, w2.ended]);
    expect(c.openWatches).toBe(0);
  });

  it('exposes every fault on /_sim/ and logs requests (without admin calls), bounded', async () => {
    c = await startSimulatedCluster({ pods: 5, requestLogSize: 3 });
    const admin = (path: string, method = 'POST'): Promise<{ status: number; body: Record<string, unknown> }> => call(c as SimCluster, `/_sim/${path}`, { method });
    expect((await admin('faults/fail?count=1&code=500')).status).toBe(200);
    expect((await call(c, '/api')).status).toBe(500);
    await admin('faults/delay?ms=0');
    const w = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${c.revision}&allowWatchBookmarks=true`);
    expect((await admin('faults/drop-watches')).body).toEqual({ dropped: 1 });
    await w.ended;
    c.store.create('configmaps', { metadata: { name: 'x', namespace: 'default' } });
    const compacted = await admin('compact');
    expect(compacted.body.compactedRevision).toBe(c.revision);
    const state = await admin('state', 'GET');
    expect(state.body).toMatchObject({ revision: c.revision, compactedRevision: c.revision, watches: 0 });
    await call(c, '/api/v1/namespaces?limit=2');
    const log = await admin('requests', 'GET');
    const entries = log.body as unknown as Array<{ method: string; path: string; query: string; status: number; userAgent: string; watch: boolean }>;
    expect(entries).toHaveLength(3);
    expect(entries.at(-1)).toMatchObject({ method: 'GET', path: '/api/v1/namespaces', query: 'limit=2', status: 200, watch: false });
    expect(entries.find((e) => e.watch)).toMatchObject({ path: '/api/v1/pods', status: 200 });
    expect(c.requestLog.entries().every((e) => !e.path.startsWith('/_sim'))).toBe(true);
    await admin('churn/start?rate=50');
    await new Promise((r) => setTimeout(r, 300));
    await admin('churn/stop');
    expect(c.churn.operations).toBeGreaterThan(0);
    const down = await admin('faults/down?forMs=300');
    expect(down.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    await expect(fetch(`${c.url}/version`)).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 500));
    expect((await call(c, '/version')).status).toBe(200);
  });
});
