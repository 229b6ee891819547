// Requests that ask to switch protocols (Connection: Upgrade). Without a forwarded exec or attach, Node serves them as
// plain requests (an h2c upgrade from curl, say). With one, they go through the same dispatch as any other: answered
// as HTTP with a Status where nothing switches, the connection closed after, a body refused at once, the server on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { namespace, pod } from '../../support/fixtures.js';

let served: ServedStore;
let forwarding: TestApiserver;
let dir: string;
const P = '/apis/clusterpedia.io/v1beta1/resources';

beforeAll(async () => {
  served = await serveStore([namespace('c1', 'default'), pod('c1', 'default', 'web-1')], { c1: true });
  dir = mkdtempSync(join(tmpdir(), 'cp-upgrade-'));
  writeFileSync(join(dir, 'clusters.yaml'), '');
  forwarding = await startTestApiserver(served.storage, (o) => {
    o.forward = { subresources: ['pods/exec'], requests: false, unsynced: false, proxyPath: false, metrics: false, openapi: false, clustersPath: join(dir, 'clusters.yaml'), secretsNamespace: 'clusterpedia-system' };
  });
});
afterAll(async () => {
  await forwarding?.stop();
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `raw` on a fresh connection and reads until the server closes it (or 3 s pass: then `closed` is false). */
async function exchange(api: TestApiserver, raw: string): Promise<{ text: string; closed: boolean }> {
  const { port } = new URL(api.base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let text = '';
    const t = setTimeout(() => {
      s.destroy();
      resolve({ text, closed: false });
    }, 3000);
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.on('close', () => {
      clearTimeout(t);
      resolve({ text, closed: true });
    });
    s.on('error', reject);
    s.write(raw);
  });
}

const upgrade = (path: string, extra = '', headers = ''): string =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${headers}\r\n${extra}`;
const review = JSON.stringify({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
const h2cPost = `POST ${P}/apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n`
  + `HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nContent-Type: application/json\r\nContent-Length: ${review.length}\r\n\r\n${review}`;

describe('without a forwarded session', () => {
  it('serves an upgrade request as a plain one, its body read (an h2c upgrade of a POST)', async () => {
    const r = await exchange(served.api, h2cPost);
    expect(r.text).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(r.text).toMatch(/"kind":"SelfSubjectReview"/);
  });
});

describe('with a forwarded exec', () => {
  it('answers a list asked with an upgrade as a list, then closes the connection', async () => {
    const r = await exchange(forwarding, upgrade(`${P}/api/v1/pods`));
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text).toMatch(/"kind":"PodList"/);
    expect(r.text).toMatch(/"name":"web-1"/);
  });

  it('answers what does not switch with its Status, bytes after the head ignored', async () => {
    const exec = await exchange(forwarding, upgrade(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/exec?command=sh`, '\x82\x85garbage'));
    expect(exec.closed).toBe(true);
    expect(exec.text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*cluster c1 has no PediaCluster to take its credentials from/);
    const attach = await exchange(forwarding, upgrade(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/attach`));
    expect(attach.text).toMatch(/^HTTP\/1\.1 404 Not Found\r\n[\s\S]*pods\/attach is not served here/);
    expect((await exchange(forwarding, upgrade(`${P}/clusters/nope/api/v1/namespaces/default/pods/web-1/exec`))).text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*the server could not find the requested cluster/);
    expect((await exchange(forwarding, upgrade('/%zz'))).text).toMatch(/^HTTP\/1\.1 (400|404) /);
  });

  it('refuses a body that comes with an upgrade at once, instead of waiting for it', async () => {
    const started = Date.now();
    const r = await exchange(forwarding, h2cPost);
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*a request with a body cannot ask to switch protocols here/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('keeps serving ordinary requests after upgrade requests', async () => {
    await Promise.all(Array.from({ length: 20 }, () => exchange(forwarding, upgrade(`${P}/api/v1/namespaces/default/pods/web-1/log`))));
    const r = await fetch(`${forwarding.resources}/api/v1/pods`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { items: unknown[] }).items).toHaveLength(1);
  });
});
