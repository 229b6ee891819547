// `npm run fuzz`: the long HTTP fuzzing run (default 100,000 requests) against the built bundle; results replace the
// "## Hostile input" section of RELIABILITY.md. Env: FUZZ_REQUESTS, FUZZ_SEED, FUZZ_CONCURRENCY, FUZZ_RSS_BOUND_MIB,
// FUZZ_BACKEND (sqlite, or postgres: a throwaway PostgreSQL server started for the run).
// Exits 1 when anything failed (a 5xx, a hang, a crash, a non-Status error, an injection match, storage changed).
import { throwawayPostgresDatabase } from '../test/hostile/fuzz/postgres.js';
import { runFuzz, type FuzzReport } from '../test/hostile/fuzz/run.js';
import { fmt, replaceReliabilitySection } from './fuzz-report.js';
import { envNumber } from './env.js';

const REQUESTS = envNumber('FUZZ_REQUESTS', 100_000);
const SEED = envNumber('FUZZ_SEED', 1);
const CONCURRENCY = envNumber('FUZZ_CONCURRENCY', 16);
const RSS_BOUND_MIB = envNumber('FUZZ_RSS_BOUND_MIB', 512);
const BACKEND = process.env.FUZZ_BACKEND ?? 'sqlite';
if (BACKEND !== 'sqlite' && BACKEND !== 'postgres') throw new Error('FUZZ_BACKEND must be sqlite or postgres');

function failures(r: FuzzReport): string[] {
  const f: string[] = [];
  if (r.crashed) f.push('the apiserver exited');
  if (r.fiveXX) f.push(`${r.fiveXX} answers were 5xx`);
  if (r.hangs) f.push(`${r.hangs} requests hung`);
  if (r.unexpectedDrops) f.push(`${r.unexpectedDrops} connections closed without an answer`);
  if (r.violations) f.push(`${r.violations} answers broke a rule (Status bodies, Retry-After, injection, cut bodies)`);
  if (r.serverLogProblems.length) f.push(`${r.serverLogProblems.length} error lines in the apiserver log`);
  if (r.leftInFlight.requests || r.leftInFlight.watches) f.push(`${r.leftInFlight.requests} requests and ${r.leftInFlight.watches} watches still in flight after the clients left`);
  if (!(r.rss.peakMiB < RSS_BOUND_MIB)) f.push(`peak RSS ${fmt(r.rss.peakMiB)} MiB is not under ${RSS_BOUND_MIB} MiB`);
  if (!r.storage.unchanged) f.push('storage changed');
  if (r.probes.failures.length) f.push(`${r.probes.failures.length} injection probes failed`);
  if (r.probes.baselinesMatched !== r.probes.baselines) f.push('a probe baseline found nothing');
  if (new Set(r.probes.podCounts).size !== 1) f.push(`pod counts differ between orderings: ${r.probes.podCounts.join(', ')}`);
  if (!r.healthyAfter) f.push('a plain list failed after the run');
  return f;
}

