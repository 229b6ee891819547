// Both dialects agree exactly with a reference model of the selector semantics, on random objects and requirements.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldPathSegment, FieldRequirement, LabelRequirement, SelectorOperator } from '../../src/kube/requirement.js';
import { matchesFields } from '../../src/kube/match.js';
import type { Storage, UpsertObject } from '../../src/storage/types.js';
import { drain, id, pod, PODS, type Harness } from './fixtures.js';
import { postgresHarness } from './harness-postgres.js';
import { sqliteHarness } from './harness-sqlite.js';

const LABEL_KEYS = ['a', 'b.io/x', 'c'];
// Gt/Lt read values as Go's strconv.ParseInt(v, 10, 64): int64's edges, 19 digits, leading zeros, a sign.
const LABEL_VALUES = ['1', '2', '10', '-3', 'x', '', '007', '9223372036854775807', '9223372036854775808', '00000000000000000000012'];
const SCALARS: unknown[] = ['1', 'x', '', 3, 0, -2, 1.5, 1e3, true, false, null, { k: 'x' }, [1], '+7', '-9223372036854775808', '-9223372036854775809', '1000000000000000000'];

/** 60 pods drawn from a fixed seed: labels from small domains, spec fields of every JSON type, lists of objects. */
function dataset(seed: number): UpsertObject[] {
  const scalar = fc.constantFrom(...SCALARS);
  const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined, freq: 4 });
  const element = fc.oneof({ arbitrary: fc.record({ k: scalar, j: fc.constantFrom(...LABEL_VALUES) }), weight: 4 }, { arbitrary: scalar, weight: 1 });
  const one = fc.record({
    labels: fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.constantFrom(...LABEL_VALUES), { maxKeys: 3 }),
    s: maybe(scalar),
    n: maybe(scalar),
    m: maybe(scalar),
    list: maybe(fc.array(element, { maxLength: 3 })),
  });
  const [objects] = fc.sample(fc.array(one, { minLength: 60, maxLength: 60 }), { seed, numRuns: 1 });
  return (objects ?? []).map((o, i) => {
    const spec: Record<string, unknown> = {};
    for (const k of ['s', 'n', 'm', 'list'] as const) if (o[k] !== undefined) spec[k] = o[k];
    return pod({ cluster: `c${i % 2}`, namespace: 'ns', name: `p${String(i).padStart(2, '0')}`, labels: o.labels, fields: { spec } });
  });
}

// ---- the reference model ----
function render(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}

function positive(v: unknown, op: SelectorOperator, values: string[]): boolean {
  const t = render(v);
  switch (op) {
    case '=':
    case '==':
    case '!=':
      return t !== undefined && t === values[0];
    case 'in':
    case 'notin':
      return t !== undefined && values.includes(t);
    case 'exists':
    case '!':
      return v !== undefined && v !== null;
    case 'gt':
    case 'lt': {
      if (t === undefined || !/^[+-]?[0-9]+$/.test(t)) return false;
      const a = BigInt(t);
      if (a > 2n ** 63n - 1n || a < -(2n ** 63n)) return false;
      const b = BigInt(values[0] as string);
      return op === 'gt' ? a > b : a < b;
    }
  }
}

function some(v: unknown, path: FieldPathSegment[], op: SelectorOperator, values: string[]): boolean {
  const [seg, ...rest] = path;
  if (!seg) return positive(v, op, values);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  let next = (v as Record<string, unknown>)[seg.name];
  if (seg.list) return Array.isArray(next) && next.some((e) => typeof e === 'object' && e !== null && some(e, rest, op, values));
  if (seg.index !== undefined) next = Array.isArray(next) ? next[seg.index] : undefined;
  return some(next, rest, op, values);
}

/** The value at a plain path (no list, no index). */
function at(v: unknown, path: FieldPathSegment[]): unknown {
  for (const seg of path) v = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[seg.name] : undefined;
  return v;
}

function matches(o: Record<string, unknown>, given: FieldRequirement): boolean {
  // A label that reads another field when its own is absent, null or "" (an Event's source).
  const own = at(o, given.path);
  const r = given.orPath && (own === undefined || own === null || own === '') ? { ...given, path: given.orPath } : given;
  let p = some(o, r.path, r.operator, r.values);
  // A Kubernetes field label: an absent (or null) field has the value kube renders for it.
  if (r.absentAs !== undefined && r.operator !== 'exists' && r.operator !== '!' && !some(o, r.path, 'exists', [])) p = positive(r.absentAs, r.operator, r.values);
  return r.operator === '!=' || r.operator === 'notin' || r.operator === '!' ? !p : p;
}

// ---- generators ----
const op = fc.constantFrom<SelectorOperator>('=', '==', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt');
const VALUES = [...LABEL_VALUES, '3', '1.5', 'true', 'false', '1000'];
const valuesFor = (o: SelectorOperator): fc.Arbitrary<string[]> =>
  o === 'exists' || o === '!' ? fc.constant<string[]>([])
    : o === 'in' || o === 'notin' ? fc.array(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 3 })
      : o === 'gt' || o === 'lt' ? fc.constantFrom('0', '2', '-5', '9', '9223372036854775806', '-9223372036854775808', '999999999999999999', '9007199254740993').map((v) => [v])
        : fc.constantFrom(...VALUES).map((v) => [v]);
