// The shipped artifact: dist/clusterpedia.mjs answers --help, --version and migrate, with the documented exit codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBundle } from '../support/bundle.js';
import { freshPostgresDatabase } from '../support/postgres.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cp-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dist/clusterpedia.mjs', () => {
  it('--help lists every command and exits 0; --version prints the version', async () => {
    const help = await runBundle(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['binding', 'apiserver', 'synchro', 'migrate', 'show', 'simulate']) expect(help.stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
    for (const c of ['binding', 'apiserver', 'synchro', 'migrate', 'show clusters', 'show resources', 'simulate']) {
      const r = await runBundle([...c.split(' '), '--help']);
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toMatch(/Usage: clusterpedia/);
    }
    const v = await runBundle(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('migrate creates a fresh SQLite schema, then is a no-op', async () => {
    const url = `sqlite:${join(dir, 'fresh.db')}`;
    const first = await runBundle(['migrate', '--storage', url, '--log-level', 'warn']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/schema version 0 → \d+/);
    const again = await runBundle(['migrate', '--storage', url, '--log-level', 'warn']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/up to date/);
  });

  it('migrate creates a fresh PostgreSQL schema, then is a no-op', async () => {
    const db = await freshPostgresDatabase('cli');
    try {
      const first = await runBundle(['migrate', '--storage', db.url, '--log-level', 'warn']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/schema version 0 → \d+/);
      const again = await runBundle(['migrate', '--storage', db.url, '--log-level', 'warn']);
      expect(again.stdout).toMatch(/up to date/);
    } finally {
      await db.drop();
    }
  });

  it('bad flags exit 2 naming the flag; a runtime failure exits 1', async () => {
    const cases: [string[], RegExp][] = [
      [['apiserver', '--secure-port', 'abc'], /--secure-port/],
      [['apiserver', '--max-requests-inflight', '-3'], /--max-requests-inflight/],
      [['binding', '--request-timeout', 'soon'], /--request-timeout/],
      [['synchro', '--page-size', '0', '--clusters', 'x.yaml'], /--page-size/],
      [['migrate', '--storage', 'mysql://root@db/x'], /--storage/],
      [['show', 'clusters', '-o', 'xml'], /--output/],
      [['--log-level', 'loud', 'show', 'clusters'], /--log-level/],
      [['synchro'], /cluster source|--clusters/],
    ];
    for (const [args, flag] of cases) {
      const r = await runBundle(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(flag);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
    const env = await runBundle(['apiserver'], { env: { CLUSTERPEDIA_SECURE_PORT: 'x' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/secure-port/i);
    const unreachable = await runBundle(['migrate', '--storage', 'postgres://u@127.0.0.1:1/db', '--log-level', 'silent']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).not.toMatch(/\n\s+at /);
  });
});
