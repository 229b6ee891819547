// Authentication over real HTTPS: front-proxy headers (and forgeries), client certificates, TokenReview with caching, 401s, public paths.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster, type SubjectAccessReviewSpec } from '../../../src/sim/index.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { freeLoopbackPort, makeCa, makeClientCert, makeTestPki, tlsGet, usePki, type Pem, type TestPki } from '../../support/certs.js';
import { healthyStatus, pod } from '../../support/fixtures.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';

let pki: TestPki;
let host: SimCluster;
let storage: Storage;
let api: TestApiserver;
let secure: string;
let sars: SubjectAccessReviewSpec[] = [];
const certs: Record<'alice' | 'proxy' | 'intruderProxy' | 'rogue' | 'expired', Pem> = {} as Record<'alice' | 'proxy' | 'intruderProxy' | 'rogue' | 'expired', Pem>;

const get = (path: string, o: { client?: Pem; headers?: Record<string, string | string[]> } = {}) => tlsGet(`${secure}${path}`, { ca: pki.servingCa.cert, ...o });
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  pki = await makeTestPki();
  const rogueCa = await makeCa('client-ca');
  [certs.alice, certs.proxy, certs.intruderProxy, certs.rogue, certs.expired] = await Promise.all([
    makeClientCert(pki.clientCa, 'alice', { groups: ['dev', 'ops'] }),
    makeClientCert(pki.frontProxyCa, 'front-proxy-client'),
    makeClientCert(pki.frontProxyCa, 'intruder'),
    // Same subject names as the real client CA: only the signature tells them apart.
    makeClientCert(rogueCa, 'alice', { groups: ['system:masters'] }),
    makeClientCert(pki.clientCa, 'alice', { notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) }),
  ]);
  host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
  host.reviews.setTokenTable({ 'token-alice': { username: 'alice-token', uid: 'u-1', groups: ['dev'] } });
  host.reviews.subjectAccessReview = (spec) => {
    sars.push(spec);
    return { allowed: true };
  };
  const kubeconfig = join(pki.dir, 'host.kubeconfig');
  writeFileSync(kubeconfig, kubeconfigFor(host));

  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: [pod('c1', 'default', 'web-1'), pod('c2', 'default', 'web-2')], deletes: [] });
  await storage.putClusterStatus('c1', healthyStatus('c1'));
  const port = await freeLoopbackPort();
  secure = `https://127.0.0.1:${port}`;
  api = await startTestApiserver(storage, (o) => {
    usePki(o, pki, port);
    o.kubeconfig = kubeconfig;
    o.authentication.tokenReview = true;
    o.authentication.cacheTtlMs = 60_000;
    o.authorization.mode = 'Delegated';
    o.authorization.cacheTtlMs = 0;
  });
});

