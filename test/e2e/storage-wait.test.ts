// End to end: a role started before its PostgreSQL is reachable waits for it (--storage-initialization-timeout) instead
// of exiting, then serves — as one started with --migrate=false before the schema is migrated does; past the timeout
// it exits 1 saying why; a stop while it waits exits cleanly.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleProcess, runBundle } from '../support/bundle.js';
import { freeLoopbackPort } from '../support/certs.js';
import { forwarder, freshPostgresDatabase, type Forwarder } from '../support/postgres.js';
import { startFleet, waitConverged, type Fleet } from './helpers.js';

let f: Fleet;
let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
const procs: BundleProcess[] = [];
let proxy: Forwarder | undefined;

beforeAll(async () => {
  f = await startFleet({ clusters: 1, pods: 10, seed: 41 });
  db = await freshPostgresDatabase('cp_wait_e2e');
}, 60_000);

afterAll(async () => {
  for (const p of procs) await p.stop();
  await proxy?.stop();
  await f?.dispose();
  await db?.drop();
});

// The test server trusts loopback (no password asked); one in the URL must still stay out of logs and errors.
const PASSWORD = 'pw-never-logged-5c1e';

/** The test database's URL at another loopback port, where nothing listens until a forwarder starts. */
function atPort(port: number): string {
  const u = new URL(db.url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  if (!u.password) u.password = PASSWORD;
  return u.toString();
}

const waitingLine = (l: Record<string, unknown>): boolean => l.msg === 'storage not ready; trying again';

describe('a role whose database is not reachable yet', () => {
  it('binding waits, then migrates, syncs and serves once the database comes up', async () => {
    const port = await freeLoopbackPort();
    const p = BundleProcess.start(['binding', '--clusters', f.clustersFile, '--storage', atPort(port), '--secure-port', '0', '--insecure-port', '0', '--health-interval', '1s'], { cwd: f.dir });
    procs.push(p);
    await p.waitFor(waitingLine, 30_000);
    // Still waiting a while later: nothing served, nothing exited.
    await new Promise((r) => setTimeout(r, 1500));
    expect(p.child.exitCode).toBeNull();
    expect(p.lines.some((l) => l.msg === 'serving')).toBe(false);
    proxy = await forwarder(port, db.url);
    const base = `http://127.0.0.1:${await p.insecurePort(60_000)}`;
    expect(p.lines.some((l) => l.msg === 'storage ready')).toBe(true);
    await waitConverged(base, f.fleet, 60_000);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    // The URL's password never reaches the waiting lines.
    expect(p.raw.join('\n')).not.toContain(new URL(atPort(port)).password);
  }, 120_000);

  it('with --migrate=false, an apiserver waits for `clusterpedia migrate` instead of serving a schema it cannot read', async () => {
    const url = `sqlite:${join(f.dir, 'late-schema.db')}`;
    const p = BundleProcess.start(['apiserver', '--storage', url, '--migrate', 'false', '--secure-port', '0', '--insecure-port', '0'], { cwd: f.dir });
    procs.push(p);
    const waiting = await p.waitFor(waitingLine, 30_000);
    expect(String(waiting.err)).toMatch(/schema is at version 0 and this clusterpedia needs \d+; waiting for `clusterpedia migrate`/);
    expect(p.lines.some((l) => l.msg === 'serving')).toBe(false);
    const m = await runBundle(['migrate', '--storage', url]);
    expect(m.code, m.stderr).toBe(0);
    const base = `http://127.0.0.1:${await p.insecurePort(30_000)}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 60_000);

  it('apiserver and synchro stopped while waiting exit 0 at once', async () => {
    const url = atPort(await freeLoopbackPort());
    const roles = [
      BundleProcess.start(['apiserver', '--storage', url, '--secure-port', '0', '--insecure-port', '0'], { cwd: f.dir }),
      BundleProcess.start(['synchro', '--clusters', f.clustersFile, '--storage', url, '--metrics-port', '0'], { cwd: f.dir }),
    ];
    procs.push(...roles);
    for (const r of roles) await r.waitFor(waitingLine, 30_000);
    for (const r of roles) {
      const started = Date.now();
      expect(await r.stop('SIGTERM')).toBe(0);
      expect(Date.now() - started).toBeLessThan(5000);
    }
  }, 60_000);

  it('past --storage-initialization-timeout, migrate exits 1 naming the reason and the flag', async () => {
    const r = await runBundle(['migrate', '--storage', atPort(await freeLoopbackPort()), '--storage-initialization-timeout', '2s', '--log-format', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: open postgres: database unreachable: .*ECONNREFUSED.*; gave up after 2s of trying \(--storage-initialization-timeout\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout.split('\n').filter((l) => l.includes('"storage not ready; trying again"')).length).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
