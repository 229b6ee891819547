// kubectl --as through the search API, over real HTTPS with delegated and per-cluster authorization: the caller must
// be allowed `impersonate` on each thing it asks to be, and the request then runs as that user (its clusters only).
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApiserver } from '../../support/apiserver.js';
import { readerPolicy, startDelegated, type Delegated } from '../../support/delegated.js';
import { pod } from '../../support/fixtures.js';
import { Kubectl } from '../../support/kubectl.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const BOT = 'system:serviceaccount:team-a:bot';

let d: Delegated;
const kubectls: Kubectl[] = [];

const tokens = { admin: 'token-admin', bob: 'token-bob', root: 'token-root' } as const;
/** Clusters each user may read. */
const readable: Record<string, string[]> = { admin: ['c1', 'c2', 'c3'], alice: ['c1', 'c3'], [BOT]: ['c2'], bob: ['c1'] };
/** What admin may impersonate: users, service accounts (namespace/name), groups. */
const mayImpersonate = new Set(['users/alice', 'serviceaccounts/team-a/bot', 'groups/dev']);

beforeAll(async () => {
  d = await startDelegated({
    tokens: {
      [tokens.admin]: { username: 'admin', groups: ['ops'] },
      [tokens.bob]: { username: 'bob' },
      [tokens.root]: { username: 'root', groups: ['system:masters'] },
    },
    decide: (spec) => {
      const ra = spec.resourceAttributes;
      if (ra?.verb !== 'impersonate') return readerPolicy(readable, spec);
      const key = [ra.resource, ra.namespace, ra.name].filter(Boolean).join('/');
      return spec.user === 'admin' && mayImpersonate.has(key) ? { allowed: true } : { allowed: false, reason: 'no impersonation grant' };
    },
    clusters: ['c1', 'c2', 'c3'],
    objects: ['c1', 'c2', 'c3'].map((c) => pod(c, 'default', `web-${c}`)),
    perCluster: true,
    cacheTtlMs: 0,
  });
});

afterAll(async () => {
  for (const k of kubectls) k.dispose();
  await d?.stop();
});

beforeEach(() => {
  d.sars.length = 0;
});

const list = (who: keyof typeof tokens, headers: Record<string, string | string[]>) => d.get(`${P}/api/v1/pods`, tokens[who], headers);
const names = (body: Record<string, unknown> | undefined): string[] => ((body?.items ?? []) as { metadata: { name: string } }[]).map((i) => i.metadata.name);

function kubectl(who: keyof typeof tokens, extra: string[]): Kubectl {
  const k = new Kubectl(`${d.secure}${P}`, undefined, [`--token=${tokens[who]}`, ...extra]);
  kubectls.push(k);
  return k;
}

describe('kubectl --as', () => {
  it('lists the fleet as the impersonated user sees it, and whoami says who that is', async () => {
    const out = await kubectl('admin', ['--as=alice']).ok(['get', 'pods', '-A', '-o', 'name']);
    expect(out.split('\n').filter(Boolean)).toEqual(['pod/web-c1', 'pod/web-c3']);
    const who = JSON.parse(await kubectl('admin', ['--as=alice', '--as-group=dev']).ok(['auth', 'whoami', '-o', 'json'])) as { status: { userInfo: unknown } };
    expect(who.status.userInfo).toEqual({ username: 'alice', groups: ['dev', 'system:authenticated'] });
    // Without --as, admin reads every cluster.
    expect((await kubectl('admin', []).ok(['get', 'pods', '-A', '-o', 'name'])).split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('is refused, in kube\'s words, to a caller who may not impersonate', async () => {
    // kubectl's discovery reports a 403 as "Forbidden: unknown" whatever the body; the message is checked below.
    const r = await kubectl('bob', ['--as=alice']).run(['get', 'pods', '-A']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (Forbidden)');
    const direct = await list('bob', { 'impersonate-user': 'alice' });
    expect(direct).toMatchObject({ status: 403, json: { reason: 'Forbidden', message: 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: no impersonation grant' } });
  });
});

describe('impersonation headers', () => {
  it('check impersonate on each thing asked for, with kube\'s attributes', async () => {
    const r = await list('admin', { 'impersonate-user': 'alice', 'impersonate-group': 'dev' });
    expect(r.status).toBe(200);
    expect(names(r.json)).toEqual(['web-c1', 'web-c3']);
    const checks = d.sars.filter((s) => s.resourceAttributes?.verb === 'impersonate').map((s) => [s.user, s.resourceAttributes]);
    expect(checks).toEqual([
      ['admin', { group: '', version: '', resource: 'users', name: 'alice', verb: 'impersonate' }],
      ['admin', { group: '', version: '', resource: 'groups', name: 'dev', verb: 'impersonate' }],
    ]);
    // The rest of the request was authorized as alice.
    expect(d.sars.filter((s) => s.resourceAttributes?.verb === 'list').every((s) => s.user === 'alice')).toBe(true);
  });

  it('a service account: checked on serviceaccounts in its namespace, and given its groups', async () => {
    const r = await list('admin', { 'impersonate-user': BOT });
    expect(names(r.json)).toEqual(['web-c2']);
    expect(d.sars.find((s) => s.resourceAttributes?.verb === 'impersonate')?.resourceAttributes).toEqual({ group: '', version: '', resource: 'serviceaccounts', namespace: 'team-a', name: 'bot', verb: 'impersonate' });
    const list2 = d.sars.find((s) => s.resourceAttributes?.verb === 'list');
    expect(list2?.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
  });

  it('refuses what the caller may not be: a group, a uid; and a group without a user is a bad request', async () => {
    const g = await list('admin', { 'impersonate-user': 'alice', 'impersonate-group': 'system:masters' });
    expect(g).toMatchObject({ status: 403, json: { reason: 'Forbidden', message: 'groups "system:masters" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope: no impersonation grant' } });
    const u = await list('admin', { 'impersonate-user': 'alice', 'impersonate-uid': 'u-1' });
    expect(u).toMatchObject({ status: 403, json: { message: 'uids.authentication.k8s.io "u-1" is forbidden: User "admin" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: no impersonation grant' } });
    const bad = await list('admin', { 'impersonate-group': 'dev' });
    expect(bad).toMatchObject({ status: 400, json: { reason: 'BadRequest', message: 'requested an impersonated group, uid or extra without impersonating a user (Impersonate-User)' } });
  });

  it('system:masters may be anyone', async () => {
    const r = await list('root', { 'impersonate-user': 'bob' });
    expect(names(r.json)).toEqual(['web-c1']);
  });

  it('on the insecure port, where nothing is authorized, act as asked without a check', async () => {
    const plain = await startTestApiserver(d.storage);
    try {
      const r = await request(`${plain.base}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', headers: { 'content-type': 'application/json', 'impersonate-user': 'alice' }, body: '{}' });
      expect(((await r.body.json()) as { status: { userInfo: unknown } }).status.userInfo).toEqual({ username: 'alice', groups: ['system:authenticated'] });
    } finally {
      await plain.stop();
    }
  });
});
