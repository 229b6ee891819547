// Response compression as kube-apiserver's APIResponseCompression: gets and lists over 128 KiB go out gzipped (level 1)
// to clients that accept gzip; smaller ones, watches, clients that refuse it and a server started without it get
// plain bodies. Read here with undici's request, which does not decode, so the bytes on the wire are seen.
import { Command } from 'commander';
import { request } from 'undici';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiserverFlags, apiserverOptionsFrom, type ApiserverFlags } from '../../../src/cmd/apiserver.js';
import { acceptsGzip, GZIP_THRESHOLD_BYTES } from '../../../src/roles/apiserver/compress.js';
import { serveStore, startTestApiserver, type ServedStore, type TestApiserver } from '../../support/apiserver.js';
import { pod } from '../../support/fixtures.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
/** 400 pods of ~1.5 KB: a few hundred KB as a JSON list, well over the threshold; 10 of them well under it. */
const pods = Array.from({ length: 400 }, (_, i) => {
  const p = pod('c1', 'web', `web-${String(i).padStart(3, '0')}`);
  (p.object as { metadata: { annotations: Record<string, string> } }).metadata.annotations.note = `pod ${i} `.repeat(100);
  return p;
});
const huge = pod('c1', 'big', 'huge');
(huge.object as { metadata: { annotations: Record<string, string> } }).metadata.annotations.note = 'x'.repeat(200_000);

interface Answer { code: number; headers: Record<string, string | string[] | undefined>; raw: Buffer }

async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await request(`${base}${path}`, { headers });
  return { code: r.statusCode, headers: r.headers, raw: Buffer.from(await r.body.arrayBuffer()) };
}

/** The body as the client reads it: gunzipped when the server said it was gzip. */
function decoded(a: Answer): string {
  return (a.headers['content-encoding'] === 'gzip' ? gunzipSync(a.raw) : a.raw).toString('utf8');
}

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true], ['gzip, deflate', true], ['deflate, gzip;q=0.5', true], ['GZIP', true], ['*', true], ['br, *;q=0.1', true],
    [undefined, false], ['', false], ['identity', false], ['deflate, br', false], ['gzip;q=0', false], ['gzip; q=0.000', false], ['x-gzip', false],
  ] as const)('%s → %s', (header, want) => {
    expect(acceptsGzip(header)).toBe(want);
  });
});

describe('--api-response-compression', () => {
  const parsed = (args: string[], env: Record<string, string> = {}): boolean => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const cmd = addApiserverFlags(new Command('apiserver').exitOverride());
      let flags: ApiserverFlags | undefined;
      cmd.action((_o: unknown, self: Command) => {
        flags = self.opts<ApiserverFlags>();
      });
      cmd.parse(args, { from: 'user' });
      return apiserverOptionsFrom(flags!).apiResponseCompression;
    } finally {
      process.env = saved;
    }
  };
  it('is on by default, off with false, and reads CLUSTERPEDIA_API_RESPONSE_COMPRESSION', () => {
    expect(parsed([])).toBe(true);
    expect(parsed(['--api-response-compression', 'false'])).toBe(false);
    expect(parsed([], { CLUSTERPEDIA_API_RESPONSE_COMPRESSION: 'false' })).toBe(false);
  });
});

