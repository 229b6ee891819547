// The result of a run as text (stdout) and as a RELIABILITY.md entry, appended under "## Chaos".
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { BUNDLE_NODE } from '../../test/support/bundle.js';
import type { ChaosResult } from './chaos.js';
import { diffTotal, type Diff } from './state.js';

const s = (ms: number | undefined): string => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
const n = (x: number): string => x.toLocaleString('en-US');
const diff = (d: Diff): string => `missing ${d.missing}, extra ${d.extra}, stale ${d.stale}, duplicates ${d.duplicates}`;

export function machine(): string {
  const cpus = os.cpus();
  // The bundle may run on another Node than the harness (CLUSTERPEDIA_TEST_NODE): name the one clusterpedia ran on.
  const node = BUNDLE_NODE === process.execPath ? process.version : execFileSync(BUNDLE_NODE, ['--version'], { encoding: 'utf8' }).trim();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${node}`;
}

export function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (src/ modified)` : head;
  } catch {
    return 'unknown';
  }
}

function faults(r: ChaosResult): string {
  const total = Object.values(r.faultsByKind).reduce((a, b) => a + b, 0);
  const parts = Object.entries(r.faultsByKind).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`);
  return `${total} (${parts.join(', ')})${r.faultErrors > 0 ? `; ${r.faultErrors} failed to apply` : ''}`;
}

function watchers(r: ChaosResult): string {
  const w = r.watchers;
  const bad = w.reduce((a, x) => a + diffTotal(x.diff), 0);
  const expired = w.reduce((a, x) => a + x.stats.expired, 0);
  const breaks = w.reduce((a, x) => a + Object.values(x.stats.errors).reduce((p, q) => p + q, 0), 0);
  const ooo = w.reduce((a, x) => a + x.stats.outOfOrder, 0);
  const events = w.reduce((a, x) => a + x.stats.events, 0);
  const pauses = w.reduce((a, x) => a + x.stats.pauses, 0);
  const oooSamples = w.flatMap((x) => x.stats.outOfOrderSamples.map((t) => `${x.resource}: ${t}`)).slice(0, 5);
  return `${w.length} (${w.map((x) => x.resource).join(', ')}): ${bad} differences; ${n(events)} events, ${pauses} paused, ${breaks} broken requests resumed, ${expired} relists on 410, ${ooo} out-of-order${oooSamples.length ? ` (${oooSamples.join('; ')})` : ''}`;
}

/** With several processes (split), each one's restarts: how many were kills, how many exits after losing the lease. */
function perProcess(r: ChaosResult): string {
  if (r.processes.length <= 1) return '';
  const one = (p: ChaosResult['processes'][number]): string =>
    `${p.name} ${p.restarts}: ${p.kills} killed${p.leadershipLostExits ? `, ${p.leadershipLostExits} after losing the lease` : ''}`;
  return ` (${r.processes.map(one).join('; ')})`;
}

/** The rows of a run, shared by the text and the markdown forms. */
function rows(r: ChaosResult): [string, string][] {
  const o = r.options;
  const kills = r.faultsByKind.kill + r.faultsByKind['kill-mid-write'] + r.killsWhileDatabaseDown;
  return [
    ['result', r.passed ? 'PASS' : 'FAIL'],
    ...(o.topology === 'split' ? [['topology', `split: ${r.processes.map((p) => p.name).join(', ')} (the synchros elect a leader)`] as [string, string]] : []),
    ['backend', o.asyncCommit ? `${o.backend} (synchronous_commit=off: immediate stops lose reported commits)` : o.backend],
    ['seed', String(o.seed)],
    ['members', `${o.clusters} × ${n(o.pods)} pods: ${n(r.objectsInitial)} objects at start, ${n(r.objectsFinal)} at the end${o.excludeNamespaces.length > 0 ? `; not counted, and never to be stored: namespaces ${o.excludeNamespaces.join(', ')} (excluded)` : ''}`],
    ['chaos phase', `${s(o.durationMs)}, churn ${o.churnPerCluster} events/s per member (${n(r.memberChanges)} member changes, ${n(r.watchesClosedUnresponsive ?? 0)} watches closed by members as unresponsive); whole run ${s(r.totalMs)}`],
    ['faults injected', faults(r)],
    ['clusterpedia flags', r.bindingFlags.join(' ')],
    ['kill -9', `${kills}, of which ${r.killsMidTransaction} inside a storage write transaction${r.killsWhileDatabaseDown > 0 ? `, ${r.killsWhileDatabaseDown} with PostgreSQL down (restarted into no database)` : ''}`],
    ['restarts', `${r.restarts}${perProcess(r)} (unplanned exits: ${r.unplannedExits.length}); final SIGTERM ${r.shutdownHung ? 'HUNG (SIGKILL after 30 s)' : 'exited cleanly'}`],
    ['initial sync', s(r.initialSyncMs)],
    ['converged after the last fault', `${s(r.convergeMs)} (verified after ${s(r.verifiedMs)})`],
    ['diff via the API (paged lists)', diff(r.httpDiff)],
    ['diff via the storage module', `${diff(r.storageDiff)}; count drift ${r.storageChecks.countDrift.length}`],
    ['watchers', watchers(r)],
    ['error log lines', Object.keys(r.errorLogLines).length === 0 ? 'none' : Object.entries(r.errorLogLines).map(([m, c]) => `${m} ×${c}`).join('; ')],
  ];
}

export function textReport(r: ChaosResult): string {
  const lines = rows(r).map(([k, v]) => `  ${k.padEnd(32)} ${v}`);
  const samples = [...r.httpDiff.samples, ...r.storageDiff.samples, ...r.watchers.flatMap((w) => w.diff.samples), ...r.storageChecks.countDrift].slice(0, 12);
  const exits = r.unplannedExits.map((x) => `  unplanned exit of ${x.process} at ${s(x.atMs)} code ${x.code} signal ${x.signal}:\n    ${x.lastLines.join('\n    ')}`);
  return [`chaos run ${r.passed ? 'PASSED' : 'FAILED'} — logs in ${r.outDir}`, ...lines, ...samples.map((x) => `  e.g. ${x}`), ...exits, `  machine ${machine()}`].join('\n');
}

export function markdownEntry(r: ChaosResult, command: string): string {
  const o = r.options;
  const head = `### ${r.startedAt.slice(0, 10)} — ${o.backend}${o.topology === 'split' ? ' (split)' : ''}, ${o.clusters} × ${n(o.pods)} pods, ${s(o.durationMs)}, seed ${o.seed}: ${r.passed ? 'PASS' : 'FAIL'}`;
  const table = ['| | |', '|---|---|', ...rows(r).slice(1).map(([k, v]) => `| ${k} | ${v.replace(/\|/g, '\\|')} |`),
    `| machine | ${machine()} |`, `| commit | ${commit()} |`, `| command | \`${command}\` |`];
  return `${head}\n\n${table.join('\n')}\n`;
}

