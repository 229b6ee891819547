// Integers past 2^53 (int64s kube-apiserver keeps exactly, in custom resources) come through parsing and storage as the
// member wrote them, not rounded to the nearest double.
import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { parseExact, restoreIntegers } from '../../src/kube/exact-json.js';
import { kubeConfigFromString } from '../../src/kube/kubeconfig.js';
import { prepareUpsert } from '../../src/storage/object-columns.js';
import type { StoredJsonObject } from '../../src/storage/types.js';
import { sqliteHarness } from '../storage/harness-sqlite.js';
import { postgresHarness } from '../storage/harness-postgres.js';
import type { Harness } from '../storage/fixtures.js';

type Tree = bigint | number | string | boolean | null | Tree[] | { [k: string]: Tree };

/** JSON.stringify's text, with bigints written as their integer literals; `ws` after every ":", "," and "[". */
function serialize(v: Tree, ws = ''): string {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${ws}${v.map((x) => serialize(x, ws)).join(`,${ws}`)}${ws}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${ws}${serialize(x, ws)}`).join(`,${ws}`)}}`;
  return JSON.stringify(v);
}

const beyondDouble = fc.oneof(
  // 16 digits, the fewest such an integer has: the scan must find runs that short anywhere in the text.
  fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 16n - 1n }),
  fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 63n - 1n }),
  fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 53n) - 1n }),
  fc.bigInt({ min: 10n ** 20n, max: 10n ** 30n }),
);
// Strings with long digit runs, quotes and backslashes: what the scan must step over.
// A member's strings that look like the marks of an older scheme (no nonce) stay strings, whatever precedes them.
const tricky = fc.oneof(fc.string(), fc.constantFrom('9007199254740993', '"9007199254740993"', '\\"12345678901234567890', 'a\\', '-12345678901234567',
  '\u0001int:5', '"\u0001int:9007199254740993', '\\\u0001int:12345678901234567890'));
const leaf: fc.Arbitrary<Tree> = fc.oneof(beyondDouble, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.maxSafeInteger(), tricky, fc.boolean(), fc.constant(null));
const { tree } = fc.letrec<{ tree: Tree }>((t) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(t('tree'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), t('tree'), { maxKeys: 4 })),
}));

describe('parseExact / restoreIntegers', () => {
  it('writes back every integer as it was, whatever surrounds it', () => {
    fc.assert(fc.property(tree, fc.constantFrom('', ' ', '\n  ', '\t'), (v, ws) => {
      expect(restoreIntegers(JSON.stringify(parseExact(serialize(v, ws))))).toBe(serialize(v));
    }), { numRuns: 3000, seed: 53 });
  });

  it('finds a 16-digit integer at any offset, and after spaces or a minus sign', () => {
    for (let k = 0; k < 40; k++) {
      for (const text of [`{"${'a'.repeat(k)}":9007199254740993}`, `[${' '.repeat(k)}-9007199254740993 ]`]) {
        expect(restoreIntegers(JSON.stringify(parseExact(text))), text).toBe(text.replace(/ /g, ''));
      }
    }
  });

  it('is JSON.parse for text without such integers, and fails where it fails', () => {
    fc.assert(fc.property(fc.json(), (text) => {
      expect(parseExact(text)).toEqual(JSON.parse(text));
    }), { numRuns: 500, seed: 7 });
    for (const bad of ['{"a":9007199254740993', '[12345678901234567890,]', '{"a":"12345678901234567']) expect(() => parseExact(bad), bad).toThrow(SyntaxError);
  });

  it('a double past 2^53 written with a fraction or an exponent is a double, as kube reads it', () => {
    expect(restoreIntegers(JSON.stringify(parseExact('[9007199254740993.0,1e400,12345678901234567e2]')))).toBe('[9007199254740992,null,1234567890123456800]');
  });
});

describe('a custom resource with int64s from a member, through storage', () => {
  const object = '{"apiVersion":"example.com/v1","kind":"Ledger","metadata":{"name":"books","namespace":"default","uid":"u1","resourceVersion":"7"},'
    + '"spec":{"id":9007199254740993,"offset":-9223372036854775808,"max":9223372036854775807,"note":"9007199254740993","small":42}}';
  let server: http.Server;
  let client: KubeClient;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.includes('watch=true')) res.end(`{"type":"MODIFIED","object":${object}}\n`);
      else res.end(`{"apiVersion":"example.com/v1","kind":"LedgerList","metadata":{"resourceVersion":"7"},"items":[${object}]}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    client = await KubeClient.create(kubeConfigFromString(`apiVersion: v1
kind: Config
clusters: [{name: m, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: m, user: u}}]
current-context: c
`));
  });

  afterAll(async () => {
    await client?.close();
    await new Promise((r) => server?.close(r));
  });

  const spec = '"spec":{"id":9007199254740993,"offset":-9223372036854775808,"max":9223372036854775807,"note":"9007199254740993","small":42}';

  for (const [dialect, open] of [['sqlite', sqliteHarness], ['postgres', postgresHarness]] as const) {
    it(`a list item and a watch event are stored with the member's integers (${dialect})`, async () => {
      const h: Harness = await open();
      try {
        await h.storage.migrate();
        const list = await client.jsonSized<{ items: StoredJsonObject[] }>('/apis/example.com/v1/ledgers');
        const events: StoredJsonObject[] = [];
        for await (const ev of client.watch('/apis/example.com/v1/ledgers', { resourceVersion: '7' })) events.push(ev.object as StoredJsonObject);
        const t = { cluster: 'm', group: 'example.com', version: 'v1', resource: 'ledgers', kind: 'Ledger' };
        const prepared = [list.value.items[0]!, events[0]!].map((o, i) => prepareUpsert({ ...t, cluster: `m${i}`, object: o }));
        for (const p of prepared) expect(p.template.head + p.template.tail).toContain(spec);
        await h.storage.write({ upserts: prepared, deletes: [] });
        for (const cluster of ['m0', 'm1']) {
          const row = await h.storage.get({ ...t, cluster, namespace: 'default', name: 'books' });
          expect(row?.object).toContain(spec);
        }
      } finally {
        await h.cleanup();
      }
    });
  }
});
