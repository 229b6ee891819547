// Overload against the built bundle, scaled for `npm test` (the big run is `npm run overload`): 100 clients and 200
// watches against limits set low enough that 429s really happen. Every answer is 200 or 429 with Retry-After, no
// hang, watches accepted up to the limit and refused beyond it, memory bounded, normal answers afterwards.
import { expect, it } from 'vitest';
import { runOverload } from './overload/load.js';

const RSS_BOUND_MIB = 512;

it('100 clients and 200 watches against --max-requests-inflight 8 and --max-watches-inflight 150', async () => {
  const r = await runOverload({ clients: 100, watches: 200, durationMs: 12_000, maxRequestsInflight: 8, maxWatchesInflight: 150, writesPerSecond: 10, seed: 7 });
  const context = JSON.stringify({ byStatus: r.byStatus, watches: r.watches, problems: r.problems.slice(0, 10), log: r.serverLogProblems.slice(0, 5) }, null, 1);
  expect(r.crashed, context).toBe(false);
  expect(r.problems, context).toEqual([]);
  expect(r.serverLogProblems, context).toEqual([]);
  // Only 200 and 429, and both really happened.
  expect(Object.keys(r.byStatus).sort(), context).toEqual(['200', '429']);
  expect(r.byStatus['429'], context).toBeGreaterThan(100);
  expect(r.byStatus['200'], context).toBeGreaterThan(500);
  expect(r.retryAfterMissing).toBe(0);
  // Watches: exactly the limit accepted, the rest refused; the accepted ones saw the changes.
  expect(r.watches.accepted + r.watches.rejected, context).toBe(200);
  expect(r.watches.accepted, context).toBe(150);
  expect(r.watches.other, context).toEqual({});
  expect(r.watches.withEvents, context).toBe(r.watches.eventWatchers);
  expect(r.rss.peakMiB, context).toBeLessThan(RSS_BOUND_MIB);
  // Afterwards: normal answers, quickly, and a new watch is accepted.
  expect(r.after.statuses).toEqual([200, 200, 200, 200, 200]);
  expect(r.after.maxMs).toBeLessThan(2000);
  expect(r.after.watchStatus).toBe(200);
}, 120_000);
