// The simulator's proxy subresources, as kube-apiserver answers them: a pod's declared port, a service's endpoint
// pod, a node's kubelet; kube's 503s for what it could not reach.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

let c: SimCluster;

beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 1 });
  c.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'px' } });
  const pod = (name: string, phase: string, app: string): void => void c.store.create('pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'px', labels: { app } },
    spec: { nodeName: 'n1', containers: [{ name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] }, status: { phase, podIP: '10.1.2.3' },
  });
  pod('web-1', 'Running', 'web');
  pod('idle-1', 'Pending', 'idle');
  const svc = (name: string, app: string): void => void c.store.create('services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'px' }, spec: { selector: { app }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  });
  svc('web', 'web');
  svc('idle', 'idle');
  c.store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
});
afterAll(async () => {
  await c?.stop();
});

const get = async (path: string, init?: RequestInit): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${c.url}${path}`, init);
  return { status: res.status, text: await res.text() };
};

describe('proxy subresources', () => {
  it("answer from a pod's declared port (by number, by name, or the first), with the method, path, query and body length", async () => {
    expect(await get('/api/v1/namespaces/px/pods/web-1/proxy/a/b/?q=1')).toEqual({ status: 200, text: 'px/web-1 port 8080: GET /a/b/?q=1\n' });
    expect(await get('/api/v1/namespaces/px/pods/web-1:http/proxy', { method: 'PUT', body: 'abcd' })).toEqual({ status: 200, text: 'px/web-1 port 8080: PUT / (4 bytes)\n' });
    expect(await get('/api/v1/namespaces/px/services/web:http/proxy/x', { method: 'DELETE' })).toEqual({ status: 200, text: 'px/web-1 port 8080: DELETE /x\n' });
    expect(await get('/api/v1/nodes/n1:10250/proxy/healthz')).toEqual({ status: 200, text: 'ok' });
    expect(await get('/api/v1/nodes/n1/proxy/metrics')).toMatchObject({ status: 200, text: expect.stringContaining('kubelet_running_pods 1\n') });
    expect(await get('/api/v1/nodes/n1/proxy/pods')).toEqual({ status: 404, text: '404 page not found\n' });
  });

  it("are kube's 503 where nothing answers, and 404 for what does not exist", async () => {
    const closed = await get('/api/v1/namespaces/px/pods/web-1:9090/proxy/');
    expect(closed.status).toBe(503);
    expect(JSON.parse(closed.text)).toMatchObject({ reason: 'ServiceUnavailable', message: 'error trying to reach service: dial tcp 10.1.2.3:9090: connect: connection refused' });
    const pending = await get('/api/v1/namespaces/px/pods/idle-1/proxy/');
    expect(pending.status).toBe(503);
    const noEndpoints = await get('/api/v1/namespaces/px/services/idle/proxy/');
    expect(noEndpoints.status).toBe(503);
    expect(JSON.parse(noEndpoints.text)).toMatchObject({ message: 'error trying to reach service: no endpoints available for service "idle"' });
    expect((await get('/api/v1/namespaces/px/services/web:grpc/proxy/')).status).toBe(404);
    expect((await get('/api/v1/namespaces/px/pods/gone/proxy/')).status).toBe(404);
    expect((await get('/api/v1/nodes/n9/proxy/healthz')).status).toBe(404);
  });

  it("send a destination's redirects and pages on with its root paths in the proxy path, as kube's proxy transport does", async () => {
    const at = '/api/v1/namespaces/px/services/web:http/proxy';
    const moved = await fetch(`${c.url}${at}/redirect`, { redirect: 'manual' });
    expect({ status: moved.status, location: moved.headers.get('location') }).toEqual({ status: 302, location: `${at}/target` });
    for (const encoding of ['identity', 'gzip']) {
      const r = await fetch(`${c.url}${at}/page`, { headers: { 'accept-encoding': encoding } });
      expect(r.headers.get('content-encoding')).toBe(encoding === 'gzip' ? 'gzip' : null);
      const html = await r.text();
      expect(html).toContain(`<a href="${at}/target">`);
      expect(html).toContain(`<img src='${at}/logo.png' alt="/not-a-link">`);
      expect(html).toContain('<a href="relative/x">');
      expect(html).toContain('var api = "/api/raw"');
    }
  });
});
