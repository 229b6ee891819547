// While PostgreSQL is down, or its schema is gone, the apiserver answers 503 Status (never a crash or 500) and /readyz
// fails; it recovers alone.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { serveStore, type ServedStore, type TestApiserver } from '../../support/apiserver.js';
import { pod } from '../../support/fixtures.js';

let pg: PostgresServer;
let served: ServedStore;
let api: TestApiserver;
const P = '/apis/clusterpedia.io/v1beta1/resources';

beforeAll(async () => {
  pg = await startPostgres();
  served = await serveStore([pod('c1', 'default', 'a'), pod('c1', 'default', 'b')], { c1: true }, pg.url);
  api = served.api;
}, 60_000);

afterAll(async () => {
  await served?.stop();
  pg?.stop();
});

async function status(path: string): Promise<{ code: number; body: string; retryAfter: string | null }> {
  const r = await fetch(`${api.base}${path}`);
  return { code: r.status, body: await r.text(), retryAfter: r.headers.get('retry-after') };
}

it('answers 503 with a Status while storage is down and recovers by itself', async () => {
  expect((await status(`${P}/api/v1/pods`)).code).toBe(200);
  pg.pause();
  try {
    // Give the pool a moment to notice; every answer meanwhile must be a Status, never a 500 or a hang.
    let seen503 = false;
    for (let i = 0; i < 40 && !seen503; i++) {
      const r = await status(`${P}/api/v1/pods`);
      expect([200, 503]).toContain(r.code);
      if (r.code === 503) {
        seen503 = true;
        const st = JSON.parse(r.body) as { kind: string; reason: string; code: number };
        expect(st).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
        expect(r.retryAfter).not.toBeNull();
      } else {
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    expect(seen503).toBe(true);
    expect((await status('/readyz')).code).toBe(503);
    expect((await status('/livez')).code).toBe(200);
    const get = await status(`${P}/clusters/c1/api/v1/namespaces/default/pods/a`);
    expect(get.code).toBe(503);
  } finally {
    pg.start();
  }
  let recovered = false;
  for (let i = 0; i < 100 && !recovered; i++) {
    recovered = (await status(`${P}/api/v1/pods`)).code === 200 && (await status('/readyz')).code === 200;
    if (!recovered) await new Promise((res) => setTimeout(res, 200));
  }
  expect(recovered).toBe(true);
  const list = JSON.parse((await status(`${P}/api/v1/pods`)).body) as { items: unknown[] };
  expect(list.items.length).toBe(2);
}, 90_000);

it('a database emptied under it answers 503 naming the schema, and serves again once migrated', async () => {
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe('DROP SCHEMA public CASCADE; DROP SCHEMA IF EXISTS drizzle CASCADE; CREATE SCHEMA public');
  } finally {
    await admin.end();
  }
  const list = await status(`${P}/api/v1/pods`);
  expect(list.code).toBe(503);
  expect(JSON.parse(list.body)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503, message: expect.stringMatching(/schema is not migrated/) });
  expect(list.retryAfter).not.toBeNull();
  const ready = await status('/readyz');
  expect(ready.code).toBe(503);
  expect(ready.body).toMatch(/storage schema is not migrated/);
  const storage = await openStorage({ url: pg.url }, { logger: silentLogger() });
  try {
    await storage.migrate();
  } finally {
    await storage.close();
  }
  const readyAfter = await status('/readyz');
  expect(readyAfter.code, readyAfter.body).toBe(200);
  const after = await status(`${P}/api/v1/pods`);
  expect([200, 404]).toContain(after.code);
}, 60_000);