function section(r: FuzzReport, failed: string[]): string {
  const cls = (k: string): string => fmt(r.byClass[k] ?? 0);
  const statuses = Object.entries(r.byStatus).sort(([a], [b]) => Number(a) - Number(b)).map(([s, n]) => `${s}: ${fmt(n)}`).join(', ');
  const labels = Object.entries(r.byLabel).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${fmt(n)}`).join(', ');
  const counts = Object.entries(r.storage.after.counts).map(([t, n]) => `${t} ${fmt(n)}`).join(', ');
  return `
Property tests (fast-check, in \`npm test\`) cover the parsers: label and field selectors (test/kube/selector-properties.test.ts),
continue tokens (test/storage/continue-token.test.ts, and tampered, truncated, forged and foreign tokens through both storage
dialects in test/hostile/continue-token-tampering.test.ts), since/before (test/kube/search-time.test.ts and
test/hostile/search-time-properties.test.ts), orderby round trips (test/hostile/orderby-properties.test.ts), and URL → ListQuery
→ storage end to end (test/roles/apiserver/list-options-properties.test.ts, test/hostile/list-options-storage.test.ts): every
input gives a result or a typed error (a 400 Status naming the parameter), never anything else.

The HTTP fuzzer (test/hostile/fuzz/) sends a seeded stream of generated requests to the built bundle's apiserver (a child
process, \`${r.serverArgs.join(' ')}\`) over ${r.backend === 'postgres' ? 'a throwaway PostgreSQL database' : 'a SQLite file'} holding ${fmt(r.objects)} objects (pods, deployments, replicasets,
services, configmaps, namespaces, nodes and a CRD across 5 clusters): random and traversal paths, every list/watch
parameter with grammar fragments, SQL-injection strings, huge values, broken UTF-8 and invalid %-escapes, label and field
selectors, valid/tampered/forged/foreign continue tokens, watches with odd resourceVersions and timeouts, methods, Accept
headers, oversized headers and bodies, and over raw sockets malformed framing, smuggling-shaped Content-Length /
Transfer-Encoding, pipelining, slowloris (headers dribbled) and clients that stop reading. Then ${fmt(r.probes.probes)}
SQL-injection probes put each of the injection strings in every filtering position (URL parameters, search labels,
fuzzy names, owner, field paths and values, path cluster, namespace and name, continue, orderby): each must answer 4xx or
an empty list, while ${r.probes.baselines} baselines with real values in the same positions do find rows.
\`npm test\` runs 3,000 requests on SQLite and 1,500 on PostgreSQL (test/hostile/http-fuzz.test.ts); \`npm run fuzz\` the long run below
(\`FUZZ_REQUESTS\`, \`FUZZ_SEED\`, \`FUZZ_CONCURRENCY\`, \`FUZZ_BACKEND\`).

Found by it (2026-12-01, seed 1201): a raw \`#\` in a request's query cut off every parameter after it (the WHATWG URL
took it for a fragment), so \`…?x=#&namespaces=')%20OR%20('a'%3D'a\` listed every node where kube-apiserver, which
reads \`#\` as data, would have applied the filter. Fixed by reading the target as Go's \`ParseRequestURI\` does;
test/roles/apiserver/resources-http.test.ts sends one over node:http. On PostgreSQL (seed 77), where answers come
slowly enough for clients to leave mid-request, requests stayed in flight for good, one in ~70, until every new one
got a 429: the pipelined requests of a connection the client closed (Node gives a response queued behind another no
socket, and no 'close' when the connection goes, so its handler waited for one forever), and a streamed body ended after
its client left (Node calls \`end()\`'s callback only on 'finish'). Waits now end on the connection's close too; the run
checks that nothing is left in flight once the clients have gone (test/hostile/abandoned-requests.test.ts, and the
PostgreSQL run in \`npm test\`).

Last \`npm run fuzz\`: **${failed.length === 0 ? 'passed' : `FAILED — ${failed.join('; ')}`}**

| | |
|---|---|
| requests | ${fmt(r.requests)} (seed ${r.seed}, ${CONCURRENCY} in flight, of which ≤ 4 slow) + ${fmt(r.probes.probes)} injection probes |
| duration | ${fmt(r.durationMs / 1000, 1)} s (${fmt(r.requests / (r.durationMs / 1000))} requests/s) |
| by status class | 2xx ${cls('2xx')}, 3xx ${cls('3xx')}, 4xx ${cls('4xx')}, **5xx ${cls('5xx')}**; abandoned by the client on purpose ${cls('abandoned')} |
| status codes | ${statuses} |
| crashes / hangs | ${r.crashed ? 1 : 0} / ${r.hangs} |
| connections closed without an answer | ${r.unexpectedDrops} unexpected; ${r.toleratedDrops} uploads of MiBs or headers past 16 KiB refused by closing |
| rule violations | ${r.violations} (errors that are not a Status, 429 without Retry-After, bodies cut, injection rows) |
| apiserver error log lines | ${r.serverLogProblems.length} |
| left in flight once the clients had gone | ${r.leftInFlight.requests} requests, ${r.leftInFlight.watches} watches |
| resident memory (child) | start ${fmt(r.rss.startMiB)} MiB, **peak ${fmt(r.rss.peakMiB)} MiB** (VmHWM; bound ${RSS_BOUND_MIB} MiB), end ${fmt(r.rss.endMiB)} MiB; after each tenth: ${r.rss.timeline.join(', ')} MiB |
| storage before/after | ${r.storage.unchanged ? 'identical' : '**CHANGED**'}: ${counts}; sha256 ${r.storage.after.checksum.slice(0, 16)}… |
| injection probes | ${fmt(r.probes.probes)} probes, ${r.probes.failures.length} failures; baselines ${r.probes.baselinesMatched}/${r.probes.baselines}; pod count under injected orderings ${[...new Set(r.probes.podCounts)].join('/')} |
| machine | ${r.machine} |
| date | ${r.date.slice(0, 10)} |

Request mix: ${labels}.
${failed.length ? `\nFirst problems:\n\n${[...r.problems.slice(0, 20), ...r.probes.failures.slice(0, 20).map((f) => `injection probe: ${f}`), ...r.serverLogProblems.slice(0, 10).map((l) => `apiserver log: ${l}`)].map((p) => `- \`${p.replaceAll('`', "'")}\``).join('\n')}\n` : ''}`;
}

const pg = BACKEND === 'postgres' ? await throwawayPostgresDatabase() : undefined;
let r: FuzzReport;
try {
  r = await runFuzz({ seed: SEED, requests: REQUESTS, concurrency: CONCURRENCY, slowConcurrency: 4, ...(pg ? { postgresUrl: pg.url } : {}), progress: (l) => console.log(l) });
} finally {
  pg?.stop();
}
const failed = failures(r);
replaceReliabilitySection('## Hostile input', section(r, failed));
console.log(failed.length ? `FAILED: ${failed.join('; ')}` : `passed: ${fmt(r.requests)} requests, peak RSS ${fmt(r.rss.peakMiB)} MiB`);
for (const p of r.problems.slice(0, 30)) console.log(p);
process.exitCode = failed.length ? 1 : 0;
