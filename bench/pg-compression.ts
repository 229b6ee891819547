// PostgreSQL object compression: the same pods written, updated and read with `resources.object` compressed by pglz
// (PostgreSQL's default, schema version 5) and by lz4 (migration 0005_object_lz4), databases made alternately on one
// throwaway server so both see the same machine. Writes the "## PostgreSQL object compression" section of BENCHMARKS.md.
// Env: BENCH_CLUSTERS (10) × BENCH_PODS (20000) pods (+10 % owners), BENCH_UPDATES (100000, in batches of 1000),
// BENCH_RUNS (2 of each, alternating which goes first), BENCH_VARIANTS (pglz,lz4; also lz4-ff80: lz4 and fillfactor 80;
// lz4-main: lz4 kept in the row, STORAGE MAIN),
// CLUSTERPEDIA_BENCH_POSTGRES_URL (else a throwaway server on a loopback port), BENCH_WRITE=0 leaves the file alone.
import postgres from 'postgres';
import { silentLogger } from '../src/lib/log.js';
import { uidFor } from '../src/sim/prng.js';
import { openStorage } from '../src/storage/open.js';
import type { Storage, UpsertObject } from '../src/storage/types.js';
import { envNumber, rng } from './env.js';
import { withBenchDatabase } from './postgres-database.js';
import { ingestBatches, namespaceName, NAMESPACES, pod } from './storage-data.js';
import { fmt, machine, percentile, replaceSection } from './storage-report.js';

const CLUSTERS = envNumber('BENCH_CLUSTERS', 10);
const PODS = envNumber('BENCH_PODS', 20_000);
const UPDATES = envNumber('BENCH_UPDATES', 100_000);
const RUNS = envNumber('BENCH_RUNS', 2);
const BATCH = 1000;
const PAGES = 100;
const VARIANTS = (process.env.BENCH_VARIANTS ?? 'pglz,lz4').split(',').filter(Boolean);
const KNOWN: Record<string, string[]> = {
  pglz: ['ALTER TABLE resources ALTER COLUMN object SET COMPRESSION pglz'],
  lz4: [],
  'lz4-ff80': ['ALTER TABLE resources SET (fillfactor = 80)'],
  'lz4-main': ['ALTER TABLE resources ALTER COLUMN object SET STORAGE MAIN'],
};
for (const v of VARIANTS) if (!KNOWN[v]) throw new Error(`BENCH_VARIANTS: unknown variant ${v} (known: ${Object.keys(KNOWN).join(', ')})`);

/**
 * Member uids as kube makes them (random). The generator's own are mostly zeros, which pglz compresses inline: an
 * indexed column whose stored bytes differ from the value written makes every update a non-HOT one (all five
 * indexes written again), which real uids never cause.
 */
function realUids(u: UpsertObject): UpsertObject {
  const m = u.object.metadata as { uid: string; ownerReferences?: { uid: string }[] };
  m.uid = uidFor(m.uid);
  for (const r of m.ownerReferences ?? []) r.uid = uidFor(r.uid);
  return u;
}

