// Delegated authorization over real HTTPS: SubjectAccessReview attributes per API, kube's 403 wording, caching, masters, AlwaysAllow.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster, type SubjectAccessReviewSpec } from '../../../src/sim/index.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { freeLoopbackPort, makeTestPki, tlsGet, usePki, type TestPki } from '../../support/certs.js';
import { deployment, healthyStatus, pod } from '../../support/fixtures.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const SARS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

let pki: TestPki;
let host: SimCluster;
let storage: Storage;
let kubeconfig: string;
const servers: TestApiserver[] = [];
let delegated: string;
let sars: SubjectAccessReviewSpec[] = [];

const tokens = { alice: 'token-alice', bob: 'token-bob', root: 'token-root' } as const;
const as = (who: keyof typeof tokens, base = delegated) => (path: string) =>
  tlsGet(`${base}${path}`, { ca: pki.servingCa.cert, headers: { authorization: `Bearer ${tokens[who]}` } });

async function startSecure(mode: 'Delegated' | 'AlwaysAllow', ttlMs: number): Promise<string> {
  const port = await freeLoopbackPort();
  servers.push(await startTestApiserver(storage, (o) => {
    usePki(o, pki, port);
    o.kubeconfig = kubeconfig;
    o.authentication.tokenReview = true;
    o.authorization.mode = mode;
    o.authorization.cacheTtlMs = ttlMs;
  }));
  return `https://127.0.0.1:${port}`;
}

beforeAll(async () => {
  pki = await makeTestPki();
  host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
  host.reviews.setTokenTable({
    [tokens.alice]: { username: 'alice', groups: ['dev'] },
    [tokens.bob]: { username: 'bob' },
    [tokens.root]: { username: 'root', groups: ['system:masters'] },
  });
  // alice may use the resources API and collections; bob may do nothing.
  host.reviews.subjectAccessReview = (spec) => {
    sars.push(spec);
    const ra = spec.resourceAttributes;
    if (spec.user === 'alice' && ra?.group === 'clusterpedia.io' && ['resources', 'collectionresources'].includes(ra.resource ?? '')) return { allowed: true, reason: 'rbac: alice' };
    return { allowed: false, reason: 'no RBAC policy matched' };
  };
  kubeconfig = join(pki.dir, 'host.kubeconfig');
  writeFileSync(kubeconfig, kubeconfigFor(host));
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: [pod('c1', 'default', 'web-1'), deployment('c1', 'default', 'web')], deletes: [] });
  await storage.putClusterStatus('c1', healthyStatus('c1'));
  delegated = await startSecure('Delegated', 0);
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await storage?.close();
  await host?.stop();
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

beforeEach(() => {
  sars = [];
});

describe('SubjectAccessReview attributes', () => {
  it('resources API: resource "resources" with the request verb', async () => {
    const alice = as('alice');
    expect((await alice(`${P}/api/v1/pods`)).status).toBe(200);
    expect((await alice(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1`)).status).toBe(200);
    expect((await alice(`${P}/apis/apps/v1/deployments?watch=true&timeoutSeconds=1`)).status).toBe(200);
    expect((await alice(`${P}/apis/apps/v1`)).status).toBe(200);
    expect(sars.map((s) => s.resourceAttributes)).toEqual(['list', 'get', 'watch', 'get'].map((verb) => ({ group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb })));
    expect(sars[0]).toEqual({ user: 'alice', groups: ['dev', 'system:authenticated'], extra: {}, resourceAttributes: expect.any(Object) as unknown });
  });

  it('collections: resource "collectionresources", get with the name or list', async () => {
    const alice = as('alice');
    const r = await alice('/apis/clusterpedia.io/v1beta1/collectionresources/workloads');
    expect(r.status).toBe(200);
    expect((await alice('/apis/clusterpedia.io/v1beta1/collectionresources')).status).toBe(200);
    expect(sars.map((s) => s.resourceAttributes)).toEqual([
      { group: 'clusterpedia.io', version: 'v1beta1', resource: 'collectionresources', verb: 'get', name: 'workloads' },
      { group: 'clusterpedia.io', version: 'v1beta1', resource: 'collectionresources', verb: 'list' },
    ]);
  });

  it('pediaclusters: group cluster.clusterpedia.io, denied with kube wording', async () => {
    const r = await as('alice')('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/c1');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: 'Status', reason: 'Forbidden', code: 403,
      message: 'pediaclusters.cluster.clusterpedia.io "c1" is forbidden: User "alice" cannot get resource "pediaclusters" in API group "cluster.clusterpedia.io" at the cluster scope: no RBAC policy matched',
      details: { name: 'c1', group: 'cluster.clusterpedia.io', kind: 'pediaclusters' },
    });
    expect(sars[0]?.resourceAttributes).toEqual({ group: 'cluster.clusterpedia.io', version: 'v1alpha2', resource: 'pediaclusters', verb: 'get', name: 'c1' });
  });

  it('/metrics and /apis discovery are non-resource paths', async () => {
    const alice = as('alice');
    const m = await alice('/metrics');
    expect(m.status).toBe(403);
    expect(m.json?.message).toBe('forbidden: User "alice" cannot get path "/metrics": no RBAC policy matched');
    expect((await alice('/apis')).status).toBe(403);
    expect((await alice('/apis/clusterpedia.io/v1beta1')).status).toBe(403);
    expect(sars.map((s) => s.nonResourceAttributes)).toEqual([
      { path: '/metrics', verb: 'get' }, { path: '/apis', verb: 'get' }, { path: '/apis/clusterpedia.io/v1beta1', verb: 'get' },
    ]);
  });
});

describe('decisions', () => {
  it('a denial is 403 Forbidden with the user, verb, resource, group and reason', async () => {
    const r = await as('bob')(`${P}/api/v1/pods`);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403 });
    expect(r.json?.message).toBe('resources.clusterpedia.io is forbidden: User "bob" cannot list resource "resources" in API group "clusterpedia.io" at the cluster scope: no RBAC policy matched');
  });

  it('system:masters is allowed without asking the host', async () => {
    const root = as('root');
    expect((await root(`${P}/api/v1/pods`)).status).toBe(200);
    expect((await root('/metrics')).status).toBe(200);
    expect(sars).toEqual([]);
  });

  it('a host that cannot answer gives 503 with Retry-After, not a decision', async () => {
    host.faults.failNext(1, 500);
    const r = await as('bob')(`${P}/apis/apps/v1/deployments`);
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.text).not.toContain(tokens.bob);
  });

  it('answers are cached for the TTL, allowed and denied alike', async () => {
    const cached = await startSecure('Delegated', 60_000);
    host.requestLog.clear();
    for (let i = 0; i < 3; i++) {
      expect((await as('alice', cached)(`${P}/api/v1/pods`)).status).toBe(200);
      expect((await as('bob', cached)(`${P}/api/v1/pods`)).status).toBe(403);
    }
    expect(host.requestLog.entries((e) => e.path === SARS)).toHaveLength(2);
  });

  it('AlwaysAllow sends no SubjectAccessReview', async () => {
    const open = await startSecure('AlwaysAllow', 0);
    expect((await as('bob', open)(`${P}/api/v1/pods`)).status).toBe(200);
    expect((await as('bob', open)('/metrics')).status).toBe(200);
    expect(sars).toEqual([]);
  });
});
