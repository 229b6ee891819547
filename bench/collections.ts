// Pages of lists over several types (collectionresources `workloads`, `kuberesources`, `any`) on storage: each type's
// page read along its own index and merged (src/storage/list-page.ts mergedTypes), beside the same pages found by
// sorting every match (the same list with its default order asked explicitly, which takes the sorting plan). Data:
// `BENCH_CLUSTERS` (100) clusters of `BENCH_DEPLOYMENTS` (1000) Deployments and a fifth as many StatefulSets and
// DaemonSets each, in 20 namespaces; `BENCH_PAGES` (20) pages of 500 walked per query and plan, twice (the first walk
// warms). SQLite in a temporary file, or BENCH_BACKEND=postgres on a throwaway server on a loopback port. Prints a
// Markdown table. Bounded, loopback only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/lib/log.js';
import { openStorage } from '../src/storage/open.js';
import type { ListQuery, OrderTerm, Storage, UpsertObject } from '../src/storage/types.js';
import { startPostgres, type PostgresServer } from '../test/support/postgres-server.js';
import { envNumber } from './env.js';

const CLUSTERS = envNumber('BENCH_CLUSTERS', 100);
const DEPLOYMENTS = envNumber('BENCH_DEPLOYMENTS', 1000);
const PAGES = Math.max(1, envNumber('BENCH_PAGES', 20));
const BACKEND = process.env.BENCH_BACKEND ?? 'sqlite';
const TYPES = [['deployments', 'Deployment', 1], ['statefulsets', 'StatefulSet', 0.2], ['daemonsets', 'DaemonSet', 0.2]] as const;
const DEFAULT_ORDER: OrderTerm[] = (['cluster', 'namespace', 'name', 'group', 'version', 'resource'] as const).map((column) => ({ column, desc: false }));

const cluster = (c: number): string => `cluster-${String(c).padStart(3, '0')}`;

async function fill(s: Storage): Promise<number> {
  let rows = 0;
  for (let c = 0; c < CLUSTERS; c++) {
    const upserts: UpsertObject[] = [];
    for (const [resource, kind, share] of TYPES) {
      for (let i = 0; i < Math.round(DEPLOYMENTS * share); i++) {
        upserts.push({
          cluster: cluster(c), group: 'apps', version: 'v1', resource, kind,
          object: {
            apiVersion: 'apps/v1', kind,
            metadata: { name: `${resource}-${i}`, namespace: `ns-${i % 20}`, uid: `${c}-${resource}-${i}`, resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: `app-${i}` } },
            spec: { replicas: 2, selector: { matchLabels: { app: `app-${i}` } }, template: { metadata: { labels: { app: `app-${i}` } }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } } },
          },
        });
      }
    }
    await s.write({ upserts, deletes: [] });
    rows += upserts.length;
  }
  return rows;
}

/** p50 and max of the pages of `q` walked `PAGES` deep, twice; the second walk counts. */
async function walk(s: Storage, q: ListQuery): Promise<{ p50: number; max: number; rows: number }> {
  let times: number[] = [];
  let rows = 0;
  for (let round = 0; round < 2; round++) {
    times = [];
    rows = 0;
    let token: string | undefined;
    for (let p = 0; p < PAGES; p++) {
      const t0 = performance.now();
      const page = await s.list({ ...q, limit: 500, ...(token ? { continue: { token } } : {}) });
      for await (const _ of page.rows) rows++;
      times.push(performance.now() - t0);
      token = page.continueToken();
      if (!token) break;
    }
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)] ?? 0, max: times.at(-1) ?? 0, rows };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-collections-'));
  let server: PostgresServer | undefined;
  try {
    let url = `sqlite:${join(dir, 'bench.db')}`;
    if (BACKEND === 'postgres') {
      server = await startPostgres();
      url = server.url;
    }
    const s = await openStorage({ url }, { logger: silentLogger() });
    try {
      await s.migrate();
      const t0 = Date.now();
      const rows = await fill(s);
      process.stderr.write(`${rows} rows written in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
      const workloads: ListQuery['types'] = { kind: 'many', entries: TYPES.map(([resource]) => ({ group: 'apps', version: 'v1', resource })) };
      const tenClusters = Array.from({ length: Math.min(10, CLUSTERS) }, (_, i) => cluster(Math.floor((i * CLUSTERS) / 10)));
      const queries: [string, ListQuery][] = [
        ['`workloads`, every cluster', { types: workloads }],
        ['`workloads`, one namespace', { types: workloads, namespaces: { op: 'in', values: ['ns-3'] } }],
        ['`workloads`, ten clusters', { types: workloads, clusters: { op: 'in', values: tenClusters } }],
        ['`any?groups=apps` (types by group), every cluster', { types: { kind: 'many', entries: [{ group: 'apps' }] } }],
        ['`any?groups=*` (every type), every cluster', { types: { kind: 'all' } }],
      ];
      const lines = [
        `${BACKEND === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${rows.toLocaleString('en-US')} rows (${CLUSTERS} clusters × ${DEPLOYMENTS} Deployments + a fifth as many StatefulSets and DaemonSets), ${PAGES} pages of 500 per walk:`,
        '',
        '| list | merged per type: p50 / max | every match sorted: p50 / max | rows walked |',
        '|---|---|---|---|',
      ];
      for (const [name, q] of queries) {
        const merged = await walk(s, q);
        const sorted = await walk(s, { ...q, orderBy: DEFAULT_ORDER });
        if (merged.rows !== sorted.rows) throw new Error(`${name}: ${merged.rows} rows merged, ${sorted.rows} sorted`);
        lines.push(`| ${name} | ${merged.p50.toFixed(1)} / ${merged.max.toFixed(1)} ms | ${sorted.p50.toFixed(1)} / ${sorted.max.toFixed(1)} ms | ${merged.rows.toLocaleString('en-US')} |`);
      }
      console.log(lines.join('\n'));
    } finally {
      await s.close();
    }
  } finally {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
