// kube-apiserver's `pretty`: JSON answers indented for `?pretty=true` and for curl, Wget and browsers (unless `pretty`
// says otherwise), so a person reading an answer in a terminal can; kubectl and client libraries get compact JSON.
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { pod } from '../../support/fixtures.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
let served: ServedStore;

beforeAll(async () => {
  served = await serveStore(Array.from({ length: 1_200 }, (_, i) => pod(`c${i % 3}`, 'ns', `p${i}`)), { c0: true, c1: true, c2: true });
});
afterAll(async () => served.stop());

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  const r = await request(`${served.api.base}${path}`, { headers });
  const raw = Buffer.from(await r.body.arrayBuffer());
  const body = (r.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString();
  if (r.headers['content-length'] !== undefined) expect(Number(r.headers['content-length'])).toBe(raw.length);
  return { status: r.statusCode, type: String(r.headers['content-type']), body };
}

const isIndented = (body: string): boolean => body === `${JSON.stringify(JSON.parse(body), null, 2)}\n`;
const isCompact = (body: string): boolean => body === JSON.stringify(JSON.parse(body));

describe('pretty', () => {
  it('indents every kind of JSON answer for pretty=true: a get, a page, a streamed list, a Table, a Status, discovery', async () => {
    const paths: [string, Record<string, string>?][] = [
      [`${P}/clusters/c0/api/v1/namespaces/ns/pods/p0`],
      [`${P}/api/v1/pods?limit=5`],
      [`${P}/api/v1/pods`], // 1,200 pods: streamed, and gzipped where asked
      [`${P}/api/v1/pods`, { 'accept-encoding': 'gzip' }],
      [`${P}/api/v1/pods?limit=3`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }],
      [`${P}/api/v1/pods?limit=x`],
      [`${P}/clusters/c0/api/v1/namespaces/ns/pods/nope`],
      [`${P}/api/v1`],
    ];
    for (const [path, headers] of paths) {
      const compact = await get(path, headers);
      const pretty = await get(`${path}${path.includes('?') ? '&' : '?'}pretty=true`, headers);
      expect(isCompact(compact.body), path).toBe(true);
      expect(isIndented(pretty.body), path).toBe(true);
      expect(pretty.status).toBe(compact.status);
      expect(JSON.parse(pretty.body)).toEqual(JSON.parse(compact.body));
    }
    const page = await get(`${P}/api/v1/pods?pretty=1`, { 'accept-encoding': 'gzip' });
    expect((JSON.parse(page.body) as { items: unknown[] }).items).toHaveLength(1_200);
  });

  it('curl, Wget and browsers get it unless pretty says no; kubectl and libraries do not', async () => {
    const path = `${P}/api/v1/pods?limit=2`;
    for (const agent of ['curl/8.5.0', 'Wget/1.21.3', 'Mozilla/5.0 (X11; Linux x86_64)']) {
      expect(isIndented((await get(path, { 'user-agent': agent })).body), agent).toBe(true);
      for (const no of ['false', '0', 'F', 'nonsense']) expect(isCompact((await get(`${path}&pretty=${no}`, { 'user-agent': agent })).body), `${agent} ${no}`).toBe(true);
    }
    for (const agent of ['kubectl/v1.33.0 (linux/amd64) kubernetes/abc', 'node', 'undici']) {
      expect(isCompact((await get(path, { 'user-agent': agent })).body), agent).toBe(true);
    }
  });

  it('leaves YAML and watch events as they are', async () => {
    const yaml = await get(`${P}/api/v1/pods?limit=1&pretty=true`, { accept: 'application/yaml' });
    expect(yaml.type).toMatch(/yaml/);
    expect(yaml.body).toMatch(/^kind: PodList\napiVersion: v1\nitems:\n/);
    const ac = new AbortController();
    const r = await request(`${served.api.base}${P}/api/v1/pods?watch=true&limit=1&pretty=true&fieldSelector=metadata.name%3Dp0`, { signal: ac.signal, headers: { 'user-agent': 'curl/8.5.0' } });
    let text = '';
    for await (const chunk of r.body) {
      text += String(chunk);
      if (text.includes('\n')) break;
    }
    ac.abort();
    const line = text.slice(0, text.indexOf('\n'));
    expect(JSON.parse(line)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'p0' } } });
  });
});
