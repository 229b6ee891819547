// --storage URLs and Clusterpedia's internalstorage YAML: parsed into a target, bad input named, passwords never echoed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import { describeTarget, fromConfigObject, redactUrl, resolveStorageTarget } from '../../src/storage/storage-config.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function failure(f: () => unknown): { code?: string; message: string } {
  try {
    f();
  } catch (e: unknown) {
    return e as { code?: string; message: string };
  }
  throw new Error('expected a failure');
}

const SECRET = 'S3cr3t-p@ss';

describe('--storage URLs', () => {
  it('sqlite paths and :memory:', () => {
    expect(resolveStorageTarget({ url: 'sqlite:./x.db' })).toEqual({ dialect: 'sqlite', path: './x.db' });
    expect(resolveStorageTarget({ url: 'sqlite:///var/lib/cp.db' })).toEqual({ dialect: 'sqlite', path: '/var/lib/cp.db' });
    expect(resolveStorageTarget({ url: 'sqlite::memory:' })).toEqual({ dialect: 'sqlite', path: ':memory:' });
    expect(resolveStorageTarget({})).toEqual({ dialect: 'sqlite', path: './clusterpedia.db' });
  });

  it('postgres:// and postgresql:// with sslmode, percent-encoded credentials, default port and database', () => {
    const t = resolveStorageTarget({ url: `postgresql://app%40x:${encodeURIComponent(SECRET)}@db.example:6543/cp?sslmode=require&application_name=cp1` });
    expect(t).toMatchObject({ dialect: 'postgres', connection: { host: 'db.example', port: 6543, user: 'app@x', password: SECRET, database: 'cp', ssl: 'require', applicationName: 'cp1' } });
    expect(resolveStorageTarget({ url: 'postgres://u@h/' })).toMatchObject({ connection: { port: 5432, database: 'u', ssl: false, password: '' } });
    expect(describeTarget(t)).toBe('postgres://app%40x@db.example:6543/cp');
  });

  it('bad URLs are ConfigErrors naming the problem, without the password', () => {
    for (const url of ['mysql://root:hunter2@x/db', 'sqlite:', `postgres://u:${SECRET}@h/db?sslmode=bogus`, `postgres://u:${SECRET}@h/db?foo=1`, `postgres://u:${SECRET}@h:99999/db`]) {
      const e = failure(() => resolveStorageTarget({ url }));
      expect(e.code).toBe('ConfigError');
      expect(e.message).not.toContain(SECRET);
      expect(e.message).not.toContain('hunter2');
    }
    expect(failure(() => resolveStorageTarget({ url: `postgres://u:${SECRET}@h/db?foo=1` })).message).toMatch(/unsupported postgres URL parameter "foo"/);
    expect(redactUrl(`postgres://u:${SECRET}@h/db`)).toBe('postgres://u:***@h/db');
  });
});

