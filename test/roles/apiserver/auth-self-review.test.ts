// `kubectl auth can-i` and `kubectl auth whoami` through the search API, over real HTTPS with delegated and
// per-cluster authorization: SelfSubjectAccessReview answered for the path it was posted to, SelfSubjectReview with
// the identity the server took; bodies as JSON (kubectl 1.27) and protobuf (kubectl ≥ 1.32); bad bodies as Statuses.
import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeKubeProtobuf } from '../../../src/kube/protobuf.js';
import { parseReview } from '../../../src/roles/apiserver/self-review.js';
import { startTestApiserver } from '../../support/apiserver.js';
import { readerPolicy, startDelegated, type Delegated } from '../../support/delegated.js';
import { pod } from '../../support/fixtures.js';
import { Kubectl, kubectlPath, oldestKubectl } from '../../support/kubectl.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/** What kubectl 1.33 posted for `auth can-i list pods.apps/status -n myns --subresource=status` (captured). */
const KUBECTL_133_SSAR = '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577124b0a100a0012001a0022002a00320038004200122d0a2b0a046d796e7312046c6973741a0022002a09706f64732e6170707332067374617475733a067374617475731a08080012001a0020001a002200';
/** … and for `auth can-i get /healthz`. */
const KUBECTL_133_NONRESOURCE = '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577122f0a100a0012001a0022002a003200380042001211120f0a082f6865616c74687a12036765741a08080012001a0020001a002200';

let d: Delegated;
const tokens = { alice: 'token-alice', nobody: 'token-nobody', root: 'token-root' } as const;
/** Clusters each user may read (RBAC on resource "clusters" with resourceNames). */
const readable: Record<string, string[]> = { alice: ['c1', 'c3'], nobody: [] };
const kubectls: Kubectl[] = [];

beforeAll(async () => {
  d = await startDelegated({
    tokens: {
      [tokens.alice]: { username: 'alice', groups: ['dev'] },
      [tokens.nobody]: { username: 'nobody' },
      [tokens.root]: { username: 'root', groups: ['system:masters'] },
    },
    decide: (spec) => readerPolicy(readable, spec),
    clusters: ['c1', 'c2', 'c3'],
    objects: ['c1', 'c2', 'c3'].map((c) => pod(c, 'default', 'web-1')),
    perCluster: true,
    cacheTtlMs: 60_000,
  });
});

afterAll(async () => {
  for (const k of kubectls) k.dispose();
  await d?.stop();
});

function kubectl(who: keyof typeof tokens, path = P, binary = kubectlPath()): Kubectl {
  const k = new Kubectl(`${d.secure}${path}`, binary, [`--token=${tokens[who]}`]);
  kubectls.push(k);
  return k;
}

async function post(path: string, body: string | Buffer, o: { who?: keyof typeof tokens; contentType?: string; method?: 'POST' | 'GET'; base?: string } = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const agent = new Agent({ connect: { ca: d.pki.servingCa.cert } });
  try {
    const r = await request(`${o.base ?? d.secure}${path}`, {
      method: o.method ?? 'POST', dispatcher: agent,
      headers: { 'content-type': o.contentType ?? 'application/json', accept: 'application/json', ...(o.who ? { authorization: `Bearer ${tokens[o.who]}` } : {}) },
      ...(o.method === 'GET' ? {} : { body }),
    });
    return { status: r.statusCode, json: (await r.body.json()) as Record<string, unknown> };
  } finally {
    await agent.close();
  }
}

const ssar = (resourceAttributes: Record<string, string>): string => JSON.stringify({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { resourceAttributes } });

