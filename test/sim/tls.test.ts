// HTTPS with the simulator's own CA, bearer tokens (401 without or wrong), client certificates, kubeconfig credentials.
import * as k8s from '@kubernetes/client-node';
import { Agent, fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeconfigFor, startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call } from './helpers.js';

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.stop();
  c = undefined;
});

describe('tls and authentication', () => {
  it('verifies against caData, requires the bearer token: 401 without it or with a wrong one', async () => {
    c = await startSimulatedCluster({ pods: 5, tls: true });
    expect(c.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(c.caData).toContain('BEGIN CERTIFICATE');
    expect((await call(c, '/api/v1/pods')).status).toBe(200);
    const ca = new Agent({ connect: { ca: c.caData } });
    const none = await fetch(`${c.url}/api/v1/pods`, { dispatcher: ca });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    expect((await fetch(`${c.url}/api/v1/pods`, { dispatcher: ca, headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    // Without the CA the certificate does not verify.
    await expect(fetch(`${c.url}/version`)).rejects.toThrow();
  });

  it('accepts a client certificate signed by its CA', async () => {
    c = await startSimulatedCluster({ pods: 5, tls: true, token: null, clientCertAuth: true });
    expect(c.clientCert).toBeDefined();
    const withCert = new Agent({ connect: { ca: c.caData, cert: c.clientCert?.certData, key: c.clientCert?.keyData } });
    expect((await fetch(`${c.url}/api/v1/namespaces`, { dispatcher: withCert })).status).toBe(200);
    expect((await fetch(`${c.url}/api/v1/namespaces`, { dispatcher: new Agent({ connect: { ca: c.caData } }) })).status).toBe(401);
  });

  it("over HTTP/1.1 an HTTP/2 member keeps the HTTP/1.1 member's connection settings (idle keep-alive 90 s, kube-apiserver's IdleTimeout; no request timeout)", async () => {
    for (const http2 of [false, true]) {
      c = await startSimulatedCluster({ pods: 2, tls: true, http2 });
      const agent = new Agent({ connect: { ca: c.caData } });
      const res = await fetch(`${c.url}/version`, { dispatcher: agent, headers: { authorization: `Bearer ${c.token}` } });
      expect(res.status, `http2 ${http2}`).toBe(200);
      expect(res.headers.get('keep-alive'), `http2 ${http2}`).toBe('timeout=90');
      await res.text();
      await agent.close();
      await c.stop();
      c = undefined;
    }
  });

  it('works through client-node with the kubeconfig it writes', async () => {
    c = await startSimulatedCluster({ pods: 12, tls: true });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(kubeconfigFor(c));
    const pods = await kc.makeApiClient(k8s.CoreV1Api).listPodForAllNamespaces();
    expect(pods.items).toHaveLength(12);
  });
});
