// End to end: the built bundle in `binding` mode syncs simulated members over TLS+token; kubectl and client-node use it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kubectl, kubectlPath, oldestKubectl } from '../support/kubectl.js';
import type { BundleProcess } from '../support/bundle.js';
import { freePort } from '../support/postgres-server.js';
import { defaultSyncResources, type SimObject } from '../../src/sim/index.js';
import { significantStatus, type PediaCluster } from '../../src/kube/pediacluster.js';
import { call } from '../sim/helpers.js';
import { memberPodKeys, onMemberAndThrough, startBinding, startFleet, waitConverged, type Fleet } from './helpers.js';

let f: Fleet;
let proc: BundleProcess;
let base: string;
let storage: string;
let port: number;
const P = '/apis/clusterpedia.io/v1beta1/resources';

beforeAll(async () => {
  // events.k8s.io too: the members serve their Events there as well, as kube-apiserver does.
  f = await startFleet({ clusters: 2, pods: 25, seed: 11, sync: [...defaultSyncResources(), { group: 'events.k8s.io', resources: ['events'] }] });
  storage = `sqlite:${join(f.dir, 'cp.db')}`;
  // A fixed port: the restart test brings clusterpedia back at the same address, as a Service would.
  port = await freePort();
  ({ proc, base } = await startBinding(f, storage, [], port));
  await waitConverged(base, f.fleet);
}, 120_000);

afterAll(async () => {
  await proc?.stop();
  await f?.dispose();
});

