// What a field selector on one of kube's field labels (spec.nodeName, status.phase) costs a list, read from the row's
// small `fields` document, against the same list read from the object (~4 KB of JSON per pod): the reference is the
// same rows in the same run with `fields` set to NULL, as a row written before migration 0003/0004 has it, which makes
// the query read the object instead (list-sql.ts). `BENCH_PODS` (200,000) pods of the storage benchmark's shape, one
// cluster, in SQLite (a fresh file) and PostgreSQL (a throwaway server on a loopback port, or
// CLUSTERPEDIA_BENCH_POSTGRES_URL). Writes the "## Field selectors" section of BENCHMARKS.md. Bounded, loopback only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import type { FieldRequirement } from '../src/kube/requirement.js';
import { silentLogger } from '../src/lib/log.js';
import { openStorage } from '../src/storage/open.js';
import type { ListQuery, Storage } from '../src/storage/types.js';
import { envNumber } from './env.js';
import { withBenchDatabase } from './postgres-database.js';
import { pod } from './storage-data.js';
import { fmt, machine, percentile, replaceSection } from './storage-report.js';

const PODS = envNumber('BENCH_PODS', 200_000);
const SAMPLES = envNumber('BENCH_SAMPLES', 15);
const PODS_TYPE = { kind: 'one', group: '', version: 'v1', resource: 'pods' } as const;

const label = (path: string, value: string, operator: FieldRequirement['operator'] = '='): FieldRequirement =>
  ({ path: path.split('.').map((name) => ({ name })), operator, values: [value], absentAs: '' });

/** The lists timed: what a node agent or a dashboard asks. */
const QUERIES: { name: string; query: ListQuery }[] = [
  { name: 'spec.nodeName=node-7 (2 % match), limit 500', query: { types: PODS_TYPE, fields: [label('spec.nodeName', 'node-7')], limit: 500 } },
  { name: 'spec.nodeName=node-7, no limit', query: { types: PODS_TYPE, fields: [label('spec.nodeName', 'node-7')] } },
  { name: 'status.phase!=Running (no match), limit 500', query: { types: PODS_TYPE, fields: [label('status.phase', 'Running', '!=')], limit: 500 } },
];

interface Row { query: string; fields: number; object: number; rows: number }
interface Result { dialect: string; rows: Row[] }

async function fill(s: Storage): Promise<void> {
  for (let i = 0; i < PODS; i += 1000) {
    const upserts = [];
    for (let j = i; j < Math.min(PODS, i + 1000); j++) upserts.push(pod(0, j, j + 1));
    await s.write({ upserts, deletes: [] });
  }
}

/** Median ms of a list, every row read; and how many rows it gave. */
async function time(s: Storage, q: ListQuery): Promise<{ ms: number; rows: number }> {
  let rows = 0;
  const run = async (): Promise<void> => {
    rows = 0;
    for await (const _ of (await s.list(q)).rows) rows++;
  };
  for (let i = 0; i < 2; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return { ms: percentile(times, 50), rows };
}

/** Times every query with the fields column, then again once `dropFields` has set it to NULL. */
async function measure(dialect: string, s: Storage, dropFields: () => Promise<void>): Promise<Result> {
  const withFields = [];
  for (const q of QUERIES) withFields.push(await time(s, q.query));
  await dropFields();
  const rows: Row[] = [];
  for (const [i, q] of QUERIES.entries()) {
    const fromObject = await time(s, q.query);
    const a = withFields[i]!;
    if (fromObject.rows !== a.rows) throw new Error(`${dialect} ${q.name}: ${a.rows} rows from fields, ${fromObject.rows} from the object`);
    rows.push({ query: q.name, fields: a.ms, object: fromObject.ms, rows: a.rows });
  }
  return { dialect, rows };
}

async function runSqlite(dir: string): Promise<Result> {
  const file = join(dir, 'fields.db');
  const s = await openStorage({ url: `sqlite:${file}` }, { logger: silentLogger() });
  try {
    await s.migrate();
    process.stderr.write(`sqlite: ${fmt(PODS)} pods\n`);
    await fill(s);
    return await measure('SQLite', s, async () => {
      const db = new Database(file);
      db.prepare('UPDATE resources SET fields = NULL').run();
      db.close();
    });
  } finally {
    await s.close();
  }
}

async function runPostgres(): Promise<Result> {
  return withBenchDatabase('clusterpedia_bench_fields', async (url) => {
    const s = await openStorage({ url }, { logger: silentLogger() });
    try {
      await s.migrate();
      process.stderr.write(`postgres: ${fmt(PODS)} pods\n`);
      await fill(s);
      return await measure('PostgreSQL', s, async () => {
        const db = postgres(url, { max: 1, onnotice: () => {} });
        await db.unsafe('UPDATE resources SET fields = NULL');
        await db.unsafe('VACUUM ANALYZE resources');
        await db.end();
      });
    } finally {
      await s.close();
    }
  });
}

const started = new Date();
const dir = mkdtempSync(join(tmpdir(), 'cp-bench-fields-'));
try {
  const results = [await runSqlite(dir), await runPostgres()];
  const lines = [
    `${started.toISOString().slice(0, 10)}, ${machine()}. ${fmt(PODS)} pods (~4 KB each) in one cluster; median of ${SAMPLES} lists, every row read.`,
    '',
    'A field selector on one of kube\'s field labels reads the row\'s `fields` document (~200 bytes: the values of',
    'spec.nodeName, status.phase and the like) instead of the object. Reference: the same list in the same run after',
    '`UPDATE resources SET fields = NULL`, which makes it read the object, as for a row written before the column.',
    '',
    '| backend | list | rows | from `fields` (ms) | from the object (ms) | speed-up |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    for (const x of r.rows) lines.push(`| ${r.dialect} | ${x.query} | ${fmt(x.rows)} | ${fmt(x.fields, 1)} | ${fmt(x.object, 1)} | ${fmt(x.object / x.fields, 1)}× |`);
  }
  lines.push(
    '',
    'On SQLite the `fields` column sits before the object since migration 0004 (0003 had appended it after, so reading it',
    'walked each row\'s object, overflow pages included): on 2026-12-05, before it, the same three lists took 84.4, 869.6',
    'and 836.6 ms from `fields` (1.8× the object). A row without `fields` still reads the object.',
  );
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  replaceSection(new URL('../BENCHMARKS.md', import.meta.url).pathname, '## Field selectors', text);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
