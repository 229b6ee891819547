// `npm run overload`: 500 concurrent clients and 1,000 open watches against the built bundle's apiserver while storage
// changes; results replace the "## Overload" section of RELIABILITY.md. Env: OVERLOAD_CLIENTS, OVERLOAD_WATCHES,
// OVERLOAD_SECONDS, OVERLOAD_MAX_INFLIGHT, OVERLOAD_MAX_WATCHES, OVERLOAD_WRITES, OVERLOAD_RSS_BOUND_MIB.
// Exits 1 when an answer was not 200/429, a request hung, a 429 lacked Retry-After, the server crashed, memory
// passed the bound, or the server did not answer normally afterwards.
import { machine } from '../test/hostile/fuzz/run.js';
import { runOverload, type OverloadReport } from '../test/hostile/overload/load.js';
import { fmt, replaceReliabilitySection } from './fuzz-report.js';
import { envNumber } from './env.js';

const CLIENTS = envNumber('OVERLOAD_CLIENTS', 500);
const WATCHES = envNumber('OVERLOAD_WATCHES', 1000);
const SECONDS = envNumber('OVERLOAD_SECONDS', 60);
/** The default --max-requests-inflight. */
const MAX_INFLIGHT = envNumber('OVERLOAD_MAX_INFLIGHT', 400);
/** Below the number of watches (the default is 2,000) so that the watch limit is exercised too. */
const MAX_WATCHES = envNumber('OVERLOAD_MAX_WATCHES', 800);
const WRITES = envNumber('OVERLOAD_WRITES', 10);
const RSS_BOUND_MIB = envNumber('OVERLOAD_RSS_BOUND_MIB', 768);

function failures(r: OverloadReport): string[] {
  const f: string[] = [];
  if (r.crashed) f.push('the apiserver exited');
  const other = Object.keys(r.byStatus).filter((k) => k !== '200' && k !== '429');
  if (other.length) f.push(`answers other than 200/429: ${other.map((k) => `${k} ×${r.byStatus[k]}`).join(', ')}`);
  if (r.problems.length) f.push(`${r.problems.length} problems (first: ${r.problems[0]})`);
  if (r.watches.accepted + r.watches.rejected !== WATCHES) f.push(`watches neither accepted nor refused with 429: ${JSON.stringify(r.watches.other)}`);
  if (r.watches.withEvents !== r.watches.eventWatchers) f.push(`${r.watches.eventWatchers - r.watches.withEvents} accepted config-map watches saw no event`);
  if (!(r.rss.peakMiB < RSS_BOUND_MIB)) f.push(`peak RSS ${fmt(r.rss.peakMiB)} MiB is not under ${RSS_BOUND_MIB} MiB`);
  if (!r.after.statuses.every((s) => s === 200) || r.after.watchStatus !== 200) f.push(`after the load: ${r.after.statuses.join(', ')}, watch ${r.after.watchStatus}`);
  if (r.serverLogProblems.length) f.push(`${r.serverLogProblems.length} error lines in the apiserver log`);
  return f;
}

