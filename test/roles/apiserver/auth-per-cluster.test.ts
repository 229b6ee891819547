// Per-cluster authorization over real HTTPS: rows of forbidden clusters leave lists, watches and collections; their paths are 403.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readerPolicy, startDelegated, type Delegated } from '../../support/delegated.js';
import { deployment, pod } from '../../support/fixtures.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';

let d: Delegated;

const tokens = { alice: 'token-alice', bob: 'token-bob', nobody: 'token-nobody', root: 'token-root' } as const;
/** Clusters each user may read (RBAC on resource "clusters" with resourceNames). */
const readable: Record<string, string[]> = { alice: ['c1', 'c3'], bob: ['c2', 'c3'], nobody: [] };

const as = (who: keyof typeof tokens) => (path: string) => d.get(path, tokens[who]);
const itemsOf = (body: Record<string, unknown> | undefined): string[] =>
  ((body?.items ?? []) as { metadata: { name: string; annotations: Record<string, string> } }[])
    .map((i) => `${i.metadata.annotations['shadow.clusterpedia.io/cluster-name']}/${i.metadata.name}`);

beforeAll(async () => {
  d = await startDelegated({
    tokens: {
      [tokens.alice]: { username: 'alice' },
      [tokens.bob]: { username: 'bob' },
      [tokens.nobody]: { username: 'nobody' },
      [tokens.root]: { username: 'root', groups: ['system:masters'] },
    },
    decide: (spec) => readerPolicy(readable, spec),
    clusters: ['c1', 'c2', 'c3'],
    objects: ['c1', 'c2', 'c3'].flatMap((c) => [pod(c, 'default', 'web-1'), deployment(c, 'default', 'web')]),
    perCluster: true,
    cacheTtlMs: 60_000,
    // kubectl top across clusters: c1, c2 and c3 are all the host simulator, by PediaCluster files.
    configure: (opts, host, dir) => {
      const file = join(dir, 'clusters.yaml');
      writeFileSync(file, ['c1', 'c2', 'c3'].map((name) => stringify({ apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name },
        spec: { apiserver: host.url, tokenData: Buffer.from(host.token ?? '').toString('base64'), caData: Buffer.from(host.caData ?? '').toString('base64') } })).join('---\n'));
      opts.forward = { ...opts.forward, metrics: true, openapi: true, clustersPath: file };
    },
  });
});

afterAll(async () => {
  await d?.stop();
});

beforeEach(() => {
  d.sars.length = 0;
});

describe('lists', () => {
  it('leave out the rows of clusters the user may not read', async () => {
    const r = await as('alice')(`${P}/api/v1/pods`);
    expect(r.status).toBe(200);
    expect(itemsOf(r.json)).toEqual(['c1/web-1', 'c3/web-1']);
    const perCluster = d.sars.map((x) => x.resourceAttributes).filter((a) => a?.resource === 'clusters');
    expect(perCluster.sort((a, b) => String(a?.name).localeCompare(String(b?.name)))).toEqual(['c1', 'c2', 'c3'].map((name) => (
      { group: 'clusterpedia.io', version: 'v1beta1', resource: 'clusters', name, verb: 'list' })));
  });

  it('intersect the allowed set with a clusters filter, in or notin', async () => {
    const alice = as('alice');
    expect(itemsOf((await alice(`${P}/api/v1/pods?clusters=c1,c2`)).json)).toEqual(['c1/web-1']);
    const notin = encodeURIComponent('search.clusterpedia.io/clusters notin (c1)');
    expect(itemsOf((await alice(`${P}/api/v1/pods?labelSelector=${notin}`)).json)).toEqual(['c3/web-1']);
  });

  it('are empty, not 403, for a user allowed no cluster', async () => {
    const r = await as('nobody')(`${P}/api/v1/pods`);
    expect(r.status).toBe(200);
    expect(r.json?.items).toEqual([]);
  });

  it('narrow the clusters a get without one names as holding the object', async () => {
    const where = async (who: keyof typeof tokens): Promise<unknown> => (await as(who)(`${P}/api/v1/namespaces/default/pods/web-1`)).json?.message;
    expect(await where('alice')).toMatch(/ pods "web-1" is in clusters c1, c3: /);
    expect(await where('nobody')).toBe('please specify the cluster name when using the resource name to get a specific resource.');
  });

  it('narrow collections too', async () => {
    const r = await as('alice')('/apis/clusterpedia.io/v1beta1/collectionresources/workloads');
    expect(r.status).toBe(200);
    expect(itemsOf(r.json)).toEqual(['c1/web', 'c3/web']);
  });

  it('are whole for system:masters', async () => {
    expect(itemsOf((await as('root')(`${P}/api/v1/pods`)).json)).toEqual(['c1/web-1', 'c2/web-1', 'c3/web-1']);
  });

  it('ask the host once per user and cluster within the TTL', async () => {
    const before = d.host.requestLog.entries((e) => e.path.endsWith('/subjectaccessreviews')).length;
    await as('alice')(`${P}/apis/apps/v1/deployments`);
    await as('alice')(`${P}/apis/apps/v1/deployments`);
    const after = d.host.requestLog.entries((e) => e.path.endsWith('/subjectaccessreviews')).length;
    // Earlier tests already cached alice's list decisions; nothing new is asked.
    expect(after - before).toBe(0);
    expect(d.sars).toEqual([]);
  });
});

