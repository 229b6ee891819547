// A saturated apiserver shares itself evenly: clients on their own keep-alive connections, each asking again as soon
// as it is answered, get about as many answers as each other, and nobody waits much longer than one round of
// everyone. Against the built bundle over SQLite, whose reads run on the event loop's own thread: before requests
// started one per event-loop turn (turns.ts), the same load left most clients with 1–2 answers while a few got 40,
// and the slowest answer waited ~18 rounds.
import { Agent } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTarget, type Target } from './fuzz/target.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const CLIENTS = 40;
const RUN_MS = 6_000;

let target: Target;
beforeAll(async () => {
  target = await startTarget();
}, 120_000);
afterAll(async () => {
  await target?.stop();
});

it(`${CLIENTS} clients in closed loops are served evenly`, async () => {
  const agent = new Agent({ connections: CLIENTS + 4, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const answers = new Array<number>(CLIENTS).fill(0);
  const waits: number[] = [];
  const statuses: Record<number, number> = {};
  const deadline = Date.now() + RUN_MS;
  try {
    await Promise.all(answers.map(async (_, c) => {
      for (let i = 0; Date.now() < deadline; i++) {
        // Pages of 1,000 pods, each read and written in one synchronous stretch; now and then a small one.
        const path = i % 4 === 3 ? `${P}/api/v1/namespaces/default/pods?limit=5` : `${P}/api/v1/pods?limit=1000&continue=`;
        const t0 = performance.now();
        const r = await agent.request({ origin: target.origin, path, method: 'GET' });
        await r.body.arrayBuffer();
        statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
        waits.push(performance.now() - t0);
        answers[c] = (answers[c] ?? 0) + 1;
      }
    }));
  } finally {
    await agent.close();
  }
  const sorted = [...answers].sort((a, b) => a - b);
  const min = sorted[0] ?? 0;
  const max = sorted[sorted.length - 1] ?? 0;
  const total = answers.reduce((a, b) => a + b, 0);
  const slowest = Math.max(...waits);
  // One round: every client answered once, at the rate the server kept during the run.
  const round = (CLIENTS * RUN_MS) / total;
  const context = JSON.stringify({ statuses, answers: sorted, total, slowestMs: Math.round(slowest), roundMs: Math.round(round) });
  expect(Object.keys(statuses), context).toEqual(['200']);
  expect(total, context).toBeGreaterThan(CLIENTS * 4);
  expect(min * 2, context).toBeGreaterThanOrEqual(max);
  // Here 2.5–4.5 rounds (the first requests all arrive at once), 8 on a loaded CI machine; 18–20 rounds before. The
  // even share above is what fails first without turns; this bound is a backstop, loose enough for a machine's stall.
  expect(slowest, context).toBeLessThan(12 * round);
  expect(target.problems()).toEqual([]);
}, 60_000);
