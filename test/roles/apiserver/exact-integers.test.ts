// A custom resource holding int64s past 2^53 is answered with them as the member wrote them: as JSON and as YAML, got
// and listed, and in the DELETED event of a watch (whose object is rewritten with the deletion's revision); in its
// CRD's printer columns and its metadata (generation) as kube prints them.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExact, parseWithBigInts } from '../../../src/kube/exact-json.js';
import type { StoredJsonObject, UpsertObject } from '../../../src/storage/types.js';
import { serveStore, type ServedStore } from '../../support/apiserver.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const SPEC = '{"id":9007199254740993,"offset":-9223372036854775808,"small":42,"note":"12345678901234567890"}';
const TYPE = { cluster: 'c0', group: 'example.com', version: 'v1', resource: 'ledgers', kind: 'Ledger' };
let served: ServedStore;

beforeAll(async () => {
  const text = `{"apiVersion":"example.com/v1","kind":"Ledger","metadata":{"name":"books","namespace":"ns","uid":"u1","resourceVersion":"5","generation":9007199254740995},"spec":${SPEC}}`;
  served = await serveStore([{ ...TYPE, object: parseExact(text) as StoredJsonObject }, crd()], { c0: true });
});
afterAll(async () => served?.stop());

/** The Ledger CRD, whose printer columns read the int64s as kube's tableconvertor would. */
function crd(): UpsertObject {
  const columns = [
    { name: 'ID', type: 'integer', jsonPath: '.spec.id' }, { name: 'Offset', type: 'integer', jsonPath: '.spec.offset' },
    { name: 'ID Text', type: 'string', jsonPath: '.spec.id' }, { name: 'Ratio', type: 'number', jsonPath: '.spec.id' },
    { name: 'Small', type: 'integer', jsonPath: '.spec.small' }, { name: 'Spec', type: 'string', jsonPath: '.spec' },
  ];
  return {
    cluster: 'c0', group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
    object: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: 'ledgers.example.com', uid: 'crd-1', resourceVersion: '1', creationTimestamp: '2026-11-01T00:00:00Z' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'ledgers', singular: 'ledger', kind: 'Ledger' }, versions: [{ name: 'v1', served: true, storage: true, additionalPrinterColumns: columns }] },
    },
  };
}

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
/** The cells after Cluster and Name: ID, Offset, ID Text, Ratio, Small, and Spec's JSON. */
const CELLS = [9007199254740993n, -9223372036854775808n, '9007199254740993', 9007199254740992, 42];

/** The cells of a Table's rows after Cluster and Name, from JSON read with BigInts where a double cannot hold them. */
function cellsOf(table: unknown): unknown[][] {
  return (table as { rows: { cells: unknown[] }[] }).rows.map((r) => r.cells.slice(2));
}

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

  it('in a custom resource\'s printer columns: whole in integer and string cells, as a float64 in number ones; a get and a list', async () => {
    for (const path of ['/clusters/c0/apis/example.com/v1/namespaces/ns/ledgers/books', '/apis/example.com/v1/ledgers', '/apis/example.com/v1/ledgers?limit=1']) {
      const [cells] = cellsOf(parseWithBigInts(await get(path, TABLE)));
      expect(cells?.slice(0, 5), path).toEqual(CELLS);
      expect(cells?.[5], path).toContain('"id":9007199254740993');
      expect(cells?.[5], path).toContain('"offset":-9223372036854775808');
    }
    // The row's object, when asked for whole.
    expect(await get('/apis/example.com/v1/ledgers?includeObject=Object', TABLE)).toContain(`"spec":${SPEC}`);
  });

  it('in metadata, as PartialObjectMetadata: a get and a list', async () => {
    for (const [path, accept] of [
      ['/clusters/c0/apis/example.com/v1/namespaces/ns/ledgers/books', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'],
      ['/apis/example.com/v1/ledgers', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io'],
    ] as const) {
      expect(await get(path, accept), path).toContain('"generation":9007199254740995');
    }
  });

  it('in a Table watch event', async () => {
    const list = JSON.parse(await get('/apis/example.com/v1/ledgers')) as { metadata: { resourceVersion: string } };
    const ac = new AbortController();
    const r = await request(`${served.api.base}${P}/apis/example.com/v1/ledgers?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=10`,
      { signal: ac.signal, headers: { accept: TABLE } });
    expect(r.statusCode).toBe(200);
    const text = `{"apiVersion":"example.com/v1","kind":"Ledger","metadata":{"name":"later","namespace":"ns","uid":"u2","resourceVersion":"6"},"spec":${SPEC}}`;
    await served.storage.write({ upserts: [{ ...TYPE, object: parseExact(text) as StoredJsonObject }], deletes: [] });
    let got = '';
    for await (const chunk of r.body) {
      got += chunk.toString();
      if (got.includes('\n')) break;
    }
    ac.abort();
    const event = got.slice(0, got.indexOf('\n'));
    expect(event).toMatch(/^\{"type":"ADDED"/);
    const [cells] = cellsOf((parseWithBigInts(event) as { object: unknown }).object);
    expect(cells?.slice(0, 5)).toEqual(CELLS);
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
