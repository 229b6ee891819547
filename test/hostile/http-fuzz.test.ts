// Short HTTP fuzzing run against the built bundle (the long one is `npm run fuzz`): hostile paths, parameters,
// selectors, tokens, encodings, methods, headers, bodies, malformed framing and slow clients. Zero 5xx, no hang,
// no crash, every error a Status, bounded memory, storage unchanged, and SQL-injection values match nothing.
import { expect, it } from 'vitest';
import { freshPostgresDatabase } from '../support/postgres.js';
import { runFuzz, type FuzzReport } from './fuzz/run.js';

/** A fixed seed keeps `npm test` reproducible; FUZZ_SEED explores other streams. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_130);
const REQUESTS = Number(process.env.FUZZ_TEST_REQUESTS ?? 3000);
const PG_SEED = 77;
const PG_REQUESTS = 1500;
/** The data set is ~2 MB of JSON per full pod list; 16 concurrent lists, YAML and Tables stay well below this. */
const RSS_BOUND_MIB = 512;

function expectSurvived(r: FuzzReport, requests: number): void {
  const context = JSON.stringify({ seed: r.seed, byClass: r.byClass, problems: r.problems.slice(0, 20), log: r.serverLogProblems.slice(0, 5) }, null, 1);
  expect(r.crashed, context).toBe(false);
  expect(r.requests).toBe(requests);
  expect(r.fiveXX, context).toBe(0);
  expect(r.hangs, context).toBe(0);
  expect(r.unexpectedDrops, context).toBe(0);
  expect(r.violations, context).toBe(0);
  expect(r.serverLogProblems, context).toEqual([]);
  expect(r.rss.peakMiB, context).toBeLessThan(RSS_BOUND_MIB);
  expect(r.storage.unchanged, 'storage row counts and checksum before and after the run').toBe(true);
  expect(r.probes.failures, 'SQL-injection probes').toEqual([]);
  expect(r.probes.baselinesMatched).toBe(r.probes.baselines);
  expect(new Set(r.probes.podCounts)).toEqual(new Set([2000]));
  expect(r.healthyAfter).toBe(true);
  expect(r.leftInFlight, 'requests still in flight once every client had gone').toEqual({ requests: 0, watches: 0 });
  // The stream really reached the storage, not only the parsers.
  expect(r.byStatus['200'] ?? 0).toBeGreaterThan(requests / 10);
}

it(`survives ${REQUESTS} hostile requests (seed ${SEED})`, async () => {
  expectSurvived(await runFuzz({ seed: SEED, requests: REQUESTS, concurrency: 16, slowConcurrency: 4 }), REQUESTS);
}, 150_000);

// PostgreSQL answers slowly enough for clients to leave mid-request: seed 77 left one request in ~70 in flight for
// good (pipelined requests queued behind another when the connection closed) before whenGone.
it(`survives ${PG_REQUESTS} hostile requests on PostgreSQL (seed ${PG_SEED})`, async () => {
  const db = await freshPostgresDatabase('fuzz');
  try {
    expectSurvived(await runFuzz({ seed: PG_SEED, requests: PG_REQUESTS, concurrency: 16, slowConcurrency: 4, postgresUrl: db.url }), PG_REQUESTS);
  } finally {
    await db.drop();
  }
}, 150_000);
