// End to end: the split deployment — `migrate`, one `synchro` and two `apiserver` processes over one PostgreSQL.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BundleProcess, runBundle } from '../support/bundle.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { freePort } from '../support/postgres-server.js';
import { Kubectl } from '../support/kubectl.js';
import { memberPodKeys, startFleet, waitConverged, type Fleet } from './helpers.js';

let f: Fleet;
let db: { url: string; drop: () => Promise<void> };
const procs: BundleProcess[] = [];
const bases: string[] = [];
let synchroMetrics = 0;
const P = '/apis/clusterpedia.io/v1beta1/resources';

beforeAll(async () => {
  f = await startFleet({ clusters: 2, pods: 20, seed: 23 });
  db = await freshPostgresDatabase('split');
  const m = await runBundle(['migrate', '--storage', db.url]);
  expect(m.code, m.stderr).toBe(0);
  synchroMetrics = await freePort();
  procs.push(BundleProcess.start(['synchro', '--clusters', f.clustersFile, '--storage', db.url, '--migrate', 'false', '--metrics-port', String(synchroMetrics), '--health-interval', '1s'], { cwd: f.dir }));
  for (let i = 0; i < 2; i++) {
    const p = BundleProcess.start(['apiserver', '--storage', db.url, '--migrate', 'false', '--secure-port', '0', '--insecure-port', '0', '--watch-poll-interval', '2s'], { cwd: f.dir });
    procs.push(p);
    bases.push(`http://127.0.0.1:${await p.insecurePort(60_000)}`);
  }
  await waitConverged(bases[0]!, f.fleet, 90_000);
}, 150_000);

afterAll(async () => {
  for (const p of procs) await p.stop();
  await f?.dispose();
  await db?.drop();
});

it('both apiservers answer kubectl with the same rows', async () => {
  const outs: string[] = [];
  for (const base of bases) {
    const k = new Kubectl(`${base}${P}`);
    try {
      outs.push(await k.ok(['get', 'pods', '-A', '-o', 'custom-columns=C:.metadata.annotations.shadow\\.clusterpedia\\.io/cluster-name,N:.metadata.namespace,P:.metadata.name,RV:.metadata.resourceVersion', '--no-headers']));
    } finally {
      k.dispose();
    }
  }
  expect(outs[0]).toBe(outs[1]);
  expect(outs[0]!.trim().split('\n').length).toBe(memberPodKeys(f.fleet).length);
});

it('a watch on one apiserver sees what the synchro writes, promptly (LISTEN/NOTIFY, not the 2 s poll)', async () => {
  const k = new Kubectl(`${bases[1]}${P}`);
  const c = f.fleet.clusters[0]!;
  const ns = c.store.list('pods')[0]?.metadata?.namespace ?? 'default';
  const w = k.spawn(['get', 'pods', '-n', ns, '-w', '--output-watch-events']);
  try {
    await w.waitFor(/CLUSTER/);
    const started = Date.now();
    c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'split-watch', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
    await w.waitFor(/ADDED\s+.*split-watch/);
    expect(Date.now() - started).toBeLessThan(10_000);
    c.store.delete('pods', ns, 'split-watch');
    await w.waitFor(/DELETED\s+.*split-watch/);
  } finally {
    w.child.kill();
    k.dispose();
  }
});

it('the synchro and each apiserver count PostgreSQL connections closed unanswered, every reason shown from the start', async () => {
  await procs[0]!.waitFor((l) => l.msg === 'synchro metrics listening');
  for (const base of [`http://127.0.0.1:${synchroMetrics}`, ...bases]) {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text, base).toContain('# TYPE clusterpedia_storage_connections_closed_total counter');
    for (const reason of ['idle_session', 'no_session', 'answer_lost', 'gave_up']) {
      expect(text, base).toMatch(new RegExp(`clusterpedia_storage_connections_closed_total\\{reason="${reason}"\\} 0\n`));
    }
  }
});