const SECTION = '## Chaos';
const INTRO = `${SECTION}

\`npm run chaos\` (bench/chaos/README.md) runs a simulated fleet with steady churn, synced by the built bundle
(\`clusterpedia binding\`) into SQLite or PostgreSQL, while a seeded scheduler injects member faults (dropped watches,
5xx bursts, member down/up, event-window compaction forcing 410, slow members), \`kill -9\` of clusterpedia (at any
moment, and the moment its storage writer is seen inside a transaction) and PostgreSQL stop/start. Then churn stops,
every fault is lifted, and storage is compared with every member object by object, through the API (paged lists) and
through the storage module; informer-style watch clients on clusterpedia must end with the members' state too.
Pass: zero missing, extra, stale (member RV ≠ stored \`shadow.clusterpedia.io/resource-version\`) and duplicate rows,
no count drift, every watcher equal to the members, no unplanned exit. The CI version is test/chaos/.

`;

/** Appends a run at the end of the "## Chaos" section (created when absent), leaving other sections alone. */
export function appendToReliability(file: string, entry: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Reliability\n\n';
  const start = text.search(/^## Chaos\b/m);
  if (start < 0) {
    writeFileSync(file, `${text.replace(/\n*$/, '\n\n')}${INTRO}${entry}`);
    return;
  }
  const after = text.slice(start + SECTION.length);
  const next = after.search(/^## (?!Chaos)/m);
  const end = next < 0 ? text.length : start + SECTION.length + next;
  const before = text.slice(0, end).replace(/\n*$/, '\n\n');
  writeFileSync(file, `${before}${entry}${next < 0 ? '' : `\n${text.slice(end)}`}`);
}