describe('kubectl auth can-i', () => {
  it('answers for the fleet path: yes for a user who may read some clusters, no for one who may read none (kubectl ≥ 1.32 posts protobuf)', async () => {
    await expect(kubectl('alice').run(['auth', 'can-i', 'list', 'pods', '-A'])).resolves.toMatchObject({ code: 0, stdout: 'yes\n' });
    await expect(kubectl('root').run(['auth', 'can-i', 'watch', 'deployments.apps', '-n', 'default'])).resolves.toMatchObject({ code: 0, stdout: 'yes\n' });
    const none = await kubectl('nobody').run(['auth', 'can-i', 'list', 'pods', '-A']);
    expect(none).toMatchObject({ code: 1, stdout: expect.stringMatching(/^no - no member cluster may be read/) });
  });

  it("answers for one cluster's path by that cluster's grant", async () => {
    await expect(kubectl('alice', `${P}/clusters/c1`).run(['auth', 'can-i', 'get', 'pods'])).resolves.toMatchObject({ code: 0, stdout: 'yes\n' });
    await expect(kubectl('alice', `${P}/clusters/c2`).run(['auth', 'can-i', 'get', 'pods'])).resolves.toMatchObject({ code: 1, stdout: 'no - cluster not granted\n' });
  });

  it('says no to anything but a read, and to subresources but a get of status or scale', async () => {
    const del = await kubectl('root').run(['auth', 'can-i', 'delete', 'pods']);
    expect(del).toMatchObject({ code: 1, stdout: 'no - clusterpedia serves reads only (get, list, watch), not "delete"\n' });
    const logs = await kubectl('root').run(['auth', 'can-i', 'get', 'pods', '--subresource=log']);
    expect(logs).toMatchObject({ code: 1, stdout: 'no - of subresources, only status and scale are served, with get (not get log)\n' });
    const watchStatus = await kubectl('root').run(['auth', 'can-i', 'watch', 'pods', '--subresource=status']);
    expect(watchStatus).toMatchObject({ code: 1, stdout: 'no - of subresources, only status and scale are served, with get (not watch status)\n' });
    await expect(kubectl('root').run(['auth', 'can-i', 'get', 'deployments', '--subresource=scale'])).resolves.toMatchObject({ code: 0, stdout: 'yes\n' });
    await expect(kubectl('alice', `${P}/clusters/c2`).run(['auth', 'can-i', 'get', 'pods', '--subresource=status'])).resolves.toMatchObject({ code: 1, stdout: 'no - cluster not granted\n' });
  });

  it('works the same from kubectl 1.27, which posts JSON', async () => {
    const old = (who: keyof typeof tokens, path = P): Kubectl => kubectl(who, path, oldestKubectl());
    await expect(old('alice').run(['auth', 'can-i', 'list', 'pods', '-A'])).resolves.toMatchObject({ code: 0, stdout: 'yes\n' });
    await expect(old('alice', `${P}/clusters/c2`).run(['auth', 'can-i', 'list', 'pods'])).resolves.toMatchObject({ code: 1, stdout: 'no - cluster not granted\n' });
  });
});

