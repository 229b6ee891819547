// The apiserver at its open-files limit: more clients than file descriptors, on both backends. Connections past the
// limit are closed by Node's accept (nothing else can be done with them), and every request on a connection it did
// accept is answered: when no further SQLite read connection can be opened, the request waits for one in use instead
// of answering 500; PostgreSQL's pool does the same with its connections.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import { BundleProcess } from '../support/bundle.js';
import { healthyStatus, pod } from '../support/fixtures.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const CLIENTS = 120;

describe.each(['sqlite', 'postgres'])('%s', (backend) => {
  let url: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    if (backend === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'cp-open-files-'));
      url = `sqlite:${join(dir, 'store.db')}`;
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const db = await freshPostgresDatabase('cp_nofile');
      url = db.url;
      cleanup = db.drop;
    }
    const storage = await openStorage({ url }, { logger: silentLogger() });
    await storage.migrate();
    await storage.write({ upserts: Array.from({ length: 40 }, (_, i) => pod('c1', 'default', `p${i}`)), deletes: [] });
    await storage.putClusterStatus('c1', healthyStatus('c1'));
    await storage.close();
  });

  afterAll(async () => cleanup());

  it(`${CLIENTS} clients against an apiserver limited to 64 open files: no 500, and normal answers afterwards`, async () => {
    const api = BundleProcess.start(['apiserver', '--storage', url, '--secure-port', '0', '--insecure-port', '0'], { noFile: 64 });
    try {
      const base = `http://127.0.0.1:${await api.insecurePort()}`;
      const list = `${base}/apis/clusterpedia.io/v1beta1/resources/api/v1/pods?limit=5`;
      const agents = Array.from({ length: CLIENTS }, () => new Agent({ connections: 1, connectTimeout: 5_000, headersTimeout: 10_000, bodyTimeout: 10_000 }));
      const answers = await Promise.all(agents.map(async (dispatcher) => {
        try {
          const r = await request(list, { dispatcher });
          const body = await r.body.text();
          return { status: r.statusCode, body, retryAfter: r.headers['retry-after'] };
        } catch {
          return { status: 0, body: '', retryAfter: undefined }; // closed at accept: the descriptors were all in use
        } finally {
          await dispatcher.close();
        }
      }));
      const statuses = answers.map((a) => a.status);
      const context = JSON.stringify({ statuses: Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])), log: api.raw.slice(-5) });
      // No 500. PostgreSQL may answer 503 with Retry-After (no new database connection could be made; client-go
      // and kubectl retry it); SQLite waits for a read connection in use.
      const failed = answers.filter((a) => a.status >= 500 && !(backend === 'postgres' && a.status === 503 && a.retryAfter === '1'));
      expect(failed.map((a) => a.status), context).toEqual([]);
      // SQLite serves every request it accepted. PostgreSQL's pool opens its connections as requests come, so when
      // the descriptors ran out before any was opened, every answer may be that 503.
      if (backend === 'sqlite') expect(statuses.filter((s) => s === 200).length, context).toBeGreaterThanOrEqual(20);
      else expect(statuses.filter((s) => s !== 0).length, context).toBeGreaterThanOrEqual(20);
      for (const a of answers.filter((x) => x.status === 200)) expect((JSON.parse(a.body) as { items: unknown[] }).items).toHaveLength(5);
      // No request failed inside the server.
      expect(api.lines.filter((l) => Number(l.level) >= 50), context).toEqual([]);
      // Once the clients have gone: normal answers, as soon as the server has closed their connections (a connection
      // it cannot accept before then is reset).
      const deadline = Date.now() + 10_000;
      let readyStatus = 0;
      while (readyStatus !== 200 && Date.now() < deadline) {
        readyStatus = await request(`${base}/readyz`).then(async (r) => { await r.body.text(); return r.statusCode; }, () => 0);
        if (readyStatus !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(readyStatus).toBe(200);
      const again = await request(list);
      expect(again.statusCode).toBe(200);
      expect((JSON.parse(await again.body.text()) as { items: unknown[] }).items).toHaveLength(5);
    } finally {
      await api.stop();
    }
  }, 60_000);
});
