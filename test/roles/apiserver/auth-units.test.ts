// The pure parts of access control: chain verification, header parsing, attributes, 403 wording, cluster sets, the review cache.
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../../../src/roles/apiserver/authn.js';
import { ReviewCache } from '../../../src/roles/apiserver/authn-cache.js';
import { normalizeNames, requestHeaderUser } from '../../../src/roles/apiserver/authn-requestheader.js';
import { bearerToken } from '../../../src/roles/apiserver/authn-token.js';
import { parseCaBundle, verifiedBy, type PeerCertificate } from '../../../src/roles/apiserver/authn-x509.js';
import { forbiddenFor } from '../../../src/roles/apiserver/authz.js';
import { attributesFor, isPublicPath, requestVerb } from '../../../src/roles/apiserver/authz-attributes.js';
import { allowedClusters, intersectClusters } from '../../../src/roles/apiserver/authz-clusters.js';
import { parseRequestTarget } from '../../../src/roles/apiserver/request-info.js';
import { makeCa, makeClientCert, makeIntermediateCa } from '../../support/certs.js';

const alice: UserInfo = { name: 'alice', groups: [], extra: {}, via: 'token' };
const peer = (...pems: string[]): PeerCertificate => ({ chain: pems.map((p) => new X509Certificate(p)), commonName: 'x', organizations: [] });

describe('verifiedBy', () => {
  it('follows intermediates the client sent to a CA of the bundle, and only to it', async () => {
    const root = await makeCa('root');
    const other = await makeCa('root');
    const mid = await makeIntermediateCa(root, 'mid');
    const forgedMid = await makeIntermediateCa(other, 'mid');
    const leaf = await makeClientCert(mid, 'alice');
    const bundle = parseCaBundle(root.cert);
    expect(verifiedBy(peer(leaf.cert, mid.cert), bundle)).toBe(true);
    expect(verifiedBy(peer(leaf.cert), bundle)).toBe(false);
    expect(verifiedBy(peer(leaf.cert, forgedMid.cert), bundle)).toBe(false);
    expect(verifiedBy(peer(leaf.cert, mid.cert), parseCaBundle(other.cert))).toBe(false);
    // A bundle of several CAs: any of them may anchor the chain.
    expect(verifiedBy(peer(leaf.cert, mid.cert), parseCaBundle(`${other.cert}\n${root.cert}`))).toBe(true);
  });

  it('checks validity dates at the given time', async () => {
    const ca = await makeCa('ca');
    const leaf = await makeClientCert(ca, 'alice');
    const bundle = parseCaBundle(ca.cert);
    expect(verifiedBy(peer(leaf.cert), bundle)).toBe(true);
    expect(verifiedBy(peer(leaf.cert), bundle, new Date(Date.now() + 365 * 86_400_000))).toBe(false);
  });

  it('rejects a file with no certificate', () => {
    expect(() => parseCaBundle('not a pem')).toThrow(/no PEM certificate/);
  });
});

describe('request headers', () => {
  const names = normalizeNames({ usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] });

  it('read the first user, every group header value and percent-decoded extra keys', () => {
    expect(requestHeaderUser({ 'x-remote-user': ['bob', 'eve'], 'x-remote-group': ['a, b', 'c'], 'x-remote-extra-acme.com%2fteam': ['x'] }, names))
      .toEqual({ name: 'bob', groups: ['a, b', 'c'], extra: { 'acme.com/team': ['x'] } });
  });

  it('name no user when the user header is absent or empty', () => {
    expect(requestHeaderUser({ 'x-remote-user': [''], 'x-remote-group': ['a'] }, names)).toBeUndefined();
  });

  it('bearer tokens: scheme case-insensitive, nothing else accepted', () => {
    expect(bearerToken({ authorization: 'bearer abc' })).toBe('abc');
    expect(bearerToken({ authorization: 'Basic abc' })).toBeUndefined();
    expect(bearerToken({ authorization: 'Bearer ' })).toBeUndefined();
  });
});

