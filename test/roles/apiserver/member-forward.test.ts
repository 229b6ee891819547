// A standalone apiserver forwards a pod's log (--allowed-proxy-subresources pods/log) with the member credentials of
// its PediaCluster: from the host cluster (the PediaCluster and its Secret, as Clusterpedia's apiserver reads them) or
// from --clusters files. The members are simulated kube-apiservers over TLS with a token.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSingleContainerRunning, kubeconfigFor, pediaClustersYaml, startSimulatedCluster, type SimCluster, type SimObject } from '../../../src/sim/index.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage, StoredJsonObject, UpsertObject } from '../../../src/storage/types.js';
import { silentLogger } from '../../../src/lib/log.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { healthyStatus } from '../../support/fixtures.js';
import { Kubectl, kubectlPath, kubectlVersion, oldestKubectl } from '../../support/kubectl.js';

let dir: string;
let host: SimCluster;
let m1: SimCluster;
let m2: SimCluster;
let storage: Storage;
let fromHost: TestApiserver;
let fromFile: TestApiserver;
let clustersFile: string;

function podRow(cluster: string, p: SimObject, resource = 'pods', kind = 'Pod'): UpsertObject {
  return { cluster, group: '', version: 'v1', resource, kind,
    // The member's object as JSON, as the synchro stores it.
    object: JSON.parse(JSON.stringify({ ...p, apiVersion: 'v1', kind, metadata: { ...p.metadata, annotations: { 'shadow.clusterpedia.io/cluster-name': cluster } } })) as StoredJsonObject };
}

/** A running one-container pod of the member. */
function runningPod(c: SimCluster): SimObject {
  const p = c.store.list('pods').find(isSingleContainerRunning);
  if (!p) throw new Error('no running one-container pod');
  return p;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-forward-'));
  host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
  m1 = await startSimulatedCluster({ name: 'm1', tls: true, pods: 6, seed: 3 });
  m2 = await startSimulatedCluster({ name: 'm2', tls: true, pods: 6, seed: 4 });
  // m1 by Secret reference (authenticationFrom), m2 inline: the two ways a PediaCluster carries credentials.
  host.store.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'm1-creds', namespace: 'clusterpedia-system' },
    data: { token: Buffer.from(m1.token ?? '').toString('base64'), ca: Buffer.from(m1.caData ?? '').toString('base64') } });
  host.store.create({ group: 'cluster.clusterpedia.io', resource: 'pediaclusters' }, { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name: 'm1' },
    spec: { apiserver: m1.url, authenticationFrom: { token: { name: 'm1-creds', key: 'token' }, ca: { name: 'm1-creds', key: 'ca' } } } });
  host.store.create({ group: 'cluster.clusterpedia.io', resource: 'pediaclusters' }, { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name: 'm2' },
    spec: { apiserver: m2.url, tokenData: Buffer.from(m2.token ?? '').toString('base64'), caData: Buffer.from(m2.caData ?? '').toString('base64') } });
  // m4 cannot be reached, m5 has no credential.
  host.store.create({ group: 'cluster.clusterpedia.io', resource: 'pediaclusters' }, { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name: 'm4' },
    spec: { apiserver: 'https://127.0.0.1:1', tokenData: Buffer.from('t0ken-m4').toString('base64'), caData: Buffer.from(m2.caData ?? '').toString('base64') } });
  host.store.create({ group: 'cluster.clusterpedia.io', resource: 'pediaclusters' }, { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name: 'm5' },
    spec: { apiserver: m2.url } });
  const hostKubeconfig = join(dir, 'host.kubeconfig');
  writeFileSync(hostKubeconfig, kubeconfigFor(host));
  clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, pediaClustersYaml([m1]));

  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  for (const c of ['m1', 'm2', 'm3', 'm4', 'm5']) await storage.putClusterStatus(c, healthyStatus(c));
  // m1's nodes, which kubectl top nodes reads (from storage) beside their metrics (from the member).
  await storage.write({ upserts: m1.store.list('nodes').map((n) => podRow('m1', n, 'nodes', 'Node')), deletes: [] });
  await storage.write({ upserts: [podRow('m1', runningPod(m1)), podRow('m2', runningPod(m2)), podRow('m3', runningPod(m2)), podRow('m4', runningPod(m2)), podRow('m5', runningPod(m2))], deletes: [] });
  fromHost = await startTestApiserver(storage, (o) => {
    o.kubeconfig = hostKubeconfig;
    o.forward = { subresources: ['pods/log', 'pods/exec'], requests: true, unsynced: false, proxyPath: true, metrics: false, openapi: false, secretsNamespace: 'clusterpedia-system' };
  });
  fromFile = await startTestApiserver(storage, (o) => {
    o.forward = { subresources: ['pods/log'], requests: false, unsynced: false, proxyPath: false, metrics: true, openapi: true, secretsNamespace: 'clusterpedia-system', clustersPath: clustersFile };
  });
}, 60_000);

