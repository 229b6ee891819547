// The short chaos run of CI (bench/chaos, `npm run chaos -- --preset short`): 10 members under churn, ~30 seeded faults in
// 45 s (dropped watches, 5xx, members down, compaction → 410, slow members, kill -9 of the bundle mid-write, PostgreSQL
// stop/start), then storage and informer-style watchers on clusterpedia must equal the members object by object.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos/chaos.js';
import { chaosOptions, type Backend, type Topology } from '../../bench/chaos/options.js';
import { textReport } from '../../bench/chaos/report.js';

const SEED = Number(process.env.CHAOS_SEED ?? 1);
const ac = new AbortController();
afterAll(() => ac.abort());

// The split topology (`--topology split`) is left to `npm run chaos`: a third run here loaded CI's two cores enough
// that a PostgreSQL watch test beside it ran out of time once. The SQLite run excludes kube-system (spec.excludeNamespaces),
// with every other member refusing field selectors on ConfigMaps, so that path meets the faults too.
describe.each<[Backend, Topology, string[]]>([['sqlite', 'binding', ['kube-system']], ['postgres', 'binding', []]])('chaos (%s, %s, excluding %j)', (backend, topology, excludeNamespaces) => {
  it('ends with storage and every watcher equal to the members', { timeout: 420_000 }, async () => {
    const r = await runChaos(chaosOptions('short', backend, { seed: SEED, topology, excludeNamespaces }), {
      signal: ac.signal,
      progress: (line) => {
        if (process.env.CHAOS_VERBOSE) process.stderr.write(`${line}\n`);
      },
    });
    const report = textReport(r);
    // The figures belong in the CI log whatever the outcome (the seed reproduces a failure: CHAOS_SEED=<n>).
    process.stdout.write(`${report}\n`);
    const injected = Object.values(r.faultsByKind).reduce((a, b) => a + b, 0);
    expect(injected, report).toBeGreaterThanOrEqual(25);
    expect(r.faultsByKind.kill + r.faultsByKind['kill-mid-write'], report).toBeGreaterThan(0);
    if (backend === 'postgres') expect(r.faultsByKind['postgres-stop'], report).toBeGreaterThan(0);
    expect(r.convergeMs, report).toBeDefined();
    expect(r.httpDiff, report).toMatchObject({ missing: 0, extra: 0, stale: 0, duplicates: 0 });
    expect(r.storageDiff, report).toMatchObject({ missing: 0, extra: 0, stale: 0, duplicates: 0 });
    expect(r.storageChecks.countDrift, report).toEqual([]);
    for (const w of r.watchers) {
      expect(w.diff, `${w.name}\n${report}`).toMatchObject({ missing: 0, extra: 0, stale: 0 });
      expect(w.stats.outOfOrder, `${w.name}\n${report}`).toBe(0);
    }
    if (topology === 'split') expect(r.processes.map((p) => p.name), report).toEqual(['synchro-1', 'synchro-2', 'apiserver-1', 'apiserver-2']);
    expect(r.unplannedExits, report).toEqual([]);
    expect(r.shutdownHung, report).toBe(false);
    expect(r.passed, report).toBe(true);
    rmSync(r.outDir, { recursive: true, force: true });
  });
});