interface Run {
  variant: string;
  ingestPerS: number;
  updatesPerS: number;
  updateBatchP50: number;
  updateBatchP99: number;
  hotShare: number;
  /** A one-namespace 500-pod page decompressed on the server alone (sum of the objects' lengths), p50 ms. */
  serverPageP50: number;
  /** The same page through storage.list, every row read, p50 ms. */
  listPageP50: number;
  tableMB: number;
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function measure(variant: string, url: string): Promise<Run> {
  let s: Storage = await openStorage({ url }, { logger: silentLogger() });
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await s.migrate();
    for (const q of KNOWN[variant] ?? []) await db.unsafe(q);
    let rows = 0;
    let ms = 0;
    for (const b of ingestBatches(CLUSTERS, PODS, BATCH)) {
      const batch = b.map(realUids);
      ms += await timed(() => s.write({ upserts: batch, deletes: [] }));
      rows += batch.length;
    }
    await db.unsafe('VACUUM ANALYZE');
    const stats = async (): Promise<{ upd: number; hot: number }> => {
      const r = (await db.unsafe(`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'resources'`))[0];
      return { upd: Number(r?.upd ?? 0), hot: Number(r?.hot ?? 0) };
    };
    const before = await stats();
    const draw = rng(42);
    const batches: number[] = [];
    let rv = 10_000_000;
    for (let done = 0; done < UPDATES; done += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, UPDATES - done) }, () => realUids(pod(draw(CLUSTERS), draw(PODS), rv++)));
      batches.push(await timed(() => s.write({ upserts: batch, deletes: [] })));
    }
    // Closing the pool ends its sessions, which report their statistics as they go.
    await s.close();
    s = await openStorage({ url }, { logger: silentLogger() });
    await new Promise((r) => setTimeout(r, 500));
    const after = await stats();
    const serverPage: number[] = [];
    const listPage: number[] = [];
    for (let k = 0; k < PAGES; k++) {
      const ns = namespaceName(k % NAMESPACES);
      serverPage.push(await timed(() => db.unsafe(`SELECT sum(octet_length(object::text)) FROM (SELECT object FROM resources
        WHERE "group" = '' AND version = 'v1' AND resource = 'pods' AND namespace = $1 ORDER BY cluster, name LIMIT 500) x`, [ns])));
      listPage.push(await timed(async () => {
        const page = await s.list({ types: { kind: 'one', group: '', version: 'v1', resource: 'pods' }, namespaces: { op: 'in', values: [ns] }, limit: 500 });
        for await (const _ of page.rows);
      }));
    }
    const size = (await db.unsafe(`SELECT pg_total_relation_size('resources') AS b`))[0];
    const updateMs = batches.reduce((a, b) => a + b, 0);
    return {
      variant,
      ingestPerS: rows / (ms / 1000),
      updatesPerS: UPDATES / (updateMs / 1000),
      updateBatchP50: percentile(batches, 50),
      updateBatchP99: percentile(batches, 99),
      hotShare: (after.hot - before.hot) / Math.max(1, after.upd - before.upd),
      serverPageP50: percentile(serverPage, 50),
      listPageP50: percentile(listPage, 50),
      tableMB: Number(size?.b ?? 0) / 1e6,
    };
  } finally {
    await db.end();
    await s.close();
  }
}

/** What the figures cannot say themselves (kept in the section when it is written again). */
const NOTES = `A 4.3 KB pod compresses to ~1.9 KB with pglz, which still leaves the row over PostgreSQL's ~2 KB threshold, so
the object lives in the table's TOAST either way; every write compresses it and every read of a page decompresses 500
of them, on the server's CPU. lz4 does both several times faster for ~25 % more bytes. On this 2-core machine, where
the database server shares the cores with the synchro or the apiserver, the server's CPU is what the churn of a
million objects runs out of first (the Synchro section). HOT updates (no index written) were ~83 % with either
compression here; with the storage benchmark's own uids (\`bench/storage-data.ts\`: mostly zeros) they were 0 %:
pglz compressed those 36-byte uids inside the row, and an indexed column whose stored bytes differ from the value
written counts as changed. Kube's random uids do not compress. A fillfactor of 80 on \`resources\` (space kept free
on each page for updates) brought them to 100 % in an ad-hoc run of 220,000 objects, +8 % updates/s, within the runs'
spread; not adopted. Nor was keeping the compressed object in the row (STORAGE MAIN, \`BENCH_VARIANTS=lz4,lz4-main\`,
2026-12-06): rows of ~2.3 KB leave no room on their page for the next version, so no update was HOT (0 % against 83 %),
updates ran at 0.76× and a page through \`storage.list()\` took 1.38× as long, for the same space.`;

