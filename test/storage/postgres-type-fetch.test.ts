// postgres.js drops the promise of the array-type query each new connection starts with: when that query fails, the
// rejection is unhandled and Node ends the process (porsager/postgres#1192). A real server, a real client whose
// connections cannot run it (a role that may not read pg_type in its database: the query fails every time, where a
// 1 ms statement_timeout let it through now and then), in a child process each: without the bundle's guard the
// process dies; with it, it goes on with a warning; any other unhandled rejection still ends it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundle.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const role = `cp_type_fetch_${randomBytes(6).toString('hex')}`;
const password = randomBytes(12).toString('hex');
let db: { url: string; drop: () => Promise<void> };
let url: string;
beforeAll(async () => {
  db = await freshPostgresDatabase('cp_type_fetch');
  const admin = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await admin.unsafe('REVOKE SELECT ON pg_catalog.pg_type FROM PUBLIC');
  } finally {
    await admin.end();
  }
  const u = new URL(db.url);
  u.username = role;
  u.password = password;
  url = u.toString();
});
afterAll(async () => {
  await db?.drop();
  const u = new URL(db.url);
  u.pathname = '/postgres';
  const admin = postgres(u.toString(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP ROLE IF EXISTS ${role}`);
  } finally {
    await admin.end();
  }
});

function child(mode: 'guarded' | 'unguarded' | 'unrelated'): { code: number | null; out: string } {
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'test', 'support', 'pg-type-fetch-child.ts'), url, mode], {
    cwd: ROOT, encoding: 'utf8', timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('postgres.js array-type query failing as a connection starts', () => {
  it('ends an unguarded process (the upstream bug this guards against is still there)', () => {
    const r = child('unguarded');
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).not.toContain('survived');
    expect(r.out).toMatch(/42501|permission denied for table pg_type/);
  });

  it('with the guard the process goes on, and says so in a warning', () => {
    const r = child('guarded');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('warning CLUSTERPEDIA_PG_TYPE_FETCH');
    expect(r.out).toContain('survived');
  });

  it('with the guard any other unhandled rejection still ends the process', () => {
    const r = child('unrelated');
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).toContain('an unrelated rejection nobody handles');
    expect(r.out).not.toContain('survived');
  });
});
