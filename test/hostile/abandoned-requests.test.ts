// A client that leaves while its list is still being read from storage: the request must end and give back its slot
// in --max-requests-inflight. Before StreamWriter.end() listened for 'close', each such request stayed in flight for
// good (a PostgreSQL fuzzing run leaked one in ~70 until every new request got a 429).
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import type { JoinedPage, ListPage, ListQuery, Storage } from '../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../support/apiserver.js';
import { inflightGauge } from './fuzz/run.js';
import { healthyStatus, pod } from '../support/fixtures.js';

let storage: Storage;
let api: TestApiserver;
/** The pods list's last row waits here until the test lets it go. */
let gate: Promise<void> = Promise.resolve();
const errors: string[] = [];

beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: Array.from({ length: 600 }, (_, i) => pod('c1', 'default', `p-${i}`)), deletes: [] });
  await storage.putClusterStatus('c1', healthyStatus('c1', true));
  // Storage whose streamed rows, once the last has come, wait for the gate before they end: as PostgreSQL closes its
  // cursor (a round trip) after the last row, a window in which the client may leave after every row was rendered.
  const slow = new Proxy(storage, {
    get(target, key, receiver) {
      if (key === 'list') return async (q: ListQuery, s?: AbortSignal): Promise<ListPage> => {
        const page = await target.list(q, s);
        // Only the pods list waits (the Table's printer columns read CRDs through list() too).
        if (!JSON.stringify(q.types).includes('"pods"')) return page;
        const rows = page.rows;
        return {
          ...page,
          rows: (async function* () {
            yield* rows;
            await gate;
          })(),
        };
      };
      if (key === 'listJoined') return async (q: ListQuery, s?: AbortSignal): Promise<JoinedPage | undefined> => {
        await gate;
        return target.listJoined?.(q, s);
      };
      const v: unknown = Reflect.get(target, key, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  // What the apiserver logs at error level: a client that left is not an error of the server's.
  const lines = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l && (JSON.parse(l) as { level: number }).level >= 50) errors.push(l);
      done();
    },
  });
  api = await startTestApiserver(slow, undefined, createLogger({ level: 'info', format: 'json', destination: lines }));
});

afterAll(async () => {
  await api?.stop();
  await storage?.close();
});

/** Requests in flight besides the /metrics request that asks. */
async function inflightRequests(): Promise<number> {
  const text = await (await fetch(`${api.base}/metrics`)).text();
  return inflightGauge(text, 'request') - 1;
}

const waitFor = async (want: number): Promise<number> => {
  const deadline = Date.now() + 5000;
  let n = await inflightRequests();
  while (n !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    n = await inflightRequests();
  }
  return n;
};

// Streamed forms (a Table, YAML, an unlimited JSON list of more than a page read at once) go through StreamWriter.
// 600 pods are more than its 64 KiB chunk: the body has started (headers and rows sent) when the client leaves.
for (const accept of ['application/json;as=Table;v=v1;g=meta.k8s.io', 'application/yaml']) {
  it(`a list (${accept}) whose client left after its first bytes, while storage was still reading, ends and gives back its slot`, async () => {
    expect(await inflightRequests()).toBe(0);
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    const u = new URL(api.resources);
    await new Promise<void>((resolve) => {
      const req = request({ host: u.hostname, port: u.port, path: `${u.pathname}/api/v1/pods`, headers: { accept } });
      req.on('error', () => resolve());
      req.on('response', (res) => res.once('data', () => {
        req.destroy();
        resolve();
      }));
      req.end();
    });
    expect(await inflightRequests()).toBe(1);
    open();
    expect(await waitFor(0)).toBe(0);
    expect((await fetch(`${u.href}/api/v1/pods?limit=1`)).status).toBe(200);
  });
}

it('pipelined requests whose client left before their turn end too (their responses never get a socket, nor a close)', async () => {
  expect(await inflightRequests()).toBe(0);
  let open!: () => void;
  gate = new Promise<void>((r) => (open = r));
  const u = new URL(api.resources);
  const socket = connect(Number(u.port), u.hostname);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  // JSON pages read at once (sent whole), streamed YAML and a Table, queued behind one another on one connection.
  // Twelve of them: more than Node's default of 10 listeners per emitter, which one 'close' listener per pipelined
  // request on the connection would exceed (a MaxListenersExceededWarning).
  const kinds = Array.from({ length: 3 }, () => ['application/json', 'application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json']).flat();
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on('warning', onWarning);
  socket.write(kinds.map((accept, i) => `GET ${u.pathname}/api/v1/pods${i % 2 ? '' : '?limit=500'} HTTP/1.1\r\nHost: x\r\nAccept: ${accept}\r\n\r\n`).join(''));
  expect(await waitFor(kinds.length)).toBe(kinds.length);
  socket.destroy();
  await new Promise((r) => setTimeout(r, 50));
  open();
  expect(await waitFor(0)).toBe(0);
  process.off('warning', onWarning);
  expect(warnings).toEqual([]);
  expect(errors).toEqual([]);
});