const runs: Run[] = [];
for (let r = 0; r < RUNS; r++) {
  const order = r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
  for (const variant of order) {
    process.stderr.write(`run ${r + 1}/${RUNS}: ${variant}\n`);
    runs.push(await withBenchDatabase(`clusterpedia_compression`, (url) => measure(variant, url)));
    process.stderr.write(`  ${JSON.stringify(runs.at(-1))}\n`);
  }
}

const version = await withBenchDatabase('clusterpedia_version', async (_url, admin) => String((await admin`SELECT current_setting('server_version') AS v`)[0]?.v ?? '?'));
const mean = (v: string, f: (r: Run) => number): number => {
  const xs = runs.filter((r) => r.variant === v).map(f);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
const perRun = (rs: Run[], f: (r: Run) => number, digits: number): string => rs.map((r) => fmt(f(r), digits)).join(' / ');
const base = VARIANTS[0] as string;
/** A table row: its label, the figure the ratio compares, its digits, and what a cell shows of a variant's runs if not that figure. */
const rows: [string, (r: Run) => number, number, ((rs: Run[]) => string)?][] = [
  ['ingest through `storage.write()`, objects/s', (r) => r.ingestPerS, 0],
  ['updates through `storage.write()` (batches of 1,000 random pods), rows/s', (r) => r.updatesPerS, 0],
  ['update batch p50 ; p99 per run, ms (the ratio of the p50s)', (r) => r.updateBatchP50, 1, (rs) => `${perRun(rs, (r) => r.updateBatchP50, 1)} ; ${perRun(rs, (r) => r.updateBatchP99, 1)}`],
  ['share of the updates that were HOT (no index written), %', (r) => r.hotShare * 100, 0],
  ['one-namespace 500-pod page decompressed on the server, p50 ms', (r) => r.serverPageP50, 1],
  ['the same page through `storage.list()`, every row read, p50 ms', (r) => r.listPageP50, 1],
  ['`resources` with its TOAST and indexes, MB', (r) => r.tableMB, 0],
];
const header = `| | ${VARIANTS.join(' | ')} | ${VARIANTS.slice(1).map((v) => `${v} / ${base}`).join(' | ')} |`;
const lines = rows.map(([label, f, digits, show]) => {
  const cells = VARIANTS.map((v) => {
    const rs = runs.filter((r) => r.variant === v);
    return show ? show(rs) : perRun(rs, f, digits);
  });
  const ratios = VARIANTS.slice(1).map((v) => `${fmt(mean(v, f) / mean(base, f), 2)}×`);
  return `| ${label} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`;
});
const text = [
  `\`npm run bench:pg-compression\` (\`bench/pg-compression.ts\`). ${fmt(CLUSTERS * PODS * 1.1)} objects (${CLUSTERS} clusters × ${fmt(PODS)} pods of ~4.3 KB, and their Deployments and ReplicaSets, member uids random as kube makes them), then ${fmt(UPDATES)} updates of random pods, then ${PAGES} one-namespace pages; a fresh database for each run, ${RUNS} runs of each variant alternating which goes first, each figure given per run. PostgreSQL ${version} (the throwaway server of the tests: fsync, synchronous_commit and full_page_writes off). ${machine()}; ${new Date().toISOString().slice(0, 10)}.`,
  '',
  header,
  `|---|${VARIANTS.map(() => '---|').join('')}${VARIANTS.slice(1).map(() => '---|').join('')}`,
  ...lines,
  '',
  'The ratio column compares the means of the runs. `pglz` is PostgreSQL\'s default and what schema version 5 stored; `lz4` is what migration `0005_object_lz4` sets (schema version 6).',
  '',
  NOTES,
].join('\n');
console.log(text);
if (process.env.BENCH_WRITE !== '0') replaceSection(new URL('../BENCHMARKS.md', import.meta.url).pathname, '## PostgreSQL object compression', text);