afterAll(async () => {
  await fromHost?.stop();
  await fromFile?.stop();
  await storage?.close();
  for (const c of [host, m1, m2]) await c?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function logs(api: TestApiserver, cluster: string, p: SimObject, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const k = new Kubectl(`${api.resources}/clusters/${cluster}`);
  try {
    return await k.run(['logs', '-n', p.metadata.namespace ?? '', p.metadata.name ?? '', ...args]);
  } finally {
    k.dispose();
  }
}

const lastLine = (p: SimObject): string => `${p.metadata.namespace}/${p.metadata.name}/${(p.spec as { containers: { name: string }[] }).containers[0]?.name} line 10\n`;

describe('from the host cluster', () => {
  it("reads a log with a Secret-referenced token and with inline credentials, as clusterpedia-apiserver", async () => {
    for (const c of [m1, m2]) {
      const p = runningPod(c);
      const before = c.requestLog.entries((r) => r.path.endsWith('/log')).length;
      expect(await logs(fromHost, c.name, p, ['--tail=1'])).toMatchObject({ code: 0, stdout: lastLine(p) });
      const sent = c.requestLog.entries((r) => r.path.endsWith('/log'));
      expect(sent.length).toBe(before + 1);
      expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-apiserver/);
    }
  });

  it('a cluster without a PediaCluster, or with credentials that do not work, is a 503 that says so and names no secret', async () => {
    const p = runningPod(m2);
    const none = await fetch(`${fromHost.resources}/clusters/m3/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}/log`);
    expect(none.status).toBe(503);
    expect(await none.json()).toMatchObject({ kind: 'Status', message: 'cluster m3 has no PediaCluster to take its credentials from' });
    const answers: string[] = [];
    for (const [cluster, message] of [
      ['m4', /^cluster m4 could not be reached: /],
      ['m5', /^cluster m5's credentials are not usable: Cluster APIServer's Token or Cert is required$/],
    ] as const) {
      const r = await fetch(`${fromHost.resources}/clusters/${cluster}/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}/log`);
      expect(r.status, cluster).toBe(503);
      expect(r.headers.get('retry-after'), cluster).toBeNull();
      const body = (await r.json()) as { message: string };
      expect(body.message, cluster).toMatch(message);
      answers.push(JSON.stringify(body));
    }
    for (const secret of [m1.token, m2.token, 't0ken-m4']) expect(answers.join('')).not.toContain(secret);
  });
});

describe('forward, the proxy path and the caller\'s own credentials, from the host cluster', () => {
  it("answers a forwarded get and the proxy path with the PediaCluster's credentials, and a member clusterpedia holds no credential for with the caller's", async () => {
    const p = runningPod(m1);
    const ns = p.metadata.namespace ?? '';
    const got = await fetch(`${fromHost.resources}/clusters/m1/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { headers: { 'x-clusterpedia-forward': 'true' } });
    expect(((await got.json()) as SimObject).metadata.resourceVersion).toBe(m1.store.get('pods', ns, p.metadata.name ?? '')?.metadata.resourceVersion);
    expect(m1.requestLog.entries((r) => r.path === `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`).at(-1)?.userAgent).toMatch(/^clusterpedia-apiserver/);
    const listed = await fetch(`${fromHost.resources}/clusters/m2/proxy/api/v1/namespaces/${ns}/pods`);
    expect(((await listed.json()) as { kind: string }).kind).toBe('PodList');
    // Through the proxy path, the member's own paths in a proxied page's links and redirects are under that path.
    const web = m2.store.list('pods').find((x) => isSingleContainerRunning(x) && ((x.spec as { containers: { ports?: unknown[] }[] }).containers[0]?.ports ?? []).length > 0);
    const podPath = `/api/v1/namespaces/${web?.metadata.namespace ?? ''}/pods/${web?.metadata.name ?? ''}/proxy`;
    const viaPath = `${fromHost.resources}/clusters/m2/proxy`;
    expect(await (await fetch(`${viaPath}${podPath}/page`)).text()).toContain(`<a href="${new URL(viaPath).pathname}${podPath}/target">`);
    expect((await fetch(`${viaPath}${podPath}/redirect`, { redirect: 'manual' })).headers.get('location')).toBe(`${new URL(viaPath).pathname}${podPath}/target`);
    // m5's PediaCluster names m2's address but no credential: the caller's own reach it.
    const q = runningPod(m2);
    const log = `${fromHost.resources}/clusters/m5/api/v1/namespaces/${q.metadata.namespace}/pods/${q.metadata.name}/log?tailLines=1`;
    const own = await fetch(log, { headers: { 'x-clusterpedia-proxy-token': m2.token ?? '', 'x-clusterpedia-proxy-ca': Buffer.from(m2.caData ?? '').toString('base64') } });
    expect({ status: own.status, text: await own.text() }).toEqual({ status: 200, text: lastLine(q) });
    expect((await fetch(log)).status).toBe(503);
  });
});

describe('exec from the host cluster', () => {
  it("runs a command in the member with the PediaCluster's Secret-referenced token", async () => {
    const p = runningPod(m1);
    const k = new Kubectl(`${fromHost.resources}/clusters/m1`);
    try {
      const r = await k.run(['exec', '-n', p.metadata.namespace ?? '', p.metadata.name ?? '', '--', 'hostname']);
      expect(r, r.stderr).toMatchObject({ code: 0, stdout: `${p.metadata.name}\n` });
    } finally {
      k.dispose();
    }
    expect(m1.requestLog.entries((r) => r.path.endsWith('/exec')).at(-1)?.userAgent).toMatch(/^clusterpedia-apiserver/);
  });
});

describe('from --clusters files', () => {
  it('reads a log with the credentials of the file', async () => {
    const p = runningPod(m1);
    expect(await logs(fromFile, 'm1', p, ['--tail=1'])).toMatchObject({ code: 0, stdout: lastLine(p) });
    const missing = await logs(fromFile, 'm2', runningPod(m2));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/cluster m2 has no PediaCluster to take its credentials from/);
  });

  it("kubectl top through a cluster's path prints what it prints against the member itself (--forward-metrics)", async () => {
    const p = runningPod(m1);
    const ns = p.metadata.namespace ?? '';
    const app = p.metadata.labels?.app ?? '';
    const before = m1.requestLog.entries((r) => r.path.startsWith('/apis/metrics.k8s.io/')).length;
    for (const binary of [kubectlPath(), oldestKubectl()]) {
      const through = new Kubectl(`${fromFile.resources}/clusters/m1`, binary);
      const direct = new Kubectl(m1.url, binary, [`--token=${m1.token ?? ''}`]);
      try {
        for (const args of [['top', 'pods', '-A'], ['top', 'pods', '-A', '--containers'], ['top', 'pods', '-n', ns, '-l', `app=${app}`], ['top', 'pod', '-n', ns, p.metadata.name ?? ''], ['top', 'nodes']]) {
          const got = await through.run(args);
          expect(got.code, `${args.join(' ')}: ${got.stderr}`).toBe(0);
          expect(got).toEqual(await direct.run(args));
        }
        expect((await through.ok(['top', 'pods', '-A'])).trim().split('\n').length).toBeGreaterThan(2);
        // The member's own answers go back as it gave them: a pod it has no figures for, and no watch.
        const none = await through.run(['top', 'pod', '-n', ns, 'no-such-pod']);
        expect(none.stderr).toMatch(new RegExp(`podmetrics.metrics.k8s.io "${ns}/no-such-pod" not found`));
        // Metrics are read-only, as metrics-server's.
        expect((await fetch(`${fromFile.resources}/clusters/m1/apis/metrics.k8s.io/v1beta1/pods`, { method: 'POST', body: '{}' })).status).toBe(405);
        const watch = await through.run(['get', '--raw', `${new URL(fromFile.resources).pathname}/clusters/m1/apis/metrics.k8s.io/v1beta1/pods?watch=true`]);
        expect(watch.stderr).toMatch(/MethodNotAllowed|does not support|not supported/i);
      } finally {
        through.dispose();
        direct.dispose();
      }
    }
    const asked = m1.requestLog.entries((r) => r.path.startsWith('/apis/metrics.k8s.io/')).slice(before);
    // Each top through clusterpedia is one metrics request of clusterpedia's to the member (the rest are kubectl's own).
    expect(asked.filter((r) => /^clusterpedia-apiserver/.test(r.userAgent ?? '')).length).toBeGreaterThanOrEqual(2 * 6);
    // Discovery lists core pods and nodes beside PodMetrics and NodeMetrics, stored or not: m2's nodes are not stored
    // here, and kubectl still takes `nodes` for the core kind (never for NodeMetrics), and finds none of them.
    const m2Metrics = (await (await fetch(`${fromFile.resources}/clusters/m2/apis/metrics.k8s.io/v1beta1`)).json()) as { resources: { name: string }[] };
    expect(m2Metrics.resources.map((r) => r.name).sort()).toEqual(['nodes', 'pods']);
    const m2Core = (await (await fetch(`${fromFile.resources}/clusters/m2/api/v1`)).json()) as { resources: { name: string; kind: string }[] };
    expect(m2Core.resources.filter((r) => !r.name.includes('/')).map((r) => `${r.name}:${r.kind}`).sort()).toEqual(['nodes:Node', 'pods:Pod']);
    const throughM2 = new Kubectl(`${fromFile.resources}/clusters/m2`);
    try {
      const nodes = await throughM2.run(['get', 'nodes']);
      expect(nodes, nodes.stderr).toMatchObject({ code: 0, stdout: '' });
      expect(nodes.stderr).toMatch(/Warning: cluster m2 does not sync nodes: they are listed for metrics.k8s.io \(kubectl top\)/);
      expect(nodes.stderr).toMatch(/No resources found/);
      expect(await throughM2.ok(['get', 'pods', '-A', '-o', 'name'])).toBe(`pod/${runningPod(m2).metadata.name}\n`);
      const node = await throughM2.run(['get', 'node', 'no-such-node']);
      expect(node.stderr).toMatch(/nodes "no-such-node" not found/);
      // Read-only, as every synced type: 405, and 404 for a cluster that does not exist.
      expect((await fetch(`${fromFile.resources}/clusters/m2/api/v1/nodes`, { method: 'POST', body: '{}' })).status).toBe(405);
      expect((await fetch(`${fromFile.resources}/clusters/m9/api/v1/nodes`, { method: 'POST', body: '{}' })).status).toBe(404);
    } finally {
      throughM2.dispose();
    }
    // Where --forward-metrics is off, kubectl finds no metrics API.
    const off = new Kubectl(`${fromHost.resources}/clusters/m1`);
    try {
      const top = await off.run(['top', 'pods', '-A']);
      expect(top.code).not.toBe(0);
      expect(top.stderr).toMatch(/Metrics API not available/);
    } finally {
      off.dispose();
    }
  });

  it("kubectl explain through a cluster's path and the all-clusters path prints what it prints against the member (--forward-openapi)", async () => {
    // kubectl explains from OpenAPI v3 since 1.29, before from v2 in protobuf (passed on as the member sends it).
    for (const binary of [kubectlPath(), kubectlVersion('1.29'), oldestKubectl()]) {
      const direct = new Kubectl(m1.url, binary, [`--token=${m1.token ?? ''}`]);
      const throughs = [new Kubectl(`${fromFile.resources}/clusters/m1`, binary), new Kubectl(fromFile.resources, binary)];
      try {
        expect(await direct.ok(['explain', 'pods.spec.containers'])).toMatch(/FIELD: containers <\[\]Object>/);
        // (explain finds the resource in clusterpedia's discovery: what storage holds, here pods and nodes)
        for (const args of [['explain', 'pods'], ['explain', 'pods.spec.containers'], ['explain', 'nodes', '--recursive'], ['explain', 'po.status.containerStatuses.state']]) {
          const own = await direct.run(args);
          for (const through of throughs) {
            const got = await through.run(args);
            expect(got.code, `${args.join(' ')}: ${got.stderr}`).toBe(0);
            expect(got).toEqual(own);
          }
        }
      } finally {
        direct.dispose();
        for (const k of throughs) k.dispose();
      }
    }
    // The index sends kubectl into the member's path here, whichever path it was read through.
    const fleet = new Kubectl(fromFile.resources);
    const off = new Kubectl(`${fromHost.resources}/clusters/m1`);
    try {
      const index = JSON.parse(await fleet.ok(['get', '--raw', `${new URL(fromFile.resources).pathname}/openapi/v3`])) as { paths: Record<string, { serverRelativeURL: string }> };
      expect(index.paths['apis/apps/v1']?.serverRelativeURL).toMatch(/^\/apis\/clusterpedia\.io\/v1beta1\/resources\/clusters\/m1\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
      // Where --forward-openapi is off there is no schema to explain with.
      expect((await off.run(['explain', 'pods'])).code).not.toBe(0);
      // Encoded slashes and dots cannot turn an OpenAPI path into another read of the member's.
      const sent = m1.requestLog.entries((r) => r.path.startsWith('/api/v1/namespaces')).length;
      // (fetch, not kubectl get --raw, which would clean the path itself)
      const base = `${fromFile.resources}/clusters/m1/openapi/v3`;
      for (const url of [`${base}/x%2F..%2F..%2F..%2Fapi%2Fv1%2Fnamespaces`, `${base}/apis/..%2F..%2F..%2Fapi%2Fv1%2Fnamespaces/v1`]) {
        const r = await fetch(url);
        expect(r.status, url).toBe(404);
        expect(await r.json()).toMatchObject({ kind: 'Status', code: 404 });
      }
      expect(m1.requestLog.entries((r) => r.path.startsWith('/api/v1/namespaces')).length).toBe(sent);
    } finally {
      fleet.dispose();
      off.dispose();
    }
  });

  it('kubectl top through the all-clusters path merges what every member answers, and says which could not', async () => {
    const fleet = new Kubectl(fromFile.resources);
    const direct = new Kubectl(m1.url, undefined, [`--token=${m1.token ?? ''}`]);
    try {
      const own = await direct.ok(['top', 'pods', '-A']);
      // Storage knows m1..m5; only m1 has credentials here (--clusters file), so the others are left out, by name.
      const all = await fleet.run(['top', 'pods', '-A']);
      expect(all.code).toBe(0);
      expect(all.stdout).toBe(own);
      for (const c of ['m2', 'm3', 'm4', 'm5']) expect(all.stderr).toMatch(new RegExp(`Warning: PodMetrics of cluster ${c} are left out: cluster ${c} has no PediaCluster`));
      // Clusterpedia's clusters search label picks the members asked; the rest of the selector goes to them.
      const p = runningPod(m1);
      const app = p.metadata.labels?.app ?? '';
      const one = await fleet.run(['top', 'pods', '-A', '-l', `search.clusterpedia.io/clusters in (m1),app=${app}`]);
      expect(one).toEqual({ code: 0, stdout: await direct.ok(['top', 'pods', '-A', '-l', `app=${app}`]), stderr: '' });
      expect(await fleet.ok(['top', 'nodes', '-l', 'search.clusterpedia.io/clusters=m1'])).toBe(await direct.ok(['top', 'nodes']));
      // kubectl get of the metrics: a Table with the cluster first and top's figures.
      const figures = (out: string, cols: [number, number, number, number]): string[] => out.trim().split('\n').slice(1).map((l) => {
        const f = l.trim().split(/\s+/);
        return cols.map((i) => f[i]).join(' ');
      }).sort();
      const table = await fleet.ok(['get', 'pods.metrics.k8s.io', '-A', '-l', 'search.clusterpedia.io/clusters=m1']);
      expect(table.split('\n')[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+NAME\s+CPU\(CORES\)\s+MEMORY\(BYTES\)\s+WINDOW\s+AGE$/);
      expect(table.trim().split('\n').slice(1).every((l) => /^\S+\s+m1\s/.test(l))).toBe(true);
      expect(figures(table, [0, 2, 3, 4])).toEqual(figures(await direct.ok(['top', 'pods', '-A']), [0, 1, 2, 3]));
      // Each item says which cluster it came from, as stored objects do.
      const raw = JSON.parse(await fleet.ok(['get', '--raw', `${new URL(fromFile.resources).pathname}/apis/metrics.k8s.io/v1beta1/pods?labelSelector=search.clusterpedia.io/clusters%3Dm1`])) as
        { kind: string; items: { metadata: { annotations?: Record<string, string> } }[] };
      expect(raw.kind).toBe('PodMetricsList');
      expect(raw.items.length).toBeGreaterThan(0);
      expect(raw.items.every((i) => i.metadata.annotations?.['shadow.clusterpedia.io/cluster-name'] === 'm1')).toBe(true);
      // A name is only unique within a cluster; other search labels do not apply to the members' lists.
      const named = await fleet.run(['top', 'pod', '-n', p.metadata.namespace ?? '', p.metadata.name ?? '']);
      expect(named.stderr).toMatch(/please specify the cluster name when using the resource name/);
      const owner = await fleet.run(['top', 'pods', '-A', '-l', 'search.clusterpedia.io/owner-name=web']);
      expect(owner.stderr).toMatch(/only search\.clusterpedia\.io\/clusters applies \(not owner-name\)/);
    } finally {
      fleet.dispose();
      direct.dispose();
    }
  });
});