describe('paths naming a cluster', () => {
  it('answer 403 for a forbidden cluster, in kube wording', async () => {
    const alice = as('alice');
    const r = await alice(`${P}/clusters/c2/api/v1/pods`);
    expect(r.status).toBe(403);
    expect(r.json?.message).toBe('clusters.clusterpedia.io "c2" is forbidden: User "alice" cannot list resource "clusters" in API group "clusterpedia.io" at the cluster scope: cluster not granted');
    expect((await alice(`${P}/clusters/c2/api/v1/namespaces/default/pods/web-1`)).status).toBe(403);
    expect((await alice(`${P}/clusters/c2/apis/apps/v1`)).status).toBe(403);
  });

  it('serve an allowed cluster', async () => {
    const r = await as('alice')(`${P}/clusters/c1/api/v1/pods`);
    expect(r.status).toBe(200);
    expect(itemsOf(r.json)).toEqual(['c1/web-1']);
  });
});

describe('watches', () => {
  /** Opens a watch and collects "TYPE cluster/name" lines until `done` says so. */
  async function watch(who: keyof typeof tokens, path: string, done: (events: string[]) => boolean, act?: () => Promise<void>): Promise<{ status: number; events: string[] }> {
    const agent = new Agent({ connect: { ca: d.pki.servingCa.cert } });
    const ac = new AbortController();
    try {
      const r = await request(`${d.secure}${path}`, { dispatcher: agent, signal: ac.signal, headers: { authorization: `Bearer ${tokens[who]}` } });
      if (r.statusCode !== 200) {
        await r.body.text();
        return { status: r.statusCode, events: [] };
      }
      const events: string[] = [];
      let buf = '';
      const acted = act?.();
      for await (const chunk of r.body) {
        buf += (chunk as Buffer).toString();
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          const ev = JSON.parse(buf.slice(0, nl)) as { type: string; object: { metadata: { name: string; annotations?: Record<string, string> } } };
          buf = buf.slice(nl + 1);
          if (ev.type !== 'BOOKMARK') events.push(`${ev.type} ${ev.object.metadata.annotations?.['shadow.clusterpedia.io/cluster-name']}/${ev.object.metadata.name}`);
          nl = buf.indexOf('\n');
        }
        if (done(events)) break;
      }
      await acted;
      return { status: 200, events };
    } finally {
      ac.abort();
      await agent.destroy();
    }
  }

  it('send only allowed clusters, in the initial state and in live events', async () => {
    const list = await as('alice')(`${P}/api/v1/pods`);
    const rv = String((list.json?.metadata as { resourceVersion: string }).resourceVersion);
    const initial = await watch('alice', `${P}/api/v1/pods?watch=true&timeoutSeconds=10`, (e) => e.length >= 2);
    expect(initial.events).toEqual(['ADDED c1/web-1', 'ADDED c3/web-1']);
    // Live: changes in c2 (forbidden) and c3 (allowed); only c3's reach alice.
    const live = await watch('alice', `${P}/api/v1/pods?watch=true&resourceVersion=${rv}&timeoutSeconds=10`, (e) => e.includes('ADDED c3/late'), async () => {
      await d.storage.write({ upserts: [pod('c2', 'default', 'late')], deletes: [] });
      await d.storage.write({ upserts: [pod('c3', 'default', 'late')], deletes: [] });
    });
    expect(live.events).toEqual(['ADDED c3/late']);
  });

  it('answer 403 on a forbidden cluster path', async () => {
    const r = await watch('alice', `${P}/clusters/c2/api/v1/pods?watch=true&timeoutSeconds=5`, () => true);
    expect(r.status).toBe(403);
  });
});

