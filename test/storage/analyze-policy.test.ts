// When storage refreshes planner statistics: as the store grows, and as one cluster or one type grows within it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnalyzePolicy, StatisticsRefresher, type TypeRows } from '../../src/storage/analyze-policy.js';

const pods = (cluster: string, count: number): TypeRows => ({ cluster, group: '', version: 'v1', resource: 'pods', count });
const widgets = (cluster: string, count: number): TypeRows => ({ cluster, group: 'example.com', version: 'v1', resource: 'widgets', count });

/** A store opened over `clusters` clusters of `each` pods, and 1,000 ConfigMaps in the first (another type). */
function storeOf(clusters: number, each: number): AnalyzePolicy {
  const stored: TypeRows[] = [];
  for (let c = 0; c < clusters; c++) stored.push(pods(`c${c}`, each));
  stored.push({ cluster: 'c0', group: '', version: 'v1', resource: 'configmaps', count: 1000 });
  return new AnalyzePolicy(stored);
}

/** The write counts (cumulative) at which `record` said to refresh, for `batches` batches of `size` new pods each. */
function refreshesWhileAdding(p: AnalyzePolicy, cluster: string, batches: number, size: number): number[] {
  const at: number[] = [];
  for (let i = 1; i <= batches; i++) if (p.record(size, [pods(cluster, size)])) at.push(i * size);
  return at;
}

describe('AnalyzePolicy', () => {
  it('an empty store refreshes at 1k, 2k, 4k, 8k … writes', () => {
    expect(refreshesWhileAdding(new AnalyzePolicy(), 'a', 20, 500)).toEqual([1000, 2000, 4000, 8000]);
  });

  it('a cluster added to a large store is refreshed once it has 1,000 rows, then each time it doubles', () => {
    const p = storeOf(100, 10_000); // 1,001,000 rows: the store rule alone waits for a million more writes
    expect(refreshesWhileAdding(p, 'new', 40, 250)).toEqual([1000, 2000, 4000, 8000]);
  });

  it('a cluster that grows by as many rows as it had is refreshed; one that grows less is not', () => {
    const p = storeOf(100, 10_000);
    expect(p.record(9_999, [pods('c5', 9_999)])).toBe(false);
    expect(p.record(1, [pods('c5', 1)])).toBe(true);
    // Now 20,000 rows: 10,000 more are not enough.
    expect(p.record(10_000, [pods('c5', 10_000)])).toBe(false);
  });

  it('a new type is refreshed once it has 1,000 rows across clusters, though no cluster has that many of it', () => {
    const p = storeOf(100, 10_000);
    let refreshed = false;
    for (let c = 0; c < 99; c++) refreshed ||= p.record(10, [widgets(`c${c}`, 10)]);
    expect(refreshed).toBe(false); // 990 widgets
    expect(p.record(10, [widgets('c99', 10)])).toBe(true);
  });

  it('updates and deletions never make a cluster due; the store rule still counts them as writes', () => {
    const p = storeOf(10, 1000); // 11,000 rows
    for (let i = 0; i < 10; i++) expect(p.record(1000, [])).toBe(false); // 10,000 updates: not yet 11,000 writes
    expect(p.record(1000, [pods('c1', -1000)])).toBe(true); // the store rule: 10,000 updates + 1,000 deletions
    expect(p.record(600, [pods('c1', -600)])).toBe(false);
  });

  it('rows counted at a refresh carry to the next: a cluster emptied and filled again is due at 1,000 rows', () => {
    const p = storeOf(100, 10_000);
    expect(p.record(0, [pods('c7', -10_000)])).toBe(false);
    expect(p.record(1000, [pods('new', 1000)])).toBe(true); // forgets c7's 10,000 rows
    expect(p.record(999, [pods('c7', 999)])).toBe(false);
    expect(p.record(1, [pods('c7', 1)])).toBe(true);
  });
});

