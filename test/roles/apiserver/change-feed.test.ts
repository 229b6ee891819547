// The change feed (one reader of the change log for every watch of a process) gives up a read that never answers, and
// tells its watchers why it ends them.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { ChangeFeed } from '../../../src/roles/apiserver/change-feed.js';
import type { Change, ChangesResult, StorageReader } from '../../../src/storage/types.js';
import { pod } from '../../storage/fixtures.js';
import { sqliteHarness } from '../../storage/harness-sqlite.js';

describe('change feed', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it('a read of the change log that never answers (a connection that died without a word) is given up and tried again', async () => {
    const h = await sqliteHarness();
    cleanup = () => h.cleanup();
    const s = h.storage;
    await s.migrate();
    const changesSince = s.changesSince.bind(s);
    let reads = 0;
    let hung = false;
    s.changesSince = (revision, filter, limit) => {
      reads++;
      if (hung) return changesSince(revision, filter, limit);
      hung = true;
      return new Promise<never>(() => undefined);
    };
    const feed = new ChangeFeed(s, { pollIntervalMs: 20, readTimeoutMs: 300 }, silentLogger());
    const got: Change[] = [];
    feed.subscribe({ push: (changes) => got.push(...changes), expire: () => undefined });
    const ac = new AbortController();
    const running = feed.start(ac.signal);
    try {
      await feed.ready;
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] });
      const deadline = Date.now() + 5000;
      while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(got.map((c) => [c.type, c.row.name])).toEqual([['ADDED', 'a']]);
      expect(reads).toBeGreaterThan(1);
    } finally {
      ac.abort();
      await running;
    }
  });

  /**
   * The message a watcher of a feed is ended with when, after the feed's first read at revision 10, the change log's
   * `state()` becomes what it is: the head then moves to `headAfter` while the feed is between its two reads (change log,
   * head).
   */
  async function expiryAfter(state: { head: number; compacted: number }, headAfter: number): Promise<string[]> {
    let s = { head: 10, compacted: 0 };
    const storage: Pick<StorageReader, 'subscribe' | 'currentRevision' | 'changesSince'> = {
      subscribe: () => () => undefined,
      currentRevision: async () => String(s.head),
      changesSince: async (revision): Promise<ChangesResult> => {
        const after = Number(revision);
        const answer: ChangesResult = after < s.compacted || after > s.head ? { expired: true, oldestRevision: String(s.compacted) } : { expired: false, changes: [], revision: String(s.head) };
        if (s.head !== 10) s = { ...s, head: headAfter };
        return answer;
      },
    };
    const feed = new ChangeFeed(storage, { pollIntervalMs: 10 }, silentLogger());
    const expired: string[] = [];
    feed.subscribe({ push: () => undefined, expire: (m) => expired.push(m) });
    const ac = new AbortController();
    const running = feed.start(ac.signal);
    try {
      await feed.ready;
      s = state;
      const deadline = Date.now() + 5000;
      while (expired.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return expired;
    } finally {
      ac.abort();
      await running;
    }
  }

  it('storage that went back behind the feed, then moved up past it before the feed read the head, is said to have gone back', async () => {
    // What a restore meets: the feed reads the restored change log (head 4, below its 10), then a synchro starting moves
    // the revision a million up, then the feed reads the head, now above its own.
    expect(await expiryAfter({ head: 4, compacted: 0 }, 1_000_010)).toEqual([expect.stringMatching(/^the storage went back from revision 10 .*now at 1000010/)]);
  });

  it('a feed whose head the change log compacted away is said to have fallen behind, not the storage to have gone back', async () => {
    expect(await expiryAfter({ head: 3_000_000, compacted: 2_000_000 }, 3_000_000)).toEqual([expect.stringMatching(/^too old resource version: 10 \(the server fell behind its change log\)/)]);
  });
});