describe('attributes', () => {
  const P = '/apis/clusterpedia.io/v1beta1/resources';
  const of = (path: string, method = 'GET') => {
    const t = parseRequestTarget(path, false);
    return attributesFor(t, path, requestVerb(method, t));
  };

  it('map every surface to its outer resource or path', () => {
    expect(of(`${P}/api/v1/pods`)).toEqual({ resource: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: 'list' } });
    expect(of(`${P}/clusters`)).toEqual({ resource: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: 'get' } });
    expect(of(`${P}/api/v1/pods`, 'DELETE')).toEqual({ resource: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: 'delete' } });
    expect(of('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters')).toEqual({ resource: { group: 'cluster.clusterpedia.io', version: 'v1alpha2', resource: 'pediaclusters', verb: 'list' } });
    expect(of('/apis')).toEqual({ nonResource: { path: '/apis', verb: 'get' } });
    expect(of('/metrics')).toEqual({ nonResource: { path: '/metrics', verb: 'get' } });
  });

  it("a subresource forwarded to the member needs resources/<subresource>; a stored object's status and scale do not", () => {
    const base = { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: 'get' };
    expect(of(`${P}/clusters/c1/api/v1/namespaces/ns/pods/p/log`)).toEqual({ resource: { ...base, subresource: 'log' } });
    expect(of(`${P}/clusters/c1/api/v1/namespaces/ns/pods/p/exec`, 'POST')).toEqual({ resource: { ...base, verb: 'create', subresource: 'exec' } });
    // Over WebSocket (a GET), exec is still create, as in kube-apiserver since 1.30: reading is not running commands.
    expect(of(`${P}/clusters/c1/api/v1/namespaces/ns/pods/p/exec`)).toEqual({ resource: { ...base, verb: 'create', subresource: 'exec' } });
    expect(of(`${P}/clusters/c1/api/v1/namespaces/ns/pods/p/status`)).toEqual({ resource: base });
    expect(of(`${P}/clusters/c1/apis/apps/v1/namespaces/ns/deployments/d/scale`)).toEqual({ resource: base });
  });

  it('public paths are the probes and /version only', () => {
    for (const p of ['/healthz', '/readyz', '/livez', '/livez/ping', '/version', '/version/']) expect(isPublicPath(p), p).toBe(true);
    for (const p of ['/metrics', '/apis', `${P}/version`, '/versions', '/healthzz']) expect(isPublicPath(p), p).toBe(false);
  });

  it('403 messages follow kube for namespaces, subresources and paths', () => {
    expect(forbiddenFor(alice, { resource: { group: '', version: 'v1', resource: 'pods', subresource: 'log', namespace: 'ns', verb: 'get', name: 'p' } }).status.message)
      .toBe('pods "p" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "ns"');
    expect(forbiddenFor(alice, { nonResource: { path: '/metrics', verb: 'get' } }, 'why').status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'forbidden: User "alice" cannot get path "/metrics": why' });
  });
});

describe('cluster sets', () => {
  const allowed = new Set(['a', 'c']);
  it('intersect with none, in and notin filters, always as in', () => {
    expect(intersectClusters(undefined, allowed)).toEqual({ op: 'in', values: ['a', 'c'] });
    expect(intersectClusters({ op: 'in', values: ['b', 'c'] }, allowed)).toEqual({ op: 'in', values: ['c'] });
    expect(intersectClusters({ op: 'notin', values: ['a'] }, allowed)).toEqual({ op: 'in', values: ['c'] });
    expect(intersectClusters({ op: 'in', values: ['b'] }, allowed)).toEqual({ op: 'in', values: [] });
    expect(intersectClusters(undefined, new Set())).toEqual({ op: 'in', values: [] });
  });

  it('the allowed set asks once per cluster, with bounded concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const names = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const set = await allowedClusters({
      decide: async (_u, attrs) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return { allowed: 'resource' in attrs && Number(attrs.resource.name?.slice(1)) % 2 === 0 };
      },
    }, alice, 'list', names);
    expect(set.size).toBe(20);
    expect(peak).toBeLessThanOrEqual(16);
  });
});

describe('ReviewCache', () => {
  it('shares a load between concurrent callers, expires after the TTL, and does not keep failures', async () => {
    let now = 0;
    let loads = 0;
    const cache = new ReviewCache<number>({ ttlMs: 100, now: () => now });
    const load = async (): Promise<number> => ++loads;
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    now = 99;
    expect(await cache.get('k', load)).toBe(1);
    now = 100;
    expect(await cache.get('k', load)).toBe(2);
    await expect(cache.get('bad', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('bad', load)).toBe(3);
  });

  it('keeps at most maxEntries', async () => {
    const cache = new ReviewCache<string>({ ttlMs: 1000, maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) await cache.get(k, async () => k);
    expect(cache.size).toBe(3);
  });
});