describe('response compression', () => {
  let s: ServedStore;
  let off: TestApiserver;

  beforeAll(async () => {
    s = await serveStore([...pods, huge], { c1: true });
    off = await startTestApiserver(s.storage, (o) => {
      o.apiResponseCompression = false;
    });
  });
  afterAll(async () => {
    await off?.stop();
    await s?.stop();
  });

  it('a list over the threshold is gzipped for a client that accepts it, the same bytes once decoded', async () => {
    const path = `${P}/api/v1/namespaces/web/pods?limit=500`;
    const plain = await get(s.api.base, path);
    const gz = await get(s.api.base, path, { 'accept-encoding': 'gzip, deflate' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.raw.length).toBeGreaterThan(GZIP_THRESHOLD_BYTES);
    expect(gz.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'content-type': 'application/json' });
    expect(Number(gz.headers['content-length'])).toBe(gz.raw.length);
    expect(gz.raw.length).toBeLessThan(plain.raw.length / 5);
    // resourceVersion is the storage revision, unchanged between the two reads: the bodies are the same bytes.
    expect(decoded(gz)).toBe(plain.raw.toString('utf8'));
  });

  it('a streamed list (a Table, YAML, unlimited) is held until past the threshold, then gzipped as it goes', async () => {
    for (const [path, accept] of [[`${P}/api/v1/pods`, TABLE], [`${P}/api/v1/pods`, 'application/yaml'], ['/apis/clusterpedia.io/v1beta1/collectionresources/any?resources=/pods', 'application/json']] as const) {
      const gz = await get(s.api.base, path, { accept, 'accept-encoding': 'gzip' });
      expect(gz.code, path).toBe(200);
      expect(gz.headers['content-encoding'], `${path} ${accept}`).toBe('gzip');
      expect(gz.headers['transfer-encoding']).toBe('chunked');
      const text = decoded(gz);
      expect(text.length).toBeGreaterThan(GZIP_THRESHOLD_BYTES);
      expect(text, path).toContain('web-399');
    }
    // Under the threshold the held body goes out plain, its length known.
    const small = await get(s.api.base, `${P}/api/v1/namespaces/web/pods?limit=10`, { accept: TABLE, 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(Number(small.headers['content-length'])).toBe(small.raw.length);
    expect((JSON.parse(small.raw.toString()) as { rows: unknown[] }).rows).toHaveLength(10);
  });

  it('a single object over the threshold is gzipped; a small one, a Status and discovery are not', async () => {
    const big = await get(s.api.base, `${P}/clusters/c1/api/v1/namespaces/big/pods/huge`, { 'accept-encoding': 'gzip' });
    expect(big.headers['content-encoding']).toBe('gzip');
    expect((JSON.parse(decoded(big)) as { metadata: { annotations: Record<string, string> } }).metadata.annotations.note).toHaveLength(200_000);
    for (const path of [`${P}/clusters/c1/api/v1/namespaces/web/pods/web-001`, `${P}/api/v1/namespaces/web/pods/web-001`, `${P}/api/v1`, `${P}/apis/nope/v1/things`]) {
      const a = await get(s.api.base, path, { 'accept-encoding': 'gzip' });
      expect(a.headers['content-encoding'], path).toBeUndefined();
      expect(() => JSON.parse(a.raw.toString()) as unknown, path).not.toThrow();
    }
  });

  it('not for a client that refuses gzip or does not name it, nor from a server started without it', async () => {
    const path = `${P}/api/v1/namespaces/web/pods`;
    for (const encoding of ['gzip;q=0', 'identity', 'br']) {
      const a = await get(s.api.base, path, { 'accept-encoding': encoding });
      expect(a.headers['content-encoding'], encoding).toBeUndefined();
      expect((JSON.parse(a.raw.toString()) as { items: unknown[] }).items).toHaveLength(400);
    }
    for (const accept of ['application/json', TABLE]) {
      const a = await get(off.base, path, { accept, 'accept-encoding': 'gzip' });
      expect(a.headers['content-encoding'], accept).toBeUndefined();
      expect(a.raw.length).toBeGreaterThan(GZIP_THRESHOLD_BYTES);
    }
  });

  it('a watch is never compressed: its initial events reach the client as plain lines', async () => {
    const r = await request(`${s.api.base}${P}/api/v1/pods?watch=true&timeoutSeconds=1`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-encoding']).toBeUndefined();
    const lines = (await r.body.text()).trim().split('\n');
    expect(lines.length).toBe(401);
    expect((JSON.parse(lines[0]!) as { type: string }).type).toBe('ADDED');
  });

  it('a client that leaves in the middle of a gzipped stream frees its request', async () => {
    const inflight = async (): Promise<number> => {
      const text = await (await request(`${s.api.base}/metrics`)).body.text();
      return Number(/clusterpedia_apiserver_inflight_requests\{kind="request"\} (\d+)/.exec(text)?.[1] ?? -1);
    };
    for (let i = 0; i < 5; i++) {
      const ac = new AbortController();
      const r = await request(`${s.api.base}${P}/api/v1/pods`, { headers: { accept: TABLE, 'accept-encoding': 'gzip' }, signal: ac.signal });
      expect(r.headers['content-encoding']).toBe('gzip');
      ac.abort();
      await r.body.text().catch(() => undefined);
    }
    // The /metrics request counts itself: 1 when every aborted list gave back its slot.
    const deadline = Date.now() + 5000;
    while ((await inflight()) !== 1 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    expect(await inflight()).toBe(1);
    // And the server still answers in full.
    const after = await get(s.api.base, `${P}/api/v1/pods`, { accept: TABLE, 'accept-encoding': 'gzip' });
    expect((JSON.parse(decoded(after)) as { rows: unknown[] }).rows).toHaveLength(401);
  });
});
