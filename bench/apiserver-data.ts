// The apiserver benchmark's data set: the storage benchmark's generator (bench/storage-data.ts) written through
// storage.write() into one SQLite file, built once and reusable (BENCH_DB), or into a PostgreSQL database.
import { silentLogger } from '../src/lib/log.js';
import { openStorage } from '../src/storage/open.js';
import type { Storage } from '../src/storage/types.js';
import { ingestBatches, PODS_PER_DEPLOYMENT } from './storage-data.js';
import { fmt } from './storage-report.js';

/** The storage benchmark's shape: 100 clusters, pods in 20 namespaces, 20 pods per Deployment. */
export const CLUSTERS = 100;
/** Rows per write(): the synchro's default batch, as in bench/storage.ts. */
const BATCH = 1000;

export interface Dataset {
  clusters: number;
  podsPerCluster: number;
  deployments: number;
  /** Every stored row (pods, ReplicaSets, Deployments). */
  rows: number;
  /** Seconds spent writing, when this run built the data (undefined when reused). */
  buildSeconds?: number;
}

/** Pods per cluster for a requested total, as bench/storage.ts rounds it (a multiple of PODS_PER_DEPLOYMENT). */
export function podsPerClusterFor(rows: number): number {
  const total = Math.max(CLUSTERS * PODS_PER_DEPLOYMENT, rows);
  return Math.floor(total / CLUSTERS / PODS_PER_DEPLOYMENT) * PODS_PER_DEPLOYMENT;
}


/** The shape of what a storage holds, read back from its per-type counts (so a reused file says what it is). */
async function shapeOf(s: Storage): Promise<Dataset | undefined> {
  const counts = await s.counts();
  const pods = counts.filter((c) => c.group === '' && c.resource === 'pods');
  if (pods.length === 0) return undefined;
  const podsPerCluster = pods[0]?.count ?? 0;
  return {
    clusters: pods.length,
    podsPerCluster,
    deployments: podsPerCluster / PODS_PER_DEPLOYMENT,
    rows: counts.reduce((n, c) => n + c.count, 0),
  };
}

/**
 * Opens `url`, migrates, and writes the data set unless the storage already holds one (a reused BENCH_DB);
 * returns what it holds. The storage is closed again: the harness reopens it for the direct queries.
 */
export async function ensureDataset(url: string, rows: number): Promise<Dataset> {
  const s = await openStorage({ url }, { logger: silentLogger() });
  try {
    await s.migrate();
    const have = await shapeOf(s);
    if (have) {
      process.stderr.write(`data: reusing ${fmt(have.rows)} rows (${have.clusters} clusters × ${fmt(have.podsPerCluster)} pods)\n`);
      return have;
    }
    const podsPerCluster = podsPerClusterFor(rows);
    process.stderr.write(`data: writing ${fmt(CLUSTERS * podsPerCluster * 1.1)} rows through storage.write()\n`);
    const t0 = performance.now();
    let written = 0;
    let n = 0;
    for (const b of ingestBatches(CLUSTERS, podsPerCluster, BATCH)) {
      await s.write({ upserts: b, deletes: [] });
      written += b.length;
      if (++n % 100 === 0) process.stderr.write(`  ${fmt(written)} rows, ${fmt(written / ((performance.now() - t0) / 1000))}/s\n`);
    }
    const shape = await shapeOf(s);
    if (!shape) throw new Error('no pods stored after writing the data set');
    return { ...shape, buildSeconds: (performance.now() - t0) / 1000 };
  } finally {
    await s.close();
  }
}