describe('what would be forwarded to a member', () => {
  it('asks only the clusters the user may read for metrics across clusters', async () => {
    const clustersOf = async (who: keyof typeof tokens): Promise<string[]> => {
      const r = await as(who)(`${P}/apis/metrics.k8s.io/v1beta1/nodes`);
      expect(r.status).toBe(200);
      expect(r.headers.warning).toBeUndefined();
      return [...new Set(((r.json?.items ?? []) as { metadata: { annotations: Record<string, string> } }[]).map((i) => i.metadata.annotations['shadow.clusterpedia.io/cluster-name'] ?? ''))].sort();
    };
    const asked = (): number => d.host.requestLog.entries((e) => e.path === '/apis/metrics.k8s.io/v1beta1/nodes').length;
    const before = asked();
    expect(await clustersOf('alice')).toEqual(['c1', 'c3']);
    expect(asked()).toBe(before + 2);
    expect(await clustersOf('nobody')).toEqual([]);
    expect(asked()).toBe(before + 2);
    expect(await clustersOf('root')).toEqual(['c1', 'c2', 'c3']);
  });

  it('takes the schemas of the all-clusters path from a cluster the user may read', async () => {
    const schemasOf = async (who: keyof typeof tokens): Promise<string | undefined> => {
      const r = await as(who)(`${P}/openapi/v3`);
      if (r.status !== 200) return `${r.status} ${String(r.json?.message)}`;
      const paths = (r.json?.paths ?? {}) as Record<string, { serverRelativeURL: string }>;
      return /\/clusters\/([^/]+)\/openapi\/v3\/api\/v1\?hash=/.exec(paths['api/v1']?.serverRelativeURL ?? '')?.[1];
    };
    expect(await schemasOf('alice')).toBe('c1');
    expect(await schemasOf('bob')).toBe('c2');
    expect(await schemasOf('nobody')).toBe('503 no member cluster to take the OpenAPI schemas from');
    // The documents the index points to are read through that cluster's path, authorized as such.
    expect((await as('bob')(`${P}/clusters/c2/openapi/v3/api/v1`)).status).toBe(200);
    expect((await as('alice')(`${P}/clusters/c2/openapi/v3/api/v1`)).status).toBe(403);
  });

  it('asks create on resources/exec and on the cluster itself: running a command in a cluster is more than reading it', async () => {
    await as('alice')(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/exec?command=sh`);
    const asked = d.sars.map((x) => x.resourceAttributes).filter((a) => a?.group === 'clusterpedia.io');
    expect(asked).toEqual([
      { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', subresource: 'exec', verb: 'create' },
      { group: 'clusterpedia.io', version: 'v1beta1', resource: 'clusters', name: 'c1', verb: 'create' },
    ]);
    d.sars.length = 0;
    await as('alice')(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/log`);
    // (alice's get on cluster c1 is cached from the reads above)
    expect(d.sars.map((x) => x.resourceAttributes).filter((a) => a?.group === 'clusterpedia.io')).toEqual([
      { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', subresource: 'log', verb: 'get' },
    ]);
  });
});
