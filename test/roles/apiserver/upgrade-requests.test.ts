// Requests that ask to switch protocols (Connection: Upgrade) go through the same dispatch as any other: answered as
// HTTP with a Status where nothing switches, the connection closed after the answer, the server serving on.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { namespace, pod } from '../../support/fixtures.js';

let served: ServedStore;
const P = '/apis/clusterpedia.io/v1beta1/resources';

beforeAll(async () => {
  served = await serveStore([namespace('c1', 'default'), pod('c1', 'default', 'web-1')], { c1: true });
});
afterAll(() => served?.stop());

/** Sends `raw` on a fresh connection and reads until the server closes it (or 5 s pass: then `closed` is false). */
async function exchange(raw: string): Promise<{ text: string; closed: boolean }> {
  const { port } = new URL(served.api.base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let text = '';
    const t = setTimeout(() => {
      s.destroy();
      resolve({ text, closed: false });
    }, 5000);
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.on('close', () => {
      clearTimeout(t);
      resolve({ text, closed: true });
    });
    s.on('error', reject);
    s.write(raw);
  });
}

const upgrade = (path: string, extra = ''): string =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n${extra}`;

it('answers a list asked with an upgrade as a list, then closes the connection', async () => {
  const r = await exchange(upgrade(`${P}/api/v1/pods`));
  expect(r.closed).toBe(true);
  expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(r.text).toMatch(/"kind":"PodList"/);
  expect(r.text).toMatch(/"name":"web-1"/);
});

it('answers an exec that nothing forwards with the 404 Status that says so, bytes after the head ignored', async () => {
  const r = await exchange(upgrade(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/exec?command=sh`, '\x82\x85garbage'));
  expect(r.closed).toBe(true);
  expect(r.text).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
  expect(r.text).toMatch(/pods\/exec is not served here/);
  // An unknown cluster and a malformed path: the usual Statuses.
  expect((await exchange(upgrade(`${P}/clusters/nope/api/v1/namespaces/default/pods/web-1/exec`))).text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*the server could not find the requested cluster/);
  expect((await exchange(upgrade('/%zz'))).text).toMatch(/^HTTP\/1\.1 (400|404) /);
});

it('keeps serving ordinary requests after upgrade requests', async () => {
  await Promise.all(Array.from({ length: 20 }, () => exchange(upgrade(`${P}/api/v1/namespaces/default/pods/web-1/log`))));
  const r = await fetch(`${served.api.resources}/api/v1/pods`);
  expect(r.status).toBe(200);
  expect(((await r.json()) as { items: unknown[] }).items).toHaveLength(1);
});
