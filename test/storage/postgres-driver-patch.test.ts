// postgres.js crashes the process when a statement is written on a reserved connection that has closed (porsager/
// postgres#1208): our transactions run on reserved connections, so a PostgreSQL stopped or failed over mid-write ended
// the synchro (chaos seed 18003). driver-patch.mjs guards it in the bundle and under the tests; each variant runs in a
// child process here, so the crash is observed rather than suffered.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchPostgresConnection } from '../../src/storage/postgres/driver-patch.mjs';
import { ensureBundle, ROOT } from '../support/bundle.js';
import { freshPostgresDatabase } from '../support/postgres.js';

let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
beforeAll(async () => { db = await freshPostgresDatabase('cp_next_write'); });
afterAll(async () => { await db?.drop(); });

const REGISTER = './src/storage/postgres/driver-patch-register.mjs';

function child(mode: 'patched' | 'unpatched', tsxFlags: string[] = [], scenario: 'next-write' | 'error-then-close' | 'rows-after-error' = 'next-write'): { code: number | null; out: string } {
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [...tsxFlags, join(ROOT, 'test', 'support', 'pg-next-write-child.ts'), db.url, mode, scenario], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('postgres.js on a reserved connection that closed', () => {
  it('as installed, the next statement\'s write ends the process (if this fails, upstream fixed it: drop the patch)', () => {
    const r = child('unpatched');
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).toMatch(/Cannot read properties of null \(reading 'write'\)[\s\S]*nextWrite/);
    expect(r.out).not.toContain('survived');
  });

  it('patched, the statement fails with CONNECTION_CLOSED and the process goes on', () => {
    const r = child('patched');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('rejected CONNECTION_CLOSED');
    expect(r.out).toContain('survived');
  });

  it('run from source with the module hook (benchmarks, chaos: tsx --import driver-patch-register.mjs), the installed module is guarded', () => {
    const r = child('unpatched', ['--import', REGISTER]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('rejected CONNECTION_CLOSED');
    expect(r.out).toContain('survived');
  });

  it('every package.json script that runs source with tsx loads the hook (the chaos harness\'s own clients crashed without it)', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const runs = Object.entries(scripts).flatMap(([name, line]) => [...line.matchAll(/\btsx\b([^&]*)/g)].map((m) => [name, m[1] ?? ''] as const));
    expect(runs.length).toBeGreaterThan(5);
    for (const [name, args] of runs) expect(args, name).toContain(`--import ${REGISTER}`);
  });

  it('as the tests load it (vitest.config.ts applies the patch), the same statement is rejected in this process', async () => {
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const reserved = await sql.reserve();
      const [row] = await reserved`SELECT pg_backend_pid() AS pid`;
      await admin`SELECT pg_terminate_backend(${(row as { pid: number }).pid})`;
      await new Promise((r) => setTimeout(r, 100));
      await expect(reserved`SELECT 1`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    } finally {
      await sql.end({ timeout: 1 });
      await admin.end({ timeout: 1 });
    }
  });

  it('the bundle carries both fixes, and a changed nextWrite() fails the build instead of shipping unguarded', () => {
    // The bundle's whitespace is minified: compared without any.
    const bundle = readFileSync(ensureBundle(), 'utf8').replace(/\s+/g, '');
    expect(bundle).toContain('functionnextWrite(fn){if(!socket){');
    // esbuild drops the fixes' marker comments: the code says it.
    expect(bundle).toContain('(query||sent.length)&&error(Errors.connection("CONNECTION_CLOSED"');
    expect(bundle).not.toContain('!hadError&&(query||sent.length)');
    expect(() => patchPostgresConnection('function nextWrite(fn) { return socket && socket.write(chunk, fn) }', 'connection.js')).toThrow(/remove the patch/);
  });
});

describe('postgres.js, a statement sent between its socket failing and closing', () => {
  it('as installed, it is never answered nor rejected (if this fails, upstream fixed porsager/postgres#1130: drop that fix)', () => {
    const r = child('unpatched', [], 'error-then-close');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('first rejected ECONNRESET');
    expect(r.out).toMatch(/^pending$/m);
  });

  it('patched, it is rejected with CONNECTION_CLOSED, which storage retries', () => {
    const r = child('patched', [], 'error-then-close');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('first rejected ECONNRESET');
    expect(r.out).toContain('rejected CONNECTION_CLOSED');
    expect(r.out).toContain('survived');
  });

  it('a fix whose code changed upstream fails the build', () => {
    const src = readFileSync(join(ROOT, 'node_modules', 'postgres', 'src', 'connection.js'), 'utf8');
    const changed = src.replace("!hadError && (query || sent.length)", '!hadError && (sent.length || query)');
    expect(() => patchPostgresConnection(changed, 'connection.js')).toThrow(/porsager\/postgres#1130; if it is fixed in this version, remove the patch/);
  });
});

describe('postgres.js, the statement after one that failed mid-stream', () => {
  it('as installed, its result has a hole for every row the failed one received (if this fails, upstream fixed porsager/postgres#1119: drop that fix)', () => {
    const r = child('unpatched', [], 'rows-after-error');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('first rejected 22012');
    expect(r.out).toMatch(/^length 8 holes 3$/m);
  });

  it('patched, it holds its own rows and nothing else', () => {
    const r = child('patched', [], 'rows-after-error');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^length 5 holes 0$/m);
  });

  it('as the tests load it, the next statement on the connection holds its own rows', async () => {
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      await expect(sql`SELECT i, 1 / (4 - i) AS boom FROM generate_series(1, 10) i`).rejects.toMatchObject({ code: '22012' });
      const rows = await sql`SELECT x FROM generate_series(1, 5) x`;
      expect(rows).toHaveLength(5);
      expect(rows.map((r) => (r as { x: number }).x)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('the bundle carries the fix', () => {
    expect(readFileSync(ensureBundle(), 'utf8').replace(/\s+/g, '')).toContain('result=newResult;rows=0;');
  });
});