const label: fc.Arbitrary<LabelRequirement> = fc.tuple(fc.constantFrom(...LABEL_KEYS), op).chain(([key, operator]) => valuesFor(operator).map((values) => ({ key, operator, values })));
const fieldPath: fc.Arbitrary<FieldPathSegment[]> = fc.constantFrom<FieldPathSegment[]>(
  [{ name: 'spec' }, { name: 's' }], [{ name: 'spec' }, { name: 'n' }], [{ name: 'spec' }, { name: 'm' }],
  [{ name: 'spec' }, { name: 'list', list: true }, { name: 'k' }], [{ name: 'spec' }, { name: 'list', list: true }, { name: 'j' }],
  [{ name: 'spec' }, { name: 'list', index: 0 }, { name: 'k' }], [{ name: 'spec' }, { name: 'list', index: 1 }, { name: 'j' }],
  [{ name: 'metadata' }, { name: 'labels' }, { name: 'b.io/x' }], [{ name: 'spec' }],
);
const plainPath = fc.constantFrom<FieldPathSegment[]>([{ name: 'spec' }, { name: 's' }], [{ name: 'spec' }, { name: 'n' }], [{ name: 'spec' }, { name: 'm' }]);
const field: fc.Arbitrary<FieldRequirement> = fc.tuple(fieldPath, op, fc.option(fc.constantFrom('', 'false', '0', 'x', '3'), { nil: undefined, freq: 2 }), fc.option(plainPath, { nil: undefined, freq: 2 }))
  .chain(([p, operator, absentAs, orPath]) => valuesFor(operator).map((values) => {
    // Field labels (kube's, field-labels.ts) are plain paths: only those carry an absent value, or another to read.
    const label = absentAs !== undefined && p.every((s) => !s.list && s.index === undefined);
    return { path: p, operator, values, ...(label ? { absentAs } : {}), ...(label && orPath ? { orPath } : {}) };
  }));

describe('selector semantics: SQLite = PostgreSQL = reference model', () => {
  const data = dataset(42);
  let hs: Harness[] = [];
  let stores: Storage[] = [];
  /** Each store's revision before the data was written. */
  const origins = new Map<Storage, string>();
  beforeAll(async () => {
    hs = [await sqliteHarness(), await postgresHarness()];
    stores = hs.map((h) => h.storage);
    for (const s of stores) {
      await s.migrate();
      origins.set(s, await s.currentRevision());
      await s.write({ upserts: data, deletes: [] });
    }
  });
  afterAll(async () => {
    for (const h of hs) await h.cleanup();
  });

  const expected = (labels: LabelRequirement[], fields: FieldRequirement[]): string[] =>
    data
      .filter((u) => labels.every((l) => matches(u.object, { path: [{ name: 'metadata' }, { name: 'labels' }, { name: l.key }], operator: l.operator, values: l.values })))
      .filter((u) => fields.every((f) => matches(u.object, f)))
      .map((u) => `${u.cluster}/ns/${u.object.metadata.name}`)
      .sort((a, b) => (a.split('/')[0] === b.split('/')[0] ? (a < b ? -1 : 1) : a < b ? -1 : 1));

  it('list(): labels and fields', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(label, { maxLength: 2 }), fc.array(field, { maxLength: 2 }), async (labels, fields) => {
        const want = expected(labels, fields);
        for (const s of stores) expect((await drain(await s.list({ types: PODS, labels, fields }))).map(id)).toEqual(want);
      }),
      { numRuns: 120, seed: 20240601 },
    );
  });

  it("the in-memory matcher (a watch's filter) selects what storage selects", () => {
    fc.assert(
      fc.property(fc.array(field, { maxLength: 2 }), (fields) => {
        const got = data.filter((u) => matchesFields(u.object, fields)).map((u) => `${u.cluster}/ns/${u.object.metadata.name}`).sort();
        expect(got).toEqual([...expected([], fields)].sort());
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it('changesSince(): the same requirements select the same ADDED entries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(label, { maxLength: 2 }), fc.array(field, { maxLength: 1 }), async (labels, fields) => {
        const want = expected(labels, fields);
        for (const s of stores) {
          const r = await s.changesSince(origins.get(s) ?? '', { types: PODS, labels, fields }, 1000);
          expect(r.expired).toBe(false);
          expect(r.expired ? [] : r.changes.map((c) => id(c.row)).sort()).toEqual([...want].sort());
        }
      }),
      { numRuns: 60, seed: 7 },
    );
  });

  it('orders by JSON paths byte-wise, with absent values first ascending', async () => {
    for (const p of [[{ name: 'spec' }, { name: 's' }], [{ name: 'spec' }, { name: 'n' }], [{ name: 'spec' }, { name: 'list', index: 0 }, { name: 'j' }]]) {
      for (const desc of [false, true]) {
        const results = await Promise.all(stores.map(async (s) => (await drain(await s.list({ types: PODS, orderBy: [{ path: p, desc }] }))).map(id)));
        expect(results[1]).toEqual(results[0]);
      }
    }
  });
});
