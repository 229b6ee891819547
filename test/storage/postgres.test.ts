// The storage contract on PostgreSQL, plus what only PostgreSQL does (LISTEN/NOTIFY between processes).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../support/postgres.js';
import { storageContractTests } from './contract.js';
import { pod } from './fixtures.js';
import { postgresHarness } from './harness-postgres.js';

storageContractTests('postgres', postgresHarness);

describe('postgres only', () => {
  it('LISTEN/NOTIFY: a storage in another process hears the revisions another one writes', async () => {
    const h = await postgresHarness();
    try {
      await h.storage.migrate();
      const reader = await h.openAnother();
      const heard: string[] = [];
      reader.subscribe((r) => heard.push(r));
      // LISTEN is set up asynchronously on the first subscribe: wait until it is in place.
      const deadline = Date.now() + 10_000;
      let n = 0;
      while (heard.length === 0 && Date.now() < deadline) {
        await h.storage.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${n++}` })], deletes: [] });
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(heard.length).toBeGreaterThan(0);
      expect(Number(heard[heard.length - 1])).toBeLessThanOrEqual(n);
    } finally {
      await h.cleanup();
    }
  });

  it('after close() nothing it opened (pool, LISTEN connection) keeps the process alive', async () => {
    const db = await freshPostgresDatabase('cp_exit');
    const dir = mkdtempSync(join(tmpdir(), 'cp-exit-'));
    try {
      const open = fileURLToPath(new URL('../../src/storage/open.ts', import.meta.url));
      const log = fileURLToPath(new URL('../../src/lib/log.ts', import.meta.url));
      const script = join(dir, 'child.mts');
      writeFileSync(script, [
        `import { openStorage } from ${JSON.stringify(open)};`,
        `import { silentLogger } from ${JSON.stringify(log)};`,
        `const s = await openStorage({ url: ${JSON.stringify(db.url)} }, { logger: silentLogger() });`,
        `await s.migrate();`,
        `s.subscribe(() => {});`,
        `await s.list({ types: { kind: 'all' } });`,
        `await new Promise((r) => setTimeout(r, 300));`,
        `await s.close();`,
        `console.log('closed');`,
      ].join('\n'));
      const t0 = Date.now();
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 20_000, cwd: fileURLToPath(new URL('../../', import.meta.url)) });
      expect(stdout.trim()).toBe('closed');
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
