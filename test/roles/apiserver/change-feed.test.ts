// The change feed (one reader of the change log for every watch of a process) gives up a read that never answers.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { ChangeFeed } from '../../../src/roles/apiserver/change-feed.js';
import type { Change } from '../../../src/storage/types.js';
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
});