describe('--storage-config (Clusterpedia internalstorage YAML)', () => {
  it('postgres with host/port/user/database, password from DB_PASSWORD, connPool', () => {
    const f = file('pg.yaml', 'type: postgres\nhost: clusterpedia-internalstorage-postgres\nport: 5432\nuser: postgres\ndatabase: clusterpedia\nsslMode: disable\nconnPool:\n  maxOpenConns: 40\n  connMaxLifetime: 10m\n');
    const t = resolveStorageTarget({ configFile: f, url: 'sqlite:ignored.db', env: { DB_PASSWORD: SECRET } });
    expect(t).toEqual({
      dialect: 'postgres',
      connection: { host: 'clusterpedia-internalstorage-postgres', port: 5432, user: 'postgres', password: SECRET, database: 'clusterpedia', ssl: false, max: 40, maxLifetime: 3600 },
    });
  });

  it('env overrides DB_TYPE, DB_HOST, DB_PORT, DB_USER, DB_DATABASE', () => {
    const t = fromConfigObject({ type: 'mysql', host: 'a', database: 'x' }, { DB_TYPE: 'postgres', DB_HOST: 'b', DB_PORT: '7000', DB_USER: 'me', DB_DATABASE: 'y' });
    expect(t).toMatchObject({ dialect: 'postgres', connection: { host: 'b', port: 7000, user: 'me', database: 'y' } });
  });

  it('dsn: URL or libpq key=value, the configured password injected when the dsn has none; sqlite dsn is the path', () => {
    expect(fromConfigObject({ type: 'postgres', dsn: "host=h port=5433 user=u dbname=d sslmode=prefer password='a b\\'c'" }, {})).toMatchObject({
      connection: { host: 'h', port: 5433, user: 'u', database: 'd', ssl: 'prefer', password: "a b'c" },
    });
    expect(fromConfigObject({ type: 'postgres', dsn: 'postgres://u@h/d', password: SECRET }, {})).toMatchObject({ connection: { password: SECRET } });
    expect(fromConfigObject({ type: 'sqlite3', dsn: '/data/cp.db' }, {})).toEqual({ dialect: 'sqlite', path: '/data/cp.db' });
    expect(fromConfigObject({ type: 'sqlite', dsn: ':memory:' }, {})).toEqual({ dialect: 'sqlite', path: ':memory:' });
  });

  it('bad configs are ConfigErrors that name what is wrong and never include the password', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'mysql', host: 'h', database: 'd', password: SECRET }, /mysql is not supported/],
      [{ type: 'oracle', password: SECRET }, /type must be postgres or sqlite/],
      [{ password: SECRET }, /type must be postgres or sqlite \(got nothing\)/],
      [{ type: 'postgres', host: 'h', password: SECRET }, /database is required/],
      [{ type: 'postgres', database: 'd', port: 'abc', password: SECRET }, /port must be a port number/],
      [{ type: 'postgres', database: 'd', sslMode: 'maybe', password: SECRET }, /unknown ssl mode/],
      [{ type: 'postgres', database: 'd', connPool: { maxOpenConns: 'lots' }, password: SECRET }, /maxOpenConns must be an integer/],
      [{ type: 'postgres', dsn: `this is ${SECRET} not a dsn` }, /dsn is neither/],
      [{ type: 'postgres', dsn: `postgres://u:${SECRET}@h/d?x=1` }, /unsupported postgres URL parameter/],
      [{ type: 'sqlite' }, /needs dsn/],
      [{ type: 'postgres', database: 'd', sslMode: 'verify-full', sslRootCertFile: '/nonexistent/ca.pem', password: SECRET }, /cannot read certificate file/],
    ];
    for (const [c, re] of cases) {
      const e = failure(() => fromConfigObject(c, {}));
      expect(e.code).toBe('ConfigError');
      expect(e.message).toMatch(re);
      expect(e.message).not.toContain(SECRET);
    }
  });

  it('invalid YAML reports the position only (the parser would quote the password line)', () => {
    const f = file('bad.yaml', `type: postgres\npassword: "${SECRET}\ndatabase: [\n`);
    const e = failure(() => resolveStorageTarget({ configFile: f }));
    expect(e.code).toBe('ConfigError');
    expect(e.message).toMatch(/invalid YAML at line \d+, column \d+/);
    expect(e.message).not.toContain(SECRET);
    expect(failure(() => resolveStorageTarget({ configFile: join(dir, 'missing.yaml') })).message).toMatch(/cannot read .*missing\.yaml: ENOENT/);
    expect(failure(() => resolveStorageTarget({ configFile: file('list.yaml', '- a\n- b\n') })).message).toMatch(/must be a YAML mapping/);
  });

  it('openStorage: an unreachable server is Unavailable and retryable, and the error does not carry the password', async () => {
    const e: unknown = await openStorage({ url: `postgres://u:${SECRET}@127.0.0.1:1/db?connect_timeout=2` }, { logger: silentLogger() }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: 'Unavailable', retryable: true });
    expect((e as Error).message).not.toContain(SECRET);
    expect(JSON.stringify(e)).not.toContain(SECRET);
  });
});
