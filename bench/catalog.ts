// What the apiserver's catalog (src/roles/apiserver/catalog.ts) costs when the fleet syncs its CRDs: every request
// that finds the catalog older than its TTL (2 s) waits for a refresh, which reads what the apiserver knows exists,
// stored CRDs included (their printer columns, short names, subresources). `BENCH_CLUSTERS` (20) clusters of
// `BENCH_CRDS` (300) CRDs each with an OpenAPI schema of ~`BENCH_CRD_KB` kB (60; Crossplane providers, Istio), written
// to a fresh SQLite file, plus one more cluster whose only CRD is its own (`widgets.late.example.io`, a printer column
// `Size`); with BENCH_CRS=1 also one custom resource of each CRD in each cluster. Then the shipped apiserver (or BENCH_BUNDLE) in its own process, and `BENCH_ROUNDS` (10) gets spaced past
// the TTL, so each one meets a refresh: client latency, apiserver CPU per request, peak RSS; and whether the late
// cluster's widgets print with their CRD's column. Prints a Markdown table. Bounded, loopback only. BENCH_DB: a SQLite
// file to keep (and reuse when it exists) instead of a fresh one. BENCH_BACKEND=postgres: a throwaway PostgreSQL server
// on a loopback port instead.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/lib/log.js';
import { openStorage } from '../src/storage/open.js';
import type { UpsertObject } from '../src/storage/types.js';
import { startPostgres, type PostgresServer } from '../test/support/postgres-server.js';
import { BUNDLE, cpuSecondsOf, memoryOf, startApiserver } from './apiserver-process.js';
import { crdSchema, envNumber } from './env.js';

const CLUSTERS = envNumber('BENCH_CLUSTERS', 20);
const CRDS = envNumber('BENCH_CRDS', 300);
const CRD_KB = envNumber('BENCH_CRD_KB', 60);
const ROUNDS = Math.max(1, envNumber('BENCH_ROUNDS', 10));
/** 1: one custom resource of each CRD in each cluster, so that every CRD is also a stored type (discovery, routing). */
const CRS = envNumber('BENCH_CRS', 0) > 0;
const TTL_MS = 2000;
const bundle = process.env.BENCH_BUNDLE ?? BUNDLE;
const LATE = 'late';
const BACKEND = process.env.BENCH_BACKEND ?? 'sqlite';


function crd(cluster: string, group: string, plural: string, kind: string, rv: number, openAPIV3Schema: Record<string, unknown>,
  columns: Record<string, unknown>[] = []): UpsertObject {
  return {
    cluster, group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
    object: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}`, uid: `${cluster}-${plural}.${group}`, resourceVersion: String(rv), creationTimestamp: '2026-11-01T00:00:00Z' },
      spec: {
        group, scope: 'Cluster', names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
        versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema }, ...(columns.length ? { additionalPrinterColumns: columns } : {}) }],
      },
    },
  };
}

/** The fleet's CRDs, and the late cluster's own CRD and one Widget. */
async function writeFleet(url: string): Promise<void> {
  const s = await openStorage({ url }, { logger: silentLogger() });
  await s.migrate();
  const big = crdSchema(CRD_KB);
  let rv = 1;
  for (let c = 0; c < CLUSTERS; c++) {
    const batch: UpsertObject[] = [];
    for (let i = 0; i < CRDS; i++) {
      const group = `provider${i % 10}.example.io`;
      batch.push(crd(`cluster-${c}`, group, `things${i}s`, `Thing${i}`, rv++, big));
      if (CRS) {
        batch.push({ cluster: `cluster-${c}`, group, version: 'v1beta1', resource: `things${i}s`, kind: `Thing${i}`,
          object: { apiVersion: `${group}/v1beta1`, kind: `Thing${i}`, metadata: { name: 'one', uid: `${c}-${i}`, resourceVersion: String(rv++), creationTimestamp: '2026-11-01T00:00:00Z' } } });
      }
    }
    await s.write({ upserts: batch, deletes: [] });
  }
  await s.write({
    upserts: [
      crd(LATE, 'late.example.io', 'widgets', 'Widget', rv++, { type: 'object' }, [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }]),
      { cluster: LATE, group: 'late.example.io', version: 'v1beta1', resource: 'widgets', kind: 'Widget',
        object: { apiVersion: 'late.example.io/v1beta1', kind: 'Widget', metadata: { name: 'w1', uid: 'w1', resourceVersion: String(rv++), creationTimestamp: '2026-11-01T00:00:00Z' }, spec: { size: 'XL' } } },
    ],
    deletes: [],
  });
  await s.close();
}

const dir = mkdtempSync(join(tmpdir(), 'cp-bench-catalog-'));
let pg: PostgresServer | undefined;
try {
  let url: string;
  if (BACKEND === 'postgres') {
    pg = await startPostgres();
    url = pg.url;
    await writeFleet(url);
  } else {
    const file = process.env.BENCH_DB ?? join(dir, 'catalog.db');
    url = `sqlite:${file}`;
    if (!existsSync(file)) await writeFleet(url);
  }

  const api = await startApiserver(url, dir, [], bundle);
  try {
    const get = `${api.base}/clusters/${LATE}/apis/late.example.io/v1beta1/widgets/w1`;
    const f0 = performance.now();
    const table = await (await fetch(get, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json() as { columnDefinitions?: { name: string }[] };
    const firstMs = performance.now() - f0;
    const firstRss = (memoryOf(api.pid)?.hwm ?? 0) / 1024 / 1024;
    const columns = (table.columnDefinitions ?? []).map((c) => c.name);
    const ms: number[] = [];
    const cpu0 = cpuSecondsOf(api.pid);
    for (let r = 0; r < ROUNDS; r++) {
      await new Promise((res) => setTimeout(res, TTL_MS + 100));
      const t0 = performance.now();
      const res = await fetch(get);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`get answered ${res.status}`);
      ms.push(performance.now() - t0);
    }
    const cpuPerRound = (cpuSecondsOf(api.pid) - cpu0) / ROUNDS * 1000;
    const rss = (memoryOf(api.pid)?.hwm ?? 0) / 1024 / 1024;
    ms.sort((a, b) => a - b);
    const q = (p: number): string => (ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0).toFixed(1);
    console.log(`${CLUSTERS} clusters × ${CRDS} CRDs of ~${CRD_KB} kB${CRS ? ', one custom resource of each' : ''} (${(CLUSTERS * CRDS * CRD_KB / 1024).toFixed(0)} MB of CRDs) + 1 cluster with its own CRD, ${BACKEND}; ` +
      `${ROUNDS} gets each past the catalog's TTL; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${bundle === BUNDLE ? 'dist' : bundle}\n`);
    console.log('| first request (the first load) | its peak RSS | later gets, each with a refresh: p50 / max | apiserver CPU per get | peak RSS at the end | the late cluster\'s Widget as a Table |');
    console.log('|---|---|---|---|---|---|');
    console.log(`| ${firstMs.toFixed(0)} ms | ${firstRss.toFixed(0)} MB | ${q(0.5)} / ${q(1)} ms | ${cpuPerRound.toFixed(0)} ms | ${rss.toFixed(0)} MB | columns ${columns.join(', ')} |`);
  } finally {
    await api.stop();
  }
} finally {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
}