for (const [label, binary] of [['dispatcher', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
  describe(`kubectl (${label}) against the bundle`, () => {
    it('get pods -A shows a CLUSTER column and every pod of every member', async () => {
      const k = new Kubectl(`${base}${P}`, binary);
      try {
        const out = await k.ok(['get', 'pods', '-A']);
        const lines = out.trim().split('\n');
        expect(lines[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
        const keys = lines.slice(1).map((l) => l.split(/\s+/)).map(([ns, cluster, name]) => `${cluster}/${ns}/${name}`).sort();
        expect(keys).toEqual(memberPodKeys(f.fleet));
      } finally {
        k.dispose();
      }
    });

    it('--chunk-size 7 returns the same set as an unchunked list', async () => {
      const k = new Kubectl(`${base}${P}`, binary);
      try {
        const whole = await k.ok(['get', 'pods', '-A', '-o', 'custom-columns=C:.metadata.annotations.shadow\\.clusterpedia\\.io/cluster-name,N:.metadata.namespace,P:.metadata.name', '--no-headers']);
        const chunked = await k.ok(['get', 'pods', '-A', '-o', 'custom-columns=C:.metadata.annotations.shadow\\.clusterpedia\\.io/cluster-name,N:.metadata.namespace,P:.metadata.name', '--no-headers', '--chunk-size=7']);
        expect(chunked).toBe(whole);
        expect(whole.trim().split('\n').length).toBe(memberPodKeys(f.fleet).length);
      } finally {
        k.dispose();
      }
    });
  });
}

describe('kubectl through the bundle', () => {
  it('-l, --field-selector, -n and -o formats select like the members do', async () => {
    const k = new Kubectl(`${base}${P}`);
    try {
      const member = f.fleet.clusters.flatMap((c) => c.store.list('pods').map((p) => ({ c: c.name, p })));
      const running = member.filter((x) => (x.p.status as { phase?: string } | undefined)?.phase === 'Running').length;
      const out = await k.ok(['get', 'pods', '-A', '--field-selector', 'status.phase=Running', '-o', 'name']);
      expect(out.trim().split('\n').length).toBe(running);
      const app = (member[0]?.p.metadata?.labels ?? {}).app ?? '';
      const withApp = member.filter((x) => x.p.metadata?.labels?.app === app).length;
      expect((await k.ok(['get', 'pods', '-A', '-l', `app=${app}`, '-o', 'name'])).trim().split('\n').length).toBe(withApp);
      const ns = member[0]?.p.metadata?.namespace ?? 'default';
      const inNs = member.filter((x) => x.p.metadata?.namespace === ns).length;
      expect((await k.ok(['get', 'pods', '-n', ns, '-o', 'name'])).trim().split('\n').length).toBe(inNs);
      const json = JSON.parse(await k.ok(['get', 'deployments', '-A', '-o', 'json'])) as { items: unknown[] };
      expect(json.items.length).toBe(f.fleet.clusters.reduce((n, c) => n + c.store.count('deployments.apps'), 0));
      expect(await k.ok(['get', 'pods', '-A', '-o', 'wide'])).toMatch(/NOMINATED NODE/);
      expect(await k.ok(['api-resources'])).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m);
    } finally {
      k.dispose();
    }
  });

  it('events.k8s.io Events: kubectl prints them with a CLUSTER column, and selects with that version\'s field labels', async () => {
    const k = new Kubectl(`${base}${P}`);
    try {
      const member = f.fleet.clusters.flatMap((c) => c.store.list('events.events.k8s.io').map((e) => ({ c: c.name, e })));
      const about = (member[0]!.e.regarding as { kind: string; name: string });
      const regarding = member.filter((x) => (x.e.regarding as { name?: string }).name === about.name).map((x) => `${x.c}/${x.e.metadata.name}`).sort();
      // Synced beside the core Events (the initial lists may still be running).
      let out = '';
      for (let i = 0; i < 80; i++) {
        out = await k.ok(['get', 'events.v1.events.k8s.io', '-A', '--no-headers', '-o', 'custom-columns=C:.metadata.annotations.shadow\\.clusterpedia\\.io/cluster-name,N:.metadata.name']);
        if (out.trim().split('\n').length >= member.length) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(out.trim().split('\n').map((l) => l.split(/\s+/).join('/')).sort()).toEqual(member.map((x) => `${x.c}/${x.e.metadata.name}`).sort());
      const table = await k.ok(['get', 'events.events.k8s.io', '-A']);
      expect(table.split('\n')[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
      expect(table).toContain(String(member[0]!.e.note));
      const names = async (selector: string): Promise<string[]> => {
        const out = await k.ok(['get', 'events.events.k8s.io', '-A', '--field-selector', selector, '--no-headers', '-o', 'custom-columns=C:.metadata.annotations.shadow\\.clusterpedia\\.io/cluster-name,N:.metadata.name']);
        return out.trim() === '' ? [] : out.trim().split('\n').map((l) => l.split(/\s+/).join('/')).sort();
      };
      expect(await names(`regarding.name=${about.name}`)).toEqual(regarding);
      // Labels kube renders (source: the component, else the reporting controller), as the members answer them.
      for (const selector of ['source=default-scheduler', 'source=kubelet', 'regarding.fieldPath=']) {
        const answered: string[] = [];
        for (const c of f.fleet.clusters) {
          const r = await call<{ items: { metadata: { name: string } }[] }>(c, `/apis/events.k8s.io/v1/events?fieldSelector=${encodeURIComponent(selector)}`);
          answered.push(...r.body.items.map((e) => `${c.name}/${e.metadata.name}`));
        }
        expect(answered.length, selector).toBeGreaterThan(0);
        expect(await names(selector), selector).toEqual(answered.sort());
      }
    } finally {
      k.dispose();
    }
  });

  it('get -w prints a change made in a member', async () => {
    const k = new Kubectl(`${base}${P}`);
    const c = f.fleet.clusters[1]!;
    // A namespace with pods, so kubectl prints the header (from the list) before the change.
    const ns = c.store.list('pods')[0]?.metadata?.namespace ?? 'default';
    const w = k.spawn(['get', 'pods', '-n', ns, '-w']);
    try {
      await w.waitFor(/CLUSTER/);
      c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'watched-e2e', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      await w.waitFor(new RegExp(`${c.name}\\s+watched-e2e`));
    } finally {
      w.child.kill();
      k.dispose();
    }
  });

  it("an operator's kubectl scale and rollout restart on a member show through clusterpedia, rollout status included", async () => {
    const c = f.fleet.clusters[0]!;
    const replicas = (o: SimObject): number => Number((o.spec as { replicas?: number } | undefined)?.replicas ?? 0);
    const d = c.store.list('deployments.apps').find((x) => x.metadata?.namespace !== 'kube-system' && replicas(x) >= 1)!;
    const ns = d.metadata!.namespace!;
    const name = d.metadata!.name!;
    const app = (d.spec as { selector: { matchLabels: { app: string } } }).selector.matchLabels.app;
    await onMemberAndThrough(base, c, async (member, ours) => {
      for (const args of [['scale', 'deployment', name, '-n', ns, `--replicas=${replicas(d) + 2}`], ['rollout', 'restart', `deployment/${name}`, '-n', ns]]) {
        const r = await member.run(args);
        expect(r.code, r.stderr).toBe(0);
      }
      const status = await ours.run(['rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout=60s']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(`deployment "${name}" successfully rolled out`);
      // The pods clusterpedia serves are the member's, once the old ones are gone.
      const podsOn = async (k: Kubectl): Promise<string> => (await k.run(['get', 'pods', '-n', ns, '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.phase}{"\\n"}{end}'])).stdout.split('\n').filter(Boolean).sort().join('\n');
      await vi.waitFor(async () => {
        const want = await podsOn(member);
        expect(want.split('\n')).toHaveLength(replicas(d) + 2);
        expect(await podsOn(ours)).toBe(want);
      }, { timeout: 30_000, interval: 500 });
    });
  });

  it('a StatefulSet restarted on a member: the oldest kubectl follows its pod-by-pod rollout through clusterpedia to the end', async () => {
    const c = f.fleet.clusters[1]!;
    const file = join(f.dir, 'sts.yaml');
    writeFileSync(file, 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: e2e-db, namespace: default}\nspec:\n  replicas: 3\n  serviceName: e2e-db\n  selector: {matchLabels: {app: e2e-db}}\n  template:\n    metadata: {labels: {app: e2e-db}}\n    spec:\n      containers: [{name: db, image: "postgres:16"}]\n');
    await onMemberAndThrough(base, c, async (member, ours) => {
      const revisions = async (): Promise<string[]> =>
        (await ours.ok(['get', 'pods', '-n', 'default', '-l', 'app=e2e-db', '-o', 'jsonpath={range .items[*]}{.metadata.labels.controller-revision-hash}{"\\n"}{end}'])).trim().split('\n').filter(Boolean);
      for (const args of [['apply', '-f', file], ['rollout', 'status', 'statefulset/e2e-db', '-n', 'default', '--timeout=60s'], ['rollout', 'restart', 'statefulset/e2e-db', '-n', 'default']]) {
        const r = await member.run(args);
        expect(r.code, r.stderr).toBe(0);
      }
      const update = (c.store.get('statefulsets.apps', 'default', 'e2e-db')?.status as { updateRevision: string; currentRevision: string });
      expect(update.updateRevision).not.toBe(update.currentRevision);
      const status = await ours.run(['rollout', 'status', 'statefulset/e2e-db', '-n', 'default', '--timeout=90s']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout.trim().split('\n').at(-1)).toBe('partitioned roll out complete: 3 new pods have been updated...');
      // The pods clusterpedia serves are all at the member's new revision once the last one is in.
      await vi.waitFor(async () => expect(await revisions()).toEqual([update.updateRevision, update.updateRevision, update.updateRevision]), { timeout: 15_000, interval: 300 });
      // Its rollout history through clusterpedia is the member's (to the same kubectl): kubectl reads the
      // ControllerRevisions synced from it.
      const direct = new Kubectl(c.url, oldestKubectl(), [`--token=${c.token ?? ''}`]);
      try {
        for (const args of [['rollout', 'history', 'statefulset/e2e-db', '-n', 'default'], ['rollout', 'history', 'statefulset/e2e-db', '-n', 'default', '--revision=2']]) {
          const want = await direct.ok(args);
          expect(want).toContain(args.length > 5 ? 'kubectl.kubernetes.io/restartedAt' : '2         <none>');
          await vi.waitFor(async () => expect(await ours.ok(args)).toBe(want), { timeout: 15_000, interval: 300 });
        }
      } finally {
        direct.dispose();
      }
    }, oldestKubectl());
  });

  it("a Job applied on a member runs there, and kubectl wait --for=condition=complete through clusterpedia sees it end", async () => {
    const c = f.fleet.clusters[0]!;
    c.churn.batch.jobRunMs = 1_000;
    c.churn.batch.failureShare = 0;
    const file = join(f.dir, 'job.yaml');
    writeFileSync(file, 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: e2e-backfill, namespace: default}\nspec:\n  completions: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: work, image: "busybox:1.36"}]\n');
    await onMemberAndThrough(base, c, async (member, ours) => {
      const applied = await member.run(['apply', '-f', file]);
      expect(applied.code, applied.stderr).toBe(0);
      // kubectl wait lists and watches the one Job by name (a field selector) through clusterpedia's cluster path.
      const waited = await ours.run(['wait', '--for=condition=complete', 'job/e2e-backfill', '-n', 'default', '--timeout=60s']);
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stdout.trim()).toBe('job.batch/e2e-backfill condition met');
      const row = await ours.ok(['get', 'job', 'e2e-backfill', '-n', 'default', '--no-headers']);
      expect(row.split(/\s+/)).toContain('2/2');
      await vi.waitFor(async () => {
        const phases = await ours.ok(['get', 'pods', '-n', 'default', '-l', 'job-name=e2e-backfill', '-o', 'jsonpath={.items[*].status.phase}']);
        expect(phases.trim()).toBe('Succeeded Succeeded');
      }, { timeout: 15_000, interval: 300 });
    });
  });

  it('kubectl get -o wide prints every synced built-in kind from a member as through clusterpedia (two printers, written apart)', async () => {
    // A member with a StatefulSet's claims (the generated fleet's are fixed by its seed).
    const c = f.fleet.clusters.find((x) => x.store.list('persistentvolumeclaims').length > 0)!;
    // Clusterpedia's table has a CLUSTER column, after NAMESPACE (or first, for a cluster-scoped kind): take it out.
    const withoutCluster = (out: string): string => out.split('\n').map((l) => l.replace(new RegExp(`^((?:\\S+\\s+)?)(?:CLUSTER|${c.name})\\s+`), '$1')).sort().join('\n');
    // A claim and its volume deleted while a pod runs on them: both stay, printed Terminating (the protection finalizers).
    const claim = c.store.list('persistentvolumeclaims')[0]!;
    const volume = String((claim.spec as { volumeName?: string }).volumeName);
    await onMemberAndThrough(base, c, async (member, ours) => {
      await member.ok(['delete', 'pvc', claim.metadata!.name!, '-n', claim.metadata!.namespace!, '--wait=false']);
      await member.ok(['delete', 'pv', volume, '--wait=false']);
      await vi.waitFor(async () => expect(await ours.ok(['get', 'pv', volume, '--no-headers'])).toMatch(/\sTerminating\s/), { timeout: 15_000, interval: 200 });
      for (const kind of ['pods', 'nodes', 'namespaces', 'services', 'configmaps', 'secrets', 'serviceaccounts', 'events', 'persistentvolumeclaims', 'persistentvolumes', 'deployments', 'replicasets', 'statefulsets', 'daemonsets', 'controllerrevisions', 'jobs', 'cronjobs', 'ingresses', 'events.events.k8s.io']) {
        const args = ['get', kind, ...(['nodes', 'namespaces', 'persistentvolumes'].includes(kind) ? [] : ['-A']), '-o', 'wide'];
        let want = '';
        let got = '';
        // An AGE may turn over between the two reads, and a change may still be on its way (an empty type is listed
        // once its cluster's status names it): a few tries.
        for (let i = 0; i < 20; i++) {
          want = (await member.ok(args)).split('\n').sort().join('\n');
          const o = await ours.run(args);
          got = o.code === 0 ? withoutCluster(o.stdout) : o.stderr;
          if (got === want) break;
          await new Promise((r) => setTimeout(r, 300));
        }
        expect(got, kind).toBe(want);
      }
    });
  });

  it('--raw with each search parameter', async () => {
    const k = new Kubectl(`${base}${P}`);
    const raw = async (q: string): Promise<{ items: { metadata: { name: string; namespace: string; creationTimestamp: string; annotations?: Record<string, string> } }[]; metadata: Record<string, unknown> }> =>
      JSON.parse(await k.ok(['get', '--raw', `${P}/api/v1/pods?${q}`])) as never;
    try {
      const [c1, c2] = f.fleet.clusters;
      const cl = (x: { metadata: { annotations?: Record<string, string> } }): string => x.metadata.annotations?.['shadow.clusterpedia.io/cluster-name'] ?? '';
      expect((await raw(`clusters=${c1!.name}`)).items.every((i) => cl(i) === c1!.name)).toBe(true);
      const ns = c2!.store.list('pods')[0]?.metadata?.namespace ?? 'default';
      expect((await raw(`namespaces=${ns}`)).items.every((i) => i.metadata.namespace === ns)).toBe(true);
      const name = c2!.store.list('pods')[0]?.metadata?.name ?? '';
      expect((await raw(`names=${name}`)).items.map((i) => i.metadata.name)).toContain(name);
      const ordered = (await raw('orderby=created_at%20desc')).items.map((i) => i.metadata.creationTimestamp);
      expect([...ordered].sort().reverse()).toEqual(ordered);
      const dep = c1!.store.list('deployments.apps')[0]!;
      const owned = await raw(`clusters=${c1!.name}&ownerName=${dep.metadata?.name}&ownerGR=deployments.apps&ownerSeniority=1&namespaces=${dep.metadata?.namespace}`);
      const expected = c1!.store.list('pods').filter((p) => p.metadata?.ownerReferences?.[0]?.name?.startsWith(`${dep.metadata?.name}-`)).length;
      expect(owned.items.length).toBe(expected);
      const since = (await raw('since=2000-01-01&before=2100-01-01')).items.length;
      expect(since).toBe(memberPodKeys(f.fleet).length);
      const page = await raw('limit=5&withRemainingCount=true');
      expect(page.items.length).toBe(5);
      expect(page.metadata.remainingItemCount).toBe(memberPodKeys(f.fleet).length - 5);
      expect(typeof page.metadata.continue).toBe('string');
      const meta = await raw('onlyMetadata=true&limit=1');
      expect(Object.keys(meta.items[0]!).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      const fuzzy = await raw(`labelSelector=${encodeURIComponent(`internalstorage.clusterpedia.io/fuzzy-name=${name.slice(0, 4)}`)}`);
      expect(fuzzy.items.every((i) => i.metadata.name.includes(name.slice(0, 4)))).toBe(true);
    } finally {
      k.dispose();
    }
  });

  it('bad inputs get a 4xx Status, never a 5xx', async () => {
    const bad = [
      'labelSelector=app%20in%20(', 'fieldSelector=spec.containers%5B%5D%3D%3Dx', 'limit=abc', 'continue=%25%25notatoken', 'since=20240101x',
      'orderby=name%3B%20drop%20table%20resources', 'ownerName=x', 'timeoutSeconds=-1', 'resourceVersionMatch=Bogus&resourceVersion=1',
      'labelSelector=search.clusterpedia.io%2Fclusters%3D%27%20OR%201%3D1%20--', 'names=%27%20OR%201%3D1%20--', 'limit=99999999999999999999',
    ];
    for (const q of bad) {
      const r = await fetch(`${base}${P}/api/v1/pods?${q}`);
      const body = (await r.json()) as { kind?: string; items?: unknown[] };
      expect(r.status, q).toBeLessThan(500);
      if (r.status >= 400) expect(body.kind, q).toBe('Status');
      else expect(body.items?.length ?? 0, q).toBe(0);
    }
    // Forwarding to members is off unless asked for (--allow-pediacluster-config-for-proxy-request): a clear 400.
    const member = f.fleet.clusters[0]?.name ?? '';
    const forwarded = await fetch(`${base}${P}/clusters/${member}/api/v1/pods?labelSelector=search.clusterpedia.io%2Fforward`);
    expect(forwarded.status).toBe(400);
    expect(await forwarded.json()).toMatchObject({ message: 'forwarding to member clusters is not enabled here (--allow-pediacluster-config-for-proxy-request)' });
    const byHeader = await fetch(`${base}${P}/clusters/${member}/api/v1/pods`, { headers: { 'x-clusterpedia-forward': 'true' } });
    expect(byHeader.status).toBe(400);
    // So is the proxy path (--enable-proxy-path-for-forward-request).
    expect((await fetch(`${base}${P}/clusters/${member}/proxy/api/v1/pods`)).status).toBe(404);
    for (const p of [`${P}/api/v1/nothings`, `${P}/apis/x.io/v1/y`, `${P}/clusters/nope/api/v1/pods`, '/apis/clusterpedia.io/v1beta1/collectionresources/nope', `${P}/api/v9/pods`]) {
      const r = await fetch(`${base}${p}`);
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      expect(r.status, p).toBeLessThan(500);
      expect(((await r.json()) as { kind: string }).kind, p).toBe('Status');
    }
  });
});

/** What a PediaCluster watch sends at once when it changes (significantStatus), for every cluster the read API serves. */
async function significantStatuses(): Promise<string> {
  const items = ((await (await fetch(`${base}/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters`)).json()) as { items: PediaCluster[] }).items;
  return JSON.stringify(items.map((i) => [i.metadata.name, significantStatus(i.status ?? {})]));
}

/** Until the clusters' significant statuses read the same for `quietMs` (the tests before this one changed members). */
async function statusesSettled(quietMs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await significantStatuses();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`the clusters' statuses did not settle in ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 250));
    const now = await significantStatuses();
    if (now !== last) [last, since] = [now, Date.now()];
  }
}

describe('kubectl get pediaclusters -w', () => {
  it('prints the clusters once, then a row for a cluster whose health changes', async () => {
    const k = new Kubectl(base);
    const c = f.fleet.clusters[0]!;
    await statusesSettled(3_000, 30_000);
    const before = await significantStatuses();
    const w = k.spawn(['get', 'pediaclusters', '-w']);
    try {
      await w.waitFor(new RegExp(`${f.fleet.clusters[1]!.name}\\s+True`));
      // The watch starts from the list's resourceVersion: nothing is printed twice while nothing changes. A status
      // that does change meanwhile (a member closing a watch, a sync condition's last error) is a row to print, so
      // the statuses are read all along and the count is checked only when they never moved.
      let moved = false;
      for (const until = Date.now() + 2_500; Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 250));
        moved ||= (await significantStatuses()) !== before;
      }
      const quiet = w.out().trim().split('\n');
      if (!moved) expect(quiet, w.out()).toHaveLength(1 + f.fleet.clusters.length);
      await c.faults.down();
      await w.waitFor(new RegExp(`^${c.name}\\s+False`, 'm'), 20_000);
    } finally {
      await c.faults.up();
      w.child.kill();
      k.dispose();
    }
    await waitConverged(base, f.fleet);
  });
});

describe('client-node informer across a restart of clusterpedia', () => {
  it('ends with every member pod, changes made while clusterpedia was down included', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'cp', server: `${base}${P}`, skipTLSVerify: true }],
      users: [{ name: 'u' }], contexts: [{ name: 'cp', cluster: 'cp', user: 'u' }], currentContext: 'cp',
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
    const seen = new Map<string, string>();
    const key = (p: k8s.V1Pod): string => `${p.metadata?.annotations?.['shadow.clusterpedia.io/cluster-name'] ?? ''}/${p.metadata?.namespace}/${p.metadata?.name}`;
    informer.on('add', (p) => seen.set(key(p), 'add'));
    informer.on('update', (p) => seen.set(key(p), 'update'));
    informer.on('delete', (p) => seen.delete(key(p)));
    let restarts = 0;
    informer.on('error', () => {
      // client-node stops on connection errors: an application restarts it (what every informer user does).
      restarts++;
      setTimeout(() => void informer.start().catch(() => undefined), 500);
    });
    await informer.start();
    try {
      expect([...seen.keys()].sort()).toEqual(memberPodKeys(f.fleet));
      await proc.stop();
      const c = f.fleet.clusters[0]!;
      c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'while-down', namespace: 'default' }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      const victim = c.store.list('pods')[0]!;
      c.store.delete('pods', victim.metadata?.namespace, victim.metadata?.name ?? '');
      ({ proc, base } = await startBinding(f, storage, [], port));
      await waitConverged(base, f.fleet);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && [...seen.keys()].sort().join() !== memberPodKeys(f.fleet).join()) await new Promise((r) => setTimeout(r, 250));
      expect([...seen.keys()].sort()).toEqual(memberPodKeys(f.fleet));
      expect(seen.has(`${c.name}/default/while-down`)).toBe(true);
      expect(restarts).toBeGreaterThan(0);
    } finally {
      await informer.stop();
    }
  });
});
