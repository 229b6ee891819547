// A custom resource holding int64s past 2^53 is answered with them as the member wrote them: as JSON and as YAML, got
// and listed, and in the DELETED event of a watch (whose object is rewritten with the deletion's revision).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExact } from '../../../src/kube/exact-json.js';
import type { StoredJsonObject } from '../../../src/storage/types.js';
import { serveStore, type ServedStore } from '../../support/apiserver.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const SPEC = '{"id":9007199254740993,"offset":-9223372036854775808,"small":42,"note":"12345678901234567890"}';
const TYPE = { cluster: 'c0', group: 'example.com', version: 'v1', resource: 'ledgers', kind: 'Ledger' };
let served: ServedStore;

beforeAll(async () => {
  const text = `{"apiVersion":"example.com/v1","kind":"Ledger","metadata":{"name":"books","namespace":"ns","uid":"u1","resourceVersion":"5"},"spec":${SPEC}}`;
  served = await serveStore([{ ...TYPE, object: parseExact(text) as StoredJsonObject }], { c0: true });
});
afterAll(async () => served?.stop());

async function get(path: string, accept = 'application/json'): Promise<string> {
  const r = await request(`${served.api.base}${P}${path}`, { headers: { accept } });
  const body = await r.body.text();
  expect(r.statusCode, body).toBe(200);
  return body;
}

describe('integers past 2^53', () => {
  it('a get and a list, as JSON and as YAML', async () => {
    for (const path of ['/clusters/c0/apis/example.com/v1/namespaces/ns/ledgers/books', '/apis/example.com/v1/ledgers', '/apis/example.com/v1/ledgers?limit=1']) {
      expect(await get(path), path).toContain(`"spec":${SPEC}`);
      const yaml = await get(path, 'application/yaml');
      expect(yaml, path).toMatch(/\bid: 9007199254740993\n/);
      expect(yaml, path).toMatch(/\boffset: -9223372036854775808\n/);
      expect(yaml, path).toMatch(/\bnote: "12345678901234567890"\n/);
    }
  });

  it('the DELETED event of a watch', async () => {
    const list = JSON.parse(await get('/apis/example.com/v1/ledgers')) as { metadata: { resourceVersion: string } };
    const ac = new AbortController();
    const r = await request(`${served.api.base}${P}/apis/example.com/v1/ledgers?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=10`, { signal: ac.signal });
    expect(r.statusCode).toBe(200);
    await served.storage.write({ upserts: [], deletes: [{ ...TYPE, namespace: 'ns', name: 'books' }] });
    let text = '';
    for await (const chunk of r.body) {
      text += chunk.toString();
      if (text.includes('\n')) break;
    }
    ac.abort();
    expect(text).toMatch(/^\{"type":"DELETED"/);
    expect(text).toContain(`"spec":${SPEC}`);
  });
});
