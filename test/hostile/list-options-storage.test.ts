// URL query → parseListOptions → storage, end to end on both dialects: any query gives rows or a typed error (a 400/422
// Status from parsing, StorageError 'Invalid' from storage) — never a driver error; both dialects return the same
// rows; and SQL-injection strings in any filtering position match nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/kube/status.js';
import { parseListOptions, type ListOptionsInput } from '../../src/roles/apiserver/list-options.js';
import { isStorageError } from '../../src/storage/errors.js';
import type { ListQuery, Storage } from '../../src/storage/types.js';
import { drain, type Harness } from '../storage/fixtures.js';
import { postgresHarness } from '../storage/harness-postgres.js';
import { sqliteHarness } from '../storage/harness-sqlite.js';
import { datasetObjects } from './dataset.js';
import { CLUSTERS, FIELD_PATHS, FIELD_VALUES, FRAGMENTS, INJECTIONS, LABEL_VALUES, NAMESPACES, ODD, SEARCH_LABELS } from './fuzz/corpus.js';
import { fieldSelector, labelSelector } from './fuzz/generate.js';
import { Rng } from './fuzz/prng.js';

const SHAPE = { clusters: 3, deploymentsPerCluster: 12, podsPerDeployment: 2 };
let sqlite: Harness;
let pg: Harness;

beforeAll(async () => {
  [sqlite, pg] = await Promise.all([sqliteHarness(), postgresHarness()]);
  for (const h of [sqlite, pg]) {
    await h.storage.migrate();
    await h.storage.write({ upserts: datasetObjects(SHAPE), deletes: [] });
  }
}, 60_000);

afterAll(async () => {
  await sqlite?.cleanup();
  await pg?.cleanup();
});

type Outcome = { ok: true; ids: string[] } | { ok: false; why: string };

/** Lists with one storage: the row ids in order, or 'Invalid'. Anything else is thrown (and fails the property). */
async function run(s: Storage, q: ListQuery): Promise<Outcome> {
  try {
    const rows = await drain(await s.list(q));
    return { ok: true, ids: rows.map((r) => `${r.cluster}/${r.resource}/${r.namespace}/${r.name}`) };
  } catch (e: unknown) {
    if (isStorageError(e) && e.code === 'Invalid') return { ok: false, why: e.message };
    throw e;
  }
}

/** Parses as the apiserver does; undefined when parsing answers 400/422 (anything else is thrown). */
function parse(input: ListOptionsInput): ListQuery | undefined {
  try {
    return parseListOptions(input).query;
  } catch (e: unknown) {
    if (isStatusError(e) && (e.status.code === 400 || e.status.code === 422)) return undefined;
    throw e;
  }
}

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const hostile = fc.constantFrom(...INJECTIONS, ...FRAGMENTS, ...ODD);
const value = fc.oneof(
  { arbitrary: fc.constantFrom(...CLUSTERS, ...NAMESPACES, ...LABEL_VALUES, ...FIELD_VALUES, 'app-1', 'app-3-config', 'node-0'), weight: 4 },
  { arbitrary: hostile, weight: 3 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  { arbitrary: fc.array(fc.constantFrom(...CLUSTERS, ...NAMESPACES, ...INJECTIONS), { minLength: 1, maxLength: 3 }).map((v) => v.join(',')), weight: 2 },
);
const param: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(fc.constantFrom('clusters', 'namespaces', 'names', 'ownerName', 'ownerUID', 'ownerGR', 'ownerSeniority', 'since', 'before', 'continue',
    'withRemainingCount', 'onlyMetadata', 'limit', 'resourceVersion', 'resourceVersionMatch'), value),
  fc.tuple(fc.constant('limit'), fc.integer({ min: -1, max: 30 }).map(String)),
  fc.tuple(fc.constant('labelSelector'), seed.map((s) => labelSelector(new Rng(s)).text)),
  fc.tuple(fc.constant('labelSelector'), fc.tuple(fc.constantFrom(...SEARCH_LABELS), value).map(([k, v]) => `${k}=${v}`)),
  fc.tuple(fc.constant('fieldSelector'), seed.map((s) => fieldSelector(new Rng(s)).text)),
  fc.tuple(fc.constant('orderby'), fc.oneof(fc.constantFrom('name desc', 'created_at', 'resource_version desc,name', 'kind', '.status.phase', '.spec.replicas desc', 'cluster,namespace desc'),
    fc.constantFrom(...FIELD_PATHS).map((p) => `.${p.replace(/^\./, '')}`), hostile)),
);
const TYPES = [
  { group: '', version: 'v1', resource: 'pods' }, { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: '', version: 'v1', resource: 'configmaps' }, { group: '', version: 'v1', resource: 'namespaces' },
];
const input: fc.Arbitrary<ListOptionsInput> = fc.tuple(fc.array(param, { maxLength: 5 }), fc.nat(5), fc.constantFrom(...CLUSTERS), fc.constantFrom(...NAMESPACES))
  .map(([params, shape, cluster, namespace]): ListOptionsInput => {
    const query = new URLSearchParams(params);
    if (shape === 5) return { mode: 'collection', collection: 'any', query: new URLSearchParams([['groups', '*'], ...params]) };
    const t = TYPES[shape % TYPES.length] as (typeof TYPES)[number];
    return { mode: 'resources', ...t, query, ...(shape === 4 ? { pathCluster: cluster, pathNamespace: namespace } : {}) };
  });

describe('URL → ListQuery → storage', () => {
  it('every query gives rows or a typed error on both dialects, and both dialects give the same rows', async () => {
    let listed = 0;
    await fc.assert(fc.asyncProperty(input, async (i) => {
      const q = parse(i);
      if (!q) return;
      listed++;
      const [a, b] = [await run(sqlite.storage, q), await run(pg.storage, q)];
      if (a.ok && b.ok) expect(b.ids).toEqual(a.ids);
    }), { numRuns: 400 });
    // The property reached storage often enough to mean something.
    expect(listed).toBeGreaterThan(100);
  });

  it('an injection string in any filtering position matches no row on either dialect', async () => {
    const position = fc.constantFrom<(v: string) => [string, string][]>(
      (v) => [['clusters', v]], (v) => [['namespaces', v]], (v) => [['names', v]],
      (v) => [['clusters', 'member-1'], ['ownerName', v]], (v) => [['clusters', 'member-1'], ['ownerUID', v]],
      (v) => [['clusters', 'member-1'], ['ownerName', v], ['ownerGR', 'replicasets.apps']],
      (v) => [['fieldSelector', `metadata.name=${v.replace(/[\s,()=!<>]/g, '')}`]],
      (v) => [['fieldSelector', `status.phase in (${v.replace(/[\s,()=!<>]/g, '') || 'x'})`]],
      (v) => [['fieldSelector', `metadata.annotations['${v.replace(/'/g, '')}']=x`]],
    );
    await fc.assert(fc.asyncProperty(fc.constantFrom(...INJECTIONS), position, async (v, at) => {
      const q = parse({ mode: 'resources', group: '', version: 'v1', resource: 'pods', query: new URLSearchParams(at(v)) });
      if (!q) return;
      for (const s of [sqlite.storage, pg.storage]) {
        const r = await run(s, q);
        if (r.ok) expect(r.ids).toEqual([]);
      }
    }), { numRuns: 300 });
  });
});
