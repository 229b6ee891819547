// Requests the HTTP parser rejects before any handler runs still get a Kubernetes Status (API.md §4: errors are
// always a Status), and the connection is closed; the server keeps serving.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveStore, type ServedStore, type TestApiserver } from '../support/apiserver.js';
import { pod } from '../support/fixtures.js';

let served: ServedStore;
let api: TestApiserver;

beforeAll(async () => {
  served = await serveStore([pod('c1', 'default', 'a')], { c1: true });
  api = served.api;
});

afterAll(() => served?.stop());

/** Writes raw bytes and reads everything until the server closes the connection. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(Number(new URL(api.base).port), '127.0.0.1');
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('close', () => resolve(out));
    s.on('error', reject);
    s.on('connect', () => s.write(bytes, 'latin1'));
    setTimeout(() => s.destroy(), 5000);
  });
}

function statusOf(response: string): { code: number; body: { kind?: string; code?: number; reason?: string } } {
  const [head, body = ''] = response.split('\r\n\r\n');
  return { code: Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]), body: JSON.parse(body) as { kind?: string; code?: number } };
}

it.each([
  ['an unknown method', 'FOO /version HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['a lowercase method', 'get /version HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['a header without a colon', 'GET /version HTTP/1.1\r\nHost x\r\n\r\n', 400],
  ['conflicting Content-Length headers', 'POST /version HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!', 400],
  ['Content-Length with Transfer-Encoding', 'POST /version HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG', 400],
  ['binary garbage', '\u0000\u00ff\u0001garbage\r\n\r\n', 400],
  ['headers past 16 KiB', `GET /version HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`, 431],
])('%s gets a Status and a closed connection', async (_what, bytes, code) => {
  const r = statusOf(await raw(bytes));
  expect(r.code).toBe(code);
  expect(r.body).toMatchObject({ kind: 'Status', code });
  const ok = await fetch(`${api.base}/version`);
  expect(ok.status).toBe(200);
});

it('a malformed request pipelined behind a valid one is answered after it, in order', async () => {
  const out = await raw(`GET /apis/clusterpedia.io/v1beta1/resources/api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\nFOO / HTTP/1.1\r\nHost: x\r\n\r\n`);
  const statuses = [...out.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
  expect(statuses).toEqual([200, 400]);
  expect(out).toContain('"kind":"PodList"');
});
