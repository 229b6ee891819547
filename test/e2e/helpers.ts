// Shared pieces of the end-to-end tests: a simulated fleet, the bundle syncing it, and convergence checks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pediaClustersYaml, startSimulatedFleet, type SimCluster, type SimFleet, type SyncGroup } from '../../src/sim/index.js';
import { BundleProcess } from '../support/bundle.js';
import { Kubectl, kubectlPath } from '../support/kubectl.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { afterAll, beforeAll } from 'vitest';

export interface Fleet {
  fleet: SimFleet;
  dir: string;
  clustersFile: string;
  dispose(): Promise<void>;
}

/** `sync`: what each PediaCluster syncs (the simulator's defaultSyncResources when not given). */
export async function startFleet(o: { clusters: number; pods: number; seed: number; tls?: boolean; sync?: SyncGroup[] }): Promise<Fleet> {
  const fleet = await startSimulatedFleet({ clusters: o.clusters, podsPerCluster: o.pods, seed: o.seed, tls: o.tls ?? true });
  const dir = mkdtempSync(join(tmpdir(), 'cp-e2e-'));
  const clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, pediaClustersYaml(fleet.clusters, o.sync));
  return {
    fleet, dir, clustersFile,
    dispose: async () => {
      await fleet.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every pod of every member as "cluster/namespace/name", sorted. */
export function memberPodKeys(fleet: SimFleet): string[] {
  const keys: string[] = [];
  for (const c of fleet.clusters) for (const p of c.store.list('pods')) keys.push(`${c.name}/${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
  return keys.sort();
}

/** Pods clusterpedia serves, as "cluster/namespace/name", sorted. */
export async function servedPodKeys(base: string): Promise<string[]> {
  const r = await fetch(`${base}/apis/clusterpedia.io/v1beta1/resources/api/v1/pods`);
  if (r.status !== 200) return [];
  const list = (await r.json()) as { items: { metadata: { name: string; namespace: string; annotations?: Record<string, string> } }[] };
  return list.items.map((i) => `${i.metadata.annotations?.['shadow.clusterpedia.io/cluster-name'] ?? ''}/${i.metadata.namespace}/${i.metadata.name}`).sort();
}

async function deploymentsConverged(base: string, fleet: SimFleet): Promise<boolean> {
  const want = fleet.clusters.reduce((n, c) => n + c.store.count('deployments.apps'), 0);
  const r = await fetch(`${base}/apis/clusterpedia.io/v1beta1/resources/apis/apps/v1/deployments`).catch(() => undefined);
  if (r?.status !== 200) return false;
  return ((await r.json()) as { items: unknown[] }).items.length === want;
}

/** Waits until clusterpedia serves exactly the members' pods and as many deployments as they hold. */
export async function waitConverged(base: string, fleet: SimFleet, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let served: string[] = [];
  let member: string[] = [];
  while (Date.now() < deadline) {
    member = memberPodKeys(fleet);
    served = await servedPodKeys(base).catch(() => []);
    // Pods alone are not enough: on a loaded machine other resources' initial lists can finish seconds later, and a
    // test that then asks for deployments would race them.
    if (served.length === member.length && served.every((k, i) => k === member[i]) && (await deploymentsConverged(base, fleet))) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  const missing = member.filter((k) => !served.includes(k));
  const extra = served.filter((k) => !member.includes(k));
  throw new Error(`not converged after ${timeoutMs}ms: ${missing.length} missing (${missing.slice(0, 5).join(', ')}), ${extra.length} extra (${extra.slice(0, 5).join(', ')})`);
}

/** Starts `clusterpedia binding` from the bundle over the fleet, plain HTTP on a free loopback port. */
export async function startBinding(f: Fleet, storage: string, extra: string[] = [], port = 0): Promise<{ proc: BundleProcess; base: string }> {
  const proc = BundleProcess.start(['binding', '--clusters', f.clustersFile, '--storage', storage, '--secure-port', '0', '--insecure-port', String(port),
    '--health-interval', '1s', '--watch-poll-interval', '100ms', '--log-level', 'info', ...extra], { cwd: f.dir });
  const bound = await proc.insecurePort(60_000);
  return { proc, base: `http://127.0.0.1:${bound}` };
}

/**
 * Runs `fn` with kubectl for member `c` itself (its token; `memberBinary`) and for the member's path through the
 * clusterpedia at `base` (`binary`), and lets go of both after.
 */
export async function onMemberAndThrough(base: string, c: SimCluster, fn: (member: Kubectl, ours: Kubectl) => Promise<void>, binary = kubectlPath(), memberBinary = kubectlPath()): Promise<void> {
  const member = new Kubectl(c.url, memberBinary, [`--token=${c.token ?? ''}`]);
  const ours = new Kubectl(`${base}/apis/clusterpedia.io/v1beta1/resources/clusters/${c.name}`, binary);
  try {
    await fn(member, ours);
  } finally {
    member.dispose();
    ours.dispose();
  }
}

/** Where the bundle keeps its rows in a test over fleet `f`. */
export type StorageFor = (f: Fleet) => Promise<{ url: string; drop?: () => Promise<void> }>;

/** Both dialects, for describe.each: a SQLite file in the fleet's directory, a fresh PostgreSQL database named `prefix`_…. */
export function bothDialects(prefix: string): [string, StorageFor][] {
  return [
    ['sqlite', async (f) => ({ url: `sqlite:${join(f.dir, 'cp.db')}` })],
    ['postgres', async () => freshPostgresDatabase(prefix)],
  ];
}

/**
 * A simulated fleet and `clusterpedia binding` over it on `storage`, started before the calling describe's tests and
 * stopped after them; `ready` is handed both once the binding listens, and returns when the tests may start.
 */
export function bindingOverFleet(o: Parameters<typeof startFleet>[0], storage: StorageFor, ready: (f: Fleet, base: string) => Promise<void>): void {
  let f: Fleet | undefined;
  let proc: BundleProcess | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    f = await startFleet(o);
    const s = await storage(f);
    drop = s.drop;
    const started = await startBinding(f, s.url);
    proc = started.proc;
    await ready(f, started.base);
  }, 120_000);
  afterAll(async () => {
    await proc?.stop();
    await f?.dispose();
    await drop?.();
  });
}
