// Continue tokens from the outside world: truncated, bit-flipped, re-encoded with forged keys of any JSON type, or
// issued for another query. Through both storage dialects, list() either pages (the token still says something
// well-formed) or rejects with StorageError 'Invalid' (the apiserver's 400) — never a driver error (a 500).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/errors.js';
import type { ListQuery, Storage } from '../../src/storage/types.js';
import { drain, pod, PODS, type Harness } from '../storage/fixtures.js';
import { postgresHarness } from '../storage/harness-postgres.js';
import { sqliteHarness } from '../storage/harness-sqlite.js';

/** Queries whose tokens carry different key shapes: text columns, timestamps, integers, JSON paths, several types. */
const QUERIES: ListQuery[] = [
  { types: PODS, limit: 3 },
  { types: PODS, limit: 3, orderBy: [{ column: 'name', desc: true }] },
  { types: PODS, limit: 3, orderBy: [{ column: 'created_at', desc: false }, { column: 'resource_version', desc: true }] },
  { types: PODS, limit: 3, orderBy: [{ path: [{ name: 'spec' }, { name: 'n' }], desc: false }] },
  { types: { kind: 'all' }, limit: 3 },
];

function fill(): ReturnType<typeof pod>[] {
  return Array.from({ length: 30 }, (_, i) => pod({
    cluster: `c${i % 3}`, namespace: `ns-${i % 4}`, name: `p-${String(i).padStart(2, '0')}`, rv: String(100 + i),
    created: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString().replace('.000Z', 'Z'),
    // Sort keys of several JSON types, and missing ones, under the same path.
    fields: { spec: i % 5 === 0 ? {} : { n: [i, `s${i}`, i % 2 === 0, null, { x: i }][i % 5] } },
  }));
}

type Outcome = 'paged' | 'invalid';

async function attempt(s: Storage, q: ListQuery, token: string): Promise<Outcome> {
  try {
    await drain(await s.list({ ...q, continue: { token } }));
    return 'paged';
  } catch (e: unknown) {
    if (isStorageError(e) && e.code === 'Invalid') return 'invalid';
    throw e;
  }
}

/** A mutation of a real token. */
function tampered(tokens: string[]): fc.Arbitrary<string> {
  const token = fc.constantFrom(...tokens);
  const decoded = (t: string): { v?: unknown; f?: unknown; k?: unknown } => JSON.parse(Buffer.from(t, 'base64url').toString('utf8')) as { v?: unknown; f?: unknown; k?: unknown };
  const encode = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const key = fc.oneof(fc.jsonValue(), fc.string(), fc.integer(), fc.double(), fc.constantFrom("' OR 1=1--", '', '\u0000', 'x'.repeat(5000), 1e308, -0, 2 ** 53 + 1));
  return fc.oneof(
    fc.tuple(token, fc.nat()).map(([t, n]) => t.slice(0, n % t.length)),
    fc.tuple(token, fc.nat(), fc.constantFrom(...'AZaz09-_+/=%.~ '.split(''))).map(([t, i, ch]) => `${t.slice(0, i % t.length)}${ch}${t.slice((i % t.length) + 1)}`),
    fc.tuple(token, fc.string({ maxLength: 8 })).map(([t, s]) => `${t}${s}`),
    // Well-formed JSON with the real fingerprint and forged keys: the case that reaches SQL.
    fc.tuple(token, fc.array(key, { maxLength: 8 })).map(([t, k]) => encode({ ...decoded(t), k })),
    fc.tuple(token, fc.nat(), key).map(([t, i, v]) => {
      const d = decoded(t);
      const k = [...(d.k as unknown[])];
      k[i % k.length] = v;
      return encode({ ...d, k });
    }),
    fc.tuple(token, fc.jsonValue(), fc.jsonValue()).map(([t, v, f]) => encode({ ...decoded(t), v, f })),
    fc.jsonValue().map(encode),
    fc.string({ unit: 'binary' }),
  );
}

function suite(name: string, open: () => Promise<Harness>): void {
  describe(name, () => {
    let h: Harness;
    let s: Storage;
    const tokens: { query: number; token: string }[] = [];
    beforeAll(async () => {
      h = await open();
      s = h.storage;
      await s.migrate();
      await s.write({ upserts: fill(), deletes: [] });
      for (const [qi, q] of QUERIES.entries()) {
        let token: string | undefined;
        for (let page = 0; page < 4; page++) {
          const p = await s.list({ ...q, ...(token ? { continue: { token } } : {}) });
          await drain(p);
          token = p.continueToken();
          if (!token) break;
          tokens.push({ query: qi, token });
        }
      }
    });
    afterAll(async () => h?.cleanup());

    it('every token it issued pages its own query, and is Invalid for every other query', async () => {
      expect(tokens.length).toBeGreaterThan(10);
      for (const { query, token } of tokens) {
        for (const [qi, q] of QUERIES.entries()) {
          expect(await attempt(s, q, token), `token of query ${query} on query ${qi}`).toBe(qi === query ? 'paged' : 'invalid');
        }
      }
    });

    it('a tampered, truncated or forged token pages or is Invalid, never another error', async () => {
      await fc.assert(fc.asyncProperty(fc.nat(QUERIES.length - 1), tampered(tokens.map((t) => t.token)), async (qi, token) => {
        await attempt(s, QUERIES[qi] as ListQuery, token);
      }), { numRuns: 300 });
    });
  });
}

suite('SQLite', sqliteHarness);
suite('PostgreSQL', () => postgresHarness());
