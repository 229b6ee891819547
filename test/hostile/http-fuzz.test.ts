// Short HTTP fuzzing run against the built bundle (the long one is `npm run fuzz`): hostile paths, parameters,
// selectors, tokens, encodings, methods, headers, bodies, malformed framing and slow clients. Zero 5xx, no hang,
// no crash, every error a Status, bounded memory, storage unchanged, and SQL-injection values match nothing.
import { expect, it } from 'vitest';
import { runFuzz } from './fuzz/run.js';

/** A fixed seed keeps `npm test` reproducible; FUZZ_SEED explores other streams. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_130);
const REQUESTS = Number(process.env.FUZZ_TEST_REQUESTS ?? 3000);
/** The data set is ~2 MB of JSON per full pod list; 16 concurrent lists, YAML and Tables stay well below this. */
const RSS_BOUND_MIB = 512;

it(`survives ${REQUESTS} hostile requests (seed ${SEED})`, async () => {
  const r = await runFuzz({ seed: SEED, requests: REQUESTS, concurrency: 16, slowConcurrency: 4 });
  const context = JSON.stringify({ seed: r.seed, byClass: r.byClass, problems: r.problems.slice(0, 20), log: r.serverLogProblems.slice(0, 5) }, null, 1);
  expect(r.crashed, context).toBe(false);
  expect(r.requests).toBe(REQUESTS);
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
  // The stream really reached the storage, not only the parsers.
  expect(r.byStatus['200'] ?? 0).toBeGreaterThan(REQUESTS / 10);
}, 150_000);