afterAll(async () => {
  await api?.stop();
  await storage?.close();
  await host?.stop();
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

beforeEach(() => {
  sars = [];
});

describe('front-proxy headers', () => {
  const forged = { 'x-remote-user': 'admin', 'x-remote-group': 'system:masters' };

  it('refuses X-Remote-User from a client without a certificate', async () => {
    const r = await get(`${P}/api/v1/pods`, { headers: forged });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect(String(r.json?.message)).toMatch(/X-Remote-User.*headers are not accepted from this client/);
  });

  it('refuses them with a client certificate of the client CA, or with a valid token', async () => {
    expect((await get(`${P}/api/v1/pods`, { client: certs.alice, headers: forged })).status).toBe(401);
    expect((await get(`${P}/api/v1/pods`, { headers: { ...forged, ...bearer('token-alice') } })).status).toBe(401);
    expect((await get(`${P}/api/v1/pods`, { client: certs.alice, headers: { 'x-remote-extra-scopes': 'x' } })).status).toBe(401);
    expect(sars).toEqual([]);
  });

  it('refuses them from a front-proxy-CA certificate whose CN is not allowed', async () => {
    const r = await get(`${P}/api/v1/pods`, { client: certs.intruderProxy, headers: forged });
    expect(r.status).toBe(401);
    expect(String(r.json?.message)).toMatch(/not accepted from this client/);
  });

  it('accepts them from the front proxy and hands user, groups and extra to authorization', async () => {
    const r = await get(`${P}/api/v1/pods`, {
      client: certs.proxy,
      headers: { 'x-remote-user': 'bob', 'x-remote-group': ['team-a', 'team-b'], 'x-remote-extra-scopes': ['read'], 'x-remote-extra-example.com%2fkey': 'v' },
    });
    expect(r.status).toBe(200);
    expect((r.json?.items as unknown[]).length).toBe(2);
    expect(sars).toEqual([{
      user: 'bob', groups: ['team-a', 'team-b', 'system:authenticated'], extra: { scopes: ['read'], 'example.com/key': ['v'] },
      resourceAttributes: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: 'list' },
    }]);
  });

  it('hands on every group of a user in thousands of them (Node alone keeps the first 2,000 headers)', async () => {
    const groups = Array.from({ length: 2500 }, (_, i) => `g${i}`);
    const r = await get(`${P}/api/v1/pods`, { client: certs.proxy, headers: { 'x-remote-user': 'carol', 'x-remote-group': groups } });
    expect(r.status).toBe(200);
    expect(sars.at(-1)?.groups).toEqual([...groups, 'system:authenticated']);
  });

  it('does not authenticate the proxy itself when it names no user', async () => {
    expect((await get(`${P}/api/v1/pods`, { client: certs.proxy })).status).toBe(401);
  });
});

describe('client certificates', () => {
  it('authenticate as CN with O as groups', async () => {
    const r = await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1`, { client: certs.alice });
    expect(r.status).toBe(200);
    expect(sars).toEqual([{
      user: 'alice', groups: ['dev', 'ops', 'system:authenticated'], extra: {},
      resourceAttributes: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: 'get' },
    }]);
  });

  it('are refused when signed by another CA with the same name, or expired', async () => {
    for (const client of [certs.rogue, certs.expired]) {
      const r = await get(`${P}/api/v1/pods`, { client });
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    }
    expect(sars).toEqual([]);
  });
});

describe('bearer tokens', () => {
  it('are reviewed by the host once and the answer is cached', async () => {
    host.requestLog.clear();
    const burst = await Promise.all(Array.from({ length: 5 }, () => get(`${P}/api/v1/pods`, { headers: bearer('token-alice') })));
    for (let i = 0; i < 5; i++) burst.push(await get(`${P}/api/v1/pods`, { headers: bearer('token-alice') }));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(host.requestLog.entries((e) => e.path === TOKEN_REVIEWS)).toHaveLength(1);
    expect(sars[0]).toMatchObject({ user: 'alice-token', uid: 'u-1', groups: ['dev', 'system:authenticated'] });
  });

  it('an unknown token is 401', async () => {
    const r = await get(`${P}/api/v1/pods`, { headers: bearer('no-such-token') });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});

describe('without credentials', () => {
  it('the secure port answers 401, discovery of our own group included', async () => {
    for (const path of [`${P}/api/v1/pods`, `${P}/api`, `${P}/version`, '/apis', '/apis/clusterpedia.io/v1beta1', '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters', '/metrics', '/nope']) {
      const r = await get(path);
      expect(r.status, path).toBe(401);
      expect(r.json?.kind, path).toBe('Status');
    }
    // Authentication comes before routing: an anonymous DELETE is 401, not 405.
    const del = await tlsGet(`${secure}${P}/api/v1/namespaces/default/pods/x`, { ca: pki.servingCa.cert, method: 'DELETE' });
    expect(del.status).toBe(401);
  });

  it('health and version stay public', async () => {
    for (const path of ['/healthz', '/readyz', '/livez', '/version', '/healthz/ping']) {
      expect((await get(path)).status, path).toBe(200);
    }
    expect(sars).toEqual([]);
  });

  it('the insecure loopback port is anonymous, but refuses identity headers too', async () => {
    const r = await fetch(`${api.resources}/api/v1/pods`);
    expect(r.status).toBe(200);
    const forged = await fetch(`${api.resources}/api/v1/pods`, { headers: { 'x-remote-user': 'admin' } });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { message: string }).message).toMatch(/not accepted from this client/);
  });
});