function section(r: OverloadReport, failed: string[]): string {
  const ms = (n: number): string => fmt(n, n < 10 ? 1 : 0);
  return `
Overload protections and where they are tested (all in \`npm test\`):

- \`--max-requests-inflight\` / \`--max-watches-inflight\`: beyond them a request or watch is answered 429 with
  \`Retry-After\` at once, before any work (\`/healthz\`, \`/readyz\`, \`/livez\`, \`/metrics\` are exempt) —
  test/hostile/overload.test.ts (100 clients and 200 watches against limits of 8 and 150) and the run below.
- Requests start in the order they arrived, a budget of work per event-loop turn (\`src/lib/turns.ts\`), so a
  saturated server reads every socket as requests come and shares itself evenly, and \`--max-requests-inflight\` counts
  the real backlog; in the binding role the synchro's write batches take turns in the same queue. Before, SQLite's
  synchronous reads ran back to back and some connections went unread for the whole run (200 clients for 30 s: 1 to
  52 answers each, client p99 31 s; now 24–35 each, p99 3.1 s; BENCHMARKS.md) — test/hostile/fairness.test.ts. In \`npm
  run overload\` the slowest 200 took 13.7 s before (381 answers/s) and 2.5 s with one request started per turn
  (f5c3b8a; 391 answers/s); the table below is the budget (b6240c3).
- \`--request-timeout\`: a request still running at its deadline is answered 504 Status at once, even when it waits for
  a storage connection; one whose body already started (a long list to a client that stopped reading) is cut, which
  frees its inflight slot and storage connection — test/hostile/request-timeout.test.ts.
- Watches: a client that stops reading is dropped once \`--watch-buffer-bytes\` of changes wait for it, or, while it
  receives its initial events (which hold a storage cursor), at \`--request-timeout\`; any stalled watch at its
  deadline plus 5 s — test/roles/apiserver/watch-slow-client.test.ts.
- \`--max-page-size\` (default 0 = off): a list or collection that asks for no limit gets at most this many items and a
  continue token (kept even with \`withContinue=false\`); a client-go style pager and \`kubectl --chunk-size\` get every
  object exactly once — test/hostile/max-page-size.test.ts. A client that does not follow continue tokens
  (\`kubectl --chunk-size=0\`) sees only the first page: the price of turning the cap on.
- Bodies are streamed (JSON, Table and YAML lists alike), so a response costs about one storage chunk of memory, not
  its size — test/hostile/yaml-list.test.ts.

Last \`npm run overload\`: **${failed.length === 0 ? 'passed' : `FAILED — ${failed.join('; ')}`}**. ${fmt(CLIENTS)} clients in closed loops
(paged and unpaged lists with label and field selectors, one request in 21 an unpaged list of every pod, gets, Tables, discovery, collections; on 429 they wait
5–25 % of Retry-After, so the server stays saturated) and ${fmt(WATCHES)} watches opened at once (half on config maps,
which change ${WRITES} times a second, half on pods and deployments), for ${SECONDS} s, against the bundle
(\`${r.serverArgs.join(' ')}\`) over SQLite with ${fmt(r.objects)} objects. Load generator and server share the machine.

| | |
|---|---|
| requests | ${fmt(r.requests)} in ${fmt(r.durationMs / 1000, 1)} s: **200 ×${fmt(r.byStatus['200'] ?? 0)}, 429 ×${fmt(r.byStatus['429'] ?? 0)}**${Object.keys(r.byStatus).filter((k) => k !== '200' && k !== '429').map((k) => `, ${k} ×${r.byStatus[k]}`).join('')} (no 5xx, no hang, no connection error) |
| throughput | ${fmt(r.throughput)} answered requests/s (200), ${fmt((r.byStatus['429'] ?? 0) / (r.durationMs / 1000))} 429/s |
| latency of 200s | p50 ${ms(r.ok.p50)} ms, p99 ${ms(r.ok.p99)} ms, max ${ms(r.ok.max)} ms |
| latency of 429s | p50 ${ms(r.rejected.p50)} ms, p99 ${ms(r.rejected.p99)} ms (every one with Retry-After: ${r.retryAfterMissing === 0 ? 'yes' : `no, ${r.retryAfterMissing} without`}) |
| watches | ${fmt(r.watches.accepted)} accepted (= \`--max-watches-inflight\`), ${fmt(r.watches.rejected)} refused with 429, ${Object.keys(r.watches.other).length ? `other ${JSON.stringify(r.watches.other)}` : 'no other outcome'}; ${fmt(r.watches.withEvents)}/${fmt(r.watches.eventWatchers)} config-map watches received events (${fmt(r.watches.events)} in all, ${fmt(r.writes)} changes); none ended early |
| resident memory (child) | start ${fmt(r.rss.startMiB)} MiB, **peak ${fmt(r.rss.peakMiB)} MiB** (bound ${RSS_BOUND_MIB} MiB), end ${fmt(r.rss.endMiB)} MiB |
| afterwards | ${r.after.statuses.join(', ')} for two lists, a collection, /readyz and discovery (slowest ${ms(r.after.maxMs)} ms); a new watch: ${r.after.watchStatus} |
| machine | ${machine()} |
| date | ${new Date().toISOString().slice(0, 10)} |
${failed.length && r.problems.length ? `\nFirst problems:\n\n${r.problems.slice(0, 15).map((p) => `- \`${p}\``).join('\n')}\n` : ''}`;
}

const r = await runOverload({
  clients: CLIENTS, watches: WATCHES, durationMs: SECONDS * 1000, maxRequestsInflight: MAX_INFLIGHT, maxWatchesInflight: MAX_WATCHES,
  writesPerSecond: WRITES, seed: 1, progress: (l) => console.log(l),
});
const failed = failures(r);
replaceReliabilitySection('## Overload', section(r, failed));
console.log(failed.length ? `FAILED: ${failed.join('; ')}` : `passed: ${fmt(r.requests)} requests, ${fmt(r.throughput)} ok/s, peak RSS ${fmt(r.rss.peakMiB)} MiB`);
process.exitCode = failed.length ? 1 : 0;