describe('StatisticsRefresher', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A refresher over an empty store whose refreshes take `ms` of the fake clock each, recording when they ran. */
  function refresher(ms: number, fail = false): { r: StatisticsRefresher; ran: number[]; errors: unknown[] } {
    vi.useFakeTimers({ now: 0 });
    const ran: number[] = [];
    const errors: unknown[] = [];
    const r = new StatisticsRefresher([], async () => {
      ran.push(Date.now());
      vi.advanceTimersByTime(ms);
      if (fail) throw new Error('server went away');
    }, (e) => errors.push(e), { now: () => Date.now() });
    return { r, ran, errors };
  }

  it('a refresh due within nineteen times the last one\'s duration waits for it, once however many writes came', async () => {
    const { r, ran } = refresher(100);
    await r.afterWrite(1000, [pods('a', 1000)]); // due: runs at once, ends at 100 ms
    expect(ran).toEqual([0]);
    vi.setSystemTime(200);
    await r.afterWrite(1000, [pods('a', 1000)]); // due again, allowed from 100 + 1,900 ms
    await r.afterWrite(5000, [pods('a', 5000)]); // due again: the same pending refresh
    expect(ran).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1799);
    expect(ran).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual([0, 2000]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ran).toEqual([0, 2000]);
  });

  it('a refresh due while one runs follows it without another write', async () => {
    vi.useFakeTimers({ now: 0 });
    const ran: number[] = [];
    let r: StatisticsRefresher | undefined;
    r = new StatisticsRefresher([], async () => {
      ran.push(Date.now());
      vi.advanceTimersByTime(10);
      if (ran.length === 1) await r?.afterWrite(1000, [pods('b', 1000)]);
    }, () => {}, { now: () => Date.now() });
    await r.afterWrite(1000, [pods('a', 1000)]);
    expect(ran).toEqual([0]);
    await vi.advanceTimersByTimeAsync(190);
    expect(ran).toEqual([0, 200]);
  });

  it('a failed refresh is reported, not thrown at the write', async () => {
    const { r, ran, errors } = refresher(5, true);
    await expect(r.afterWrite(1000, [pods('a', 1000)])).resolves.toBeUndefined();
    expect(ran).toEqual([0]);
    expect(errors).toEqual([new Error('server went away')]);
  });

  it('rows changed since the database last took statistics make the first write refresh: a hundredth of the store, 1k at least', async () => {
    /** Refreshes run by the first write of a refresher opened over `stored` with `changed` rows changed since. */
    const atFirstWrite = async (stored: TypeRows[], changed: number): Promise<number> => {
      let n = 0;
      const r = new StatisticsRefresher(stored, async () => void n++, () => {}, { changedSinceRefresh: changed });
      await r.afterWrite(1, []);
      return n;
    };
    const million = Array.from({ length: 100 }, (_, c) => pods(`c${c}`, 10_000));
    expect(await atFirstWrite(million, 10_000)).toBe(1);
    expect(await atFirstWrite(million, 9_999)).toBe(0);
    expect(await atFirstWrite([pods('a', 500)], 1000)).toBe(1);
    expect(await atFirstWrite([pods('a', 500)], 999)).toBe(0);
  });

  it('no refresh starts after close, a scheduled one included', async () => {
    const { r, ran } = refresher(100);
    await r.afterWrite(1000, [pods('a', 1000)]);
    await r.afterWrite(1000, [pods('a', 1000)]);
    await r.close();
    await vi.advanceTimersByTimeAsync(60_000);
    await r.afterWrite(100_000, [pods('a', 100_000)]);
    expect(ran).toEqual([0]);
  });

  it('close with refreshDue runs a refresh that waits for its turn, and only one that is due', async () => {
    const { r, ran } = refresher(100);
    await r.afterWrite(1000, [pods('a', 1000)]);
    vi.setSystemTime(200);
    await r.afterWrite(1000, [pods('a', 1000)]); // due, waiting until 2,000 ms
    await r.close({ refreshDue: true });
    expect(ran).toEqual([0, 200]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ran).toEqual([0, 200]);
    const idle = refresher(100);
    await idle.r.afterWrite(1000, [pods('a', 1000)]);
    await idle.r.close({ refreshDue: true });
    expect(idle.ran).toEqual([0]);
  });
});