describe('kubectl auth can-i --list', () => {
  it('lists the reads allowed through the path, and says which clusters a fleet answer is narrowed to', async () => {
    for (const binary of [kubectlPath(), oldestKubectl()]) {
      const fleet = await kubectl('alice', P, binary).run(['auth', 'can-i', '--list']);
      expect(fleet.code, binary).toBe(0);
      expect(fleet.stdout, binary).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
      expect(fleet.stdout, binary).toMatch(/^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);
      expect(fleet.stderr, binary).toBe('Warning: the list may be incomplete: answers hold only the member clusters you may read: c1, c3\n');
    }
    const denied = await kubectl('alice', `${P}/clusters/c2`).run(['auth', 'can-i', '--list']);
    expect(denied.stdout).not.toMatch(/\*\.\*/);
  });

  it('answers the rules as JSON with incomplete and the narrowing as evaluationError', async () => {
    const body = JSON.stringify({ kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', spec: { namespace: 'default' } });
    const r = await post(`${P}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, body, { who: 'alice' });
    expect(r).toMatchObject({ status: 201, json: { kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' }, status: {
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] }], incomplete: true, evaluationError: 'answers hold only the member clusters you may read: c1, c3',
    } } });
    const root = await post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', body, { who: 'alice' });
    expect((root.json.status as { resourceRules: unknown[] }).resourceRules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: ['clusterpedia.io'], resources: ['resources'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['clusterpedia.io'], resources: ['collectionresources'] },
    ]);
    const none = await post(`${P}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, body, { who: 'nobody' });
    expect(none.json.status).toMatchObject({ resourceRules: [{ verbs: ['get', 'list', 'watch'] }], incomplete: true, evaluationError: 'no member cluster may be read: answers would be empty' });
  });
});

describe('kubectl auth whoami', () => {
  it('prints the user and groups the server took the caller for (kubectl 1.27 and the newest)', async () => {
    for (const binary of [kubectlPath(), oldestKubectl()]) {
      const out = await kubectl('alice', P, binary).ok(['auth', 'whoami', '-o', 'json']);
      expect(JSON.parse(out), binary).toMatchObject({ kind: 'SelfSubjectReview', status: { userInfo: { username: 'alice', groups: ['dev', 'system:authenticated'] } } });
    }
  });
});

describe('SelfSubjectAccessReview over HTTP', () => {
  it('names the clusters a fleet answer is narrowed to, and answers at the root for clusterpedia\'s own resources', async () => {
    const r = await post(`${P}${SSAR}`, ssar({ verb: 'list', resource: 'pods' }), { who: 'alice' });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { resourceAttributes: { verb: 'list', resource: 'pods' } }, status: { allowed: true, reason: 'answers hold only the member clusters you may read: c1, c3' } });
    const root = await post(SSAR, ssar({ verb: 'list', group: 'clusterpedia.io', resource: 'collectionresources' }), { who: 'alice' });
    expect(root.json.status).toEqual({ allowed: true });
    const pcs = await post(SSAR, ssar({ verb: 'list', group: 'cluster.clusterpedia.io', resource: 'pediaclusters' }), { who: 'alice' });
    expect(pcs.json.status).toEqual({ allowed: false, reason: 'no RBAC policy matched' });
    const whoami = await post(SSR, JSON.stringify({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' }), { who: 'root' });
    expect(whoami).toMatchObject({ status: 201, json: { status: { userInfo: { username: 'root', groups: ['system:masters', 'system:authenticated'] } } } });
  });

  it('needs authentication, and is created, never read', async () => {
    expect((await post(`${P}${SSAR}`, ssar({ verb: 'list', resource: 'pods' }))).status).toBe(401);
    const get = await post(`${P}${SSAR}`, '', { who: 'alice', method: 'GET' });
    expect(get).toMatchObject({ status: 405, json: { kind: 'Status', reason: 'MethodNotAllowed' } });
  });

  it('answers a bad body with the Status that says what is wrong', async () => {
    const bad = async (body: string | Buffer, contentType?: string): Promise<[number, unknown]> => {
      const r = await post(`${P}${SSAR}`, body, { who: 'alice', ...(contentType ? { contentType } : {}) });
      return [r.status, r.json.message];
    };
    expect(await bad('{"kind":')).toEqual([400, 'the body is not JSON: a SelfSubjectAccessReview was expected']);
    expect(await bad(JSON.stringify({ kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: {} })))
      .toEqual([400, 'the body is a authorization.k8s.io/v1 SubjectAccessReview, not the authorization.k8s.io/v1 SelfSubjectAccessReview this path takes']);
    expect(await bad(JSON.stringify({ kind: 'SelfSubjectAccessReview', spec: {} })))
      .toEqual([422, 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec: Invalid value: exactly one of nonResourceAttributes or resourceAttributes must be specified']);
    expect(await bad(Buffer.from(KUBECTL_133_SSAR.slice(0, 80), 'hex'), 'application/vnd.kubernetes.protobuf'))
      .toEqual([400, 'the body is not a protobuf-encoded SelfSubjectAccessReview: its runtime.Unknown message is truncated or malformed (index out of range)']);
    expect(await bad('verb: list', 'application/yaml'))
      .toEqual([415, 'the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf']);
    expect(await bad(JSON.stringify({ kind: 'SelfSubjectAccessReview', pad: 'x'.repeat(70_000) }))).toEqual([413, 'the request body is larger than 64 KiB']);
  });

  it('refuses an oversized body without stalling the next request on the same connection (the fuzzer found it hanging)', async () => {
    const plain = await startTestApiserver(d.storage);
    const one = new Agent({ connections: 1 });
    try {
      const origin = plain.base;
      for (const [size, contentType] of [[1 << 20, 'text/plain'], [1 << 20, 'application/json'], [8 << 20, 'application/vnd.kubernetes.protobuf'], [1 << 20, 'text/plain'], [20 << 20, 'application/json'], [1 << 20, 'application/json']] as const) {
        const signal = AbortSignal.timeout(10_000);
        const r = await one.request({ origin, path: `${P}${SSR}`, method: 'POST', headers: { 'content-type': contentType }, body: Buffer.alloc(size, 0x61), signal });
        expect([size, r.statusCode]).toEqual([size, 413]);
        expect(((await r.body.json()) as { message: string }).message).toBe('the request body is larger than 64 KiB');
        const next = await one.request({ origin, path: `${P}/api/v1/pods?limit=1`, method: 'GET', signal });
        expect(next.statusCode).toBe(200);
        await next.body.dump();
      }
    } finally {
      await one.close();
      await plain.stop();
    }
  });

  it('gives back its slot at the request deadline when the body stops coming (504, not a slot held for ever)', async () => {
    const plain = await startTestApiserver(d.storage, (o) => {
      o.limits.requestTimeoutMs = 500;
      o.limits.maxRequestsInflight = 1;
    });
    const socket = connect(Number(new URL(plain.base).port), '127.0.0.1');
    try {
      let answer = '';
      socket.on('data', (b: Buffer) => (answer += b.toString('latin1')));
      socket.write(`POST ${P}${SSR} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"kind":`);
      const until = Date.now() + 5_000;
      while (!answer.includes('\r\n\r\n') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(answer).toMatch(/^HTTP\/1\.1 504 /);
      // The one request slot is free again: a list is served, not refused with 429.
      const next = await request(`${plain.base}${P}/api/v1/pods?limit=1`);
      expect(next.statusCode).toBe(200);
      await next.body.dump();
    } finally {
      socket.destroy();
      await plain.stop();
    }
  });

  it('is allowed for any read on the insecure port, where nothing is authorized', async () => {
    const plain = await startTestApiserver(d.storage);
    try {
      const r = await request(`${plain.base}${P}${SSAR}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ssar({ verb: 'list', resource: 'pods' }) });
      expect(r.statusCode).toBe(201);
      expect(((await r.body.json()) as { status: unknown }).status).toEqual({ allowed: true, reason: 'the insecure port serves every reader without authorization' });
      const w = await request(`${plain.base}${SSR}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(((await w.body.json()) as { status: { userInfo: { username: string } } }).status.userInfo.username).toBe('system:anonymous');
    } finally {
      await plain.stop();
    }
  });
});

describe('protobuf bodies as kubectl 1.33 sends them', () => {
  it('decode to the attributes asked for', () => {
    const target = { kind: 'selfReview' as const, review: 'access' as const, version: 'v1', fleet: true };
    expect(parseReview(Buffer.from(KUBECTL_133_SSAR, 'hex'), 'application/vnd.kubernetes.protobuf', target).spec).toEqual({
      resourceAttributes: { namespace: 'myns', verb: 'list', group: '', version: '', resource: 'pods.apps', subresource: 'status', name: 'status' },
    });
    expect(parseReview(Buffer.from(KUBECTL_133_NONRESOURCE, 'hex'), 'application/vnd.kubernetes.protobuf', target).spec).toEqual({
      nonResourceAttributes: { path: '/healthz', verb: 'get' },
    });
    const envelope = decodeKubeProtobuf(Buffer.from(KUBECTL_133_SSAR, 'hex'));
    expect([envelope.apiVersion, envelope.kind]).toEqual(['authorization.k8s.io/v1', 'SelfSubjectAccessReview']);
    // Truncated: the envelope's first field claims more bytes than follow.
    expect(() => decodeKubeProtobuf(Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x40, 0x0a]))).toThrow(expect.objectContaining({ reason: 'malformed' }));
    expect(() => decodeKubeProtobuf(Uint8Array.from([0x7b, 0x7d]))).toThrow('does not start with the Kubernetes protobuf prefix');
  });
});
