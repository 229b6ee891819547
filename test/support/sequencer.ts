// Test files in the order that finishes soonest on two workers: the longest first (longest-processing-time
// scheduling), then vitest's own order. On a clean clone vitest has no durations cached and starts large files
// first, which left the chaos run (a small file, ~2 minutes) and the synchro suites for the end: the last minutes of
// CI ran one of them alone. The list holds the files that take over ~20 s (from `.ci/run`'s JSON report).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = [
  'test/chaos/chaos.test.ts',
  'test/hostile/http-fuzz.test.ts',
  'test/roles/synchro/faults-postgres.test.ts',
  'test/storage/postgres.test.ts',
  'test/roles/synchro/sync-postgres.test.ts',
  'test/roles/synchro/faults-sqlite.test.ts',
  'test/e2e/bundle-cli.test.ts',
  'test/roles/synchro/sync-sqlite.test.ts',
];

const rank = (f: TestSpecification): number => {
  const i = LONGEST.findIndex((p) => f.moduleId.endsWith(p));
  return i < 0 ? LONGEST.length : i;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: vitest's order is kept among the rest.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
