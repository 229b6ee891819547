// End to end: two `synchro` replicas over one PostgreSQL never lead at once; killing the leader hands over.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BundleProcess, runBundle } from '../support/bundle.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { startFleet, waitConverged, type Fleet } from './helpers.js';

let f: Fleet;
let db: { url: string; drop: () => Promise<void> };
const procs: BundleProcess[] = [];
let base: string;

const synchroArgs = (): string[] => ['synchro', '--clusters', f.clustersFile, '--storage', db.url, '--migrate', 'false', '--metrics-port', '0',
  '--health-interval', '1s', '--leader-elect', 'true', '--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '300ms'];

beforeAll(async () => {
  f = await startFleet({ clusters: 2, pods: 15, seed: 31 });
  db = await freshPostgresDatabase('leader');
  expect((await runBundle(['migrate', '--storage', db.url])).code).toBe(0);
  const api = BundleProcess.start(['apiserver', '--storage', db.url, '--migrate', 'false', '--secure-port', '0', '--insecure-port', '0'], { cwd: f.dir });
  procs.push(api);
  base = `http://127.0.0.1:${await api.insecurePort(60_000)}`;
}, 90_000);

afterAll(async () => {
  for (const p of procs) await p.stop('SIGKILL');
  await f?.dispose();
  await db?.drop();
});

const leads = (p: BundleProcess): boolean => p.lines.some((l) => l.msg === 'became the leader');

it('one replica leads, the other waits; after kill -9 the other takes over and keeps syncing', async () => {
  const a = BundleProcess.start(synchroArgs(), { cwd: f.dir });
  procs.push(a);
  await a.waitFor((l) => l.msg === 'became the leader', 30_000);
  const b = BundleProcess.start(synchroArgs(), { cwd: f.dir });
  procs.push(b);
  await b.waitFor((l) => l.msg === 'waiting to become the leader', 30_000);
  await waitConverged(base, f.fleet, 60_000);
  // Only the leader synced: the follower never started a cluster (every cluster log line carries `cluster`).
  expect(leads(b)).toBe(false);
  expect(a.lines.some((l) => typeof l.cluster === 'string')).toBe(true);
  expect(b.lines.filter((l) => typeof l.cluster === 'string')).toEqual([]);

  await a.stop('SIGKILL');
  const killedAt = Date.now();
  await b.waitFor((l) => l.msg === 'became the leader', 30_000);
  // The lease had to expire (3 s) — a killed leader cannot release it.
  expect(Date.now() - killedAt).toBeLessThan(15_000);
  const c = f.fleet.clusters[0]!;
  const ns = c.store.list('pods')[0]?.metadata?.namespace ?? 'default';
  c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-handover', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
  await waitConverged(base, f.fleet, 60_000);
}, 150_000);
