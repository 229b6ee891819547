// Full discovery of a member: every group version's resources, read a few at a time over HTTP/1.1 (a connection
// each) and all at once over HTTP/2 (one connection), or taken from aggregated discovery where the member serves it;
// the poll's 304s and what changes its fingerprint.
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { discover, discoverGroups, nameList, type DiscoveryTags } from '../../src/kube/discovery.js';
import { kubeConfigFromString } from '../../src/kube/kubeconfig.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

const running: { sim: SimCluster; client: KubeClient }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.client.close();
    await r.sim.stop();
  }
});

/** A group version's resource list (/api/v1, /apis/<group>/<version>), not a group or a collection. */
const isGroupVersion = (path: string): boolean => /^\/api\/v1$|^\/apis\/[^/]+\/[^/]+$/.test(path);

/** The most group version reads the member had in flight at once (an answer's end before a start of the same ms). */
function mostInFlight(sim: SimCluster): number {
  const edges = sim.requestLog.entries((r) => isGroupVersion(r.path)).flatMap((r) => [
    { at: r.startedAt, d: 1 },
    { at: r.startedAt + (r.durationMs ?? Infinity), d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

async function discovered(o: { tls: boolean; http2: boolean }): Promise<{ sim: SimCluster; gvs: number; resources: string[]; inFlight: number; protocol: string | undefined }> {
  const sim = await startSimulatedCluster({ pods: 5, seed: 3, ...o });
  const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
  running.push({ sim, client });
  // Each answer waits: reads sent together overlap at the member.
  sim.faults.slow(40);
  const d = await discover(client);
  return {
    sim,
    gvs: sim.requestLog.entries((r) => isGroupVersion(r.path)).length,
    resources: d.resources.map((r) => `${r.group}/${r.version}/${r.resource}`),
    inFlight: mostInFlight(sim),
    protocol: client.protocol,
  };
}

describe('discover', () => {
  it('over HTTP/1.1 reads at most 4 group versions at once, every one of them', async () => {
    const h1 = await discovered({ tls: false, http2: false });
    expect(h1.protocol).toBe('http/1.1');
    expect(h1.gvs).toBeGreaterThan(8);
    expect(h1.inFlight).toBe(4);
    expect(h1.resources).toEqual(expect.arrayContaining(['/v1/pods', 'apps/v1/deployments', 'batch/v1/jobs']));
    // Nothing is left out or read twice: one resource list per group version the member serves.
    expect(new Set(h1.resources).size).toBe(h1.resources.length);
  });

  it('over HTTP/2 reads every group version at once, on one connection', async () => {
    const h2 = await discovered({ tls: true, http2: true });
    expect(h2.protocol).toBe('h2');
    expect(h2.inFlight).toBe(h2.gvs);
    expect(h2.sim.openConnections).toBe(1);
    const h1 = await discovered({ tls: false, http2: false });
    // The same member's discovery either way, in the same order.
    expect(h2.resources).toEqual(h1.resources);
  });
});

describe('aggregated discovery', () => {
  async function member(aggregatedDiscovery: boolean): Promise<{ sim: SimCluster; client: KubeClient }> {
    const sim = await startSimulatedCluster({ pods: 5, seed: 3, aggregatedDiscovery });
    const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
    running.push({ sim, client });
    return { sim, client };
  }

  it('finds what the legacy documents give, from /api and /apis alone', async () => {
    const legacy = await member(false);
    const aggregated = await member(true);
    const expected = await discover(legacy.client);
    const d = await discover(aggregated.client);
    expect(d).toEqual(expected);
    expect(d.resources.length).toBeGreaterThan(20);
    // A custom resource's names as its CRD gives them, which clusterpedia's discovery serves without the CRD synced.
    expect(d.resources.find((r) => r.resource === 'certificates')).toMatchObject({ singular: 'certificate', shortNames: ['cert', 'certs'], categories: ['cert-manager'] });
    expect(d.resources.find((r) => r.resource === 'pods')).toMatchObject({ shortNames: ['po'], categories: ['all'] });
    expect(d.crds?.length).toBeGreaterThan(1);
    expect(aggregated.sim.requestLog.entries((r) => isGroupVersion(r.path))).toEqual([]);
    expect(legacy.sim.requestLog.entries((r) => isGroupVersion(r.path)).length).toBeGreaterThan(8);
    // The CRDs' names are all it needs of them; the legacy member's CRDs are read whole.
    const crdReads = (sim: SimCluster): string[] => sim.requestLog.entries((r) => r.path.endsWith('/customresourcedefinitions')).map((r) => r.accept);
    expect(crdReads(aggregated.sim)).toEqual([expect.stringMatching(/^application\/json;as=PartialObjectMetadataList/)]);
    expect(crdReads(legacy.sim)).toEqual(['application/json']);
  });

  it('polls with If-None-Match: an unchanged member answers 304, and a change of its resources alone is seen', async () => {
    const { sim, client } = await member(true);
    const tags: DiscoveryTags = new Map();
    const first = await discoverGroups(client, undefined, tags);
    expect([...tags.keys()].sort()).toEqual(['/api', '/apis']);
    expect(first.read?.described.get('apps/v1')?.map((r) => r.resource)).toEqual(expect.arrayContaining(['deployments', 'replicasets']));
    sim.requestLog.clear();
    const second = await discoverGroups(client, undefined, tags);
    // Nothing else is read: aggregated discovery describes the CRDs' resources.
    expect(sim.requestLog.entries().map((r) => `${r.path} ${r.status}`).sort()).toEqual(['/api 304', '/apis 304']);
    expect(second.read).toBeUndefined();
    expect(second.fingerprint).toBe(first.fingerprint);
    // Its aggregated API server going down changes no group, no CRD: only the resources aggregated discovery lists.
    sim.faults.unavailable('metrics.k8s.io/v1beta1');
    const down = await discoverGroups(client, undefined, tags);
    expect(down.fingerprint).not.toBe(first.fingerprint);
    const d = await discover(client, undefined, { read: down.read! });
    expect(d.failed).toEqual(['metrics.k8s.io/v1beta1']);
    expect(d.resources.filter((r) => r.group === 'metrics.k8s.io')).toEqual([]);
    expect(d.groups.find((g) => g.name === 'metrics.k8s.io')?.versions).toEqual(['v1beta1']);
    sim.faults.clear();
    expect((await discoverGroups(client, undefined, tags)).fingerprint).toBe(first.fingerprint);
    // A CRD added is seen in the groups' answer alone.
    sim.addCRD({ group: 'widgets.example.com', plural: 'widgets', kind: 'Widget', scope: 'Namespaced', versions: [{ name: 'v1' }, { name: 'v1beta1' }] });
    const added = await discoverGroups(client, undefined, tags);
    expect(added.fingerprint).not.toBe(first.fingerprint);
    expect((await discover(client, undefined, { read: added.read! })).crds).toContainEqual({ group: 'widgets.example.com', plural: 'widgets', kind: 'Widget', servedVersions: ['v1', 'v1beta1'] });
    expect(sim.requestLog.entries((r) => r.path.endsWith('/customresourcedefinitions') && !r.accept.includes('PartialObjectMetadataList'))).toEqual([]);
  });

  it('a legacy member keeps no tag, and its poll reads the groups every time', async () => {
    const { sim, client } = await member(false);
    const tags: DiscoveryTags = new Map();
    const first = await discoverGroups(client, undefined, tags);
    const second = await discoverGroups(client, undefined, tags);
    expect(tags.size).toBe(0);
    expect(second.read?.groups).toEqual(first.read?.groups);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(sim.requestLog.entries((r) => r.path === '/apis').map((r) => r.status)).toEqual([200, 200]);
    // A CRD added changes the groups and the CRDs.
    sim.addCRD({ group: 'widgets.example.com', plural: 'widgets', kind: 'Widget', scope: 'Namespaced', versions: [{ name: 'v1' }] });
    expect((await discoverGroups(client, undefined, tags)).fingerprint).not.toBe(first.fingerprint);
  });
});

describe('nameList', () => {
  it('takes the DNS labels of a list, at most 32, and nothing of anything else', () => {
    expect(nameList(['cert', 'certs', 'cert-manager', '9p'])).toEqual(['cert', 'certs', 'cert-manager', '9p']);
    expect(nameList(['ok', 7, null, '', 'Upper', 'a b', '-x', 'x-', 'a'.repeat(64), { n: 1 }, 'a'.repeat(63)])).toEqual(['ok', 'a'.repeat(63)]);
    expect(nameList('cert')).toEqual([]);
    expect(nameList(undefined)).toEqual([]);
    expect(nameList(Array.from({ length: 100 }, (_, i) => `n${i}`))).toHaveLength(32);
  });
});
