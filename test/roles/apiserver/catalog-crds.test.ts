// The catalog's stored CRDs (printer columns, names, subresources) on both backends: a fleet that syncs its CRDs keeps
// thousands, tens of kB each, so a refresh parses only what was written since the last one, and sees all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { Catalog } from '../../../src/roles/apiserver/catalog.js';
import { openStorage } from '../../../src/storage/open.js';
import type { ListQuery, Storage, StorageReader, UpsertObject } from '../../../src/storage/types.js';
import { pod } from '../../support/fixtures.js';
import { freshPostgresDatabase } from '../../support/postgres.js';

const CRD_RESOURCE = 'customresourcedefinitions';

function crd(cluster: string, group: string, plural: string, rv: number, column = 'Size'): UpsertObject {
  return {
    cluster, group: 'apiextensions.k8s.io', version: 'v1', resource: CRD_RESOURCE, kind: 'CustomResourceDefinition',
    object: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}`, uid: `${cluster}-${plural}.${group}`, resourceVersion: String(rv), creationTimestamp: '2026-11-01T00:00:00Z' },
      spec: {
        group, scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind: 'Thing', shortNames: [`${plural.slice(0, 2)}x`] },
        versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, additionalPrinterColumns: [{ name: column, type: 'string', jsonPath: `.spec.${column.toLowerCase()}` }] }],
      },
    },
  };
}

/** Counts what a reader parses of stored CRDs: their objects read through list (not keys only) and get. */
function counting(storage: Storage): { reader: StorageReader; objectsRead: () => number } {
  let n = 0;
  const isCrd = (q: ListQuery): boolean =>
    (q.types.kind === 'one' && q.types.resource === CRD_RESOURCE) || (q.types.kind === 'many' && q.types.entries.some((e) => e.resource === CRD_RESOURCE));
  const reader = new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'list') {
        return async (q: ListQuery, signal?: AbortSignal) => {
          const page = await target.list(q, signal);
          if (!isCrd(q) || q.keysOnly) return page;
          return {
            ...page,
            continueToken: () => page.continueToken(),
            rows: (async function* () {
              for await (const r of page.rows) {
                n++;
                yield r;
              }
            })(),
          };
        };
      }
      if (prop === 'get') {
        return async (key: Parameters<Storage['get']>[0]) => {
          const row = await target.get(key);
          if (row && key.resource === CRD_RESOURCE) n++;
          return row;
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { reader, objectsRead: () => n };
}

describe.each(['sqlite', 'postgres'] as const)('catalog CRDs (%s)', (backend) => {
  let storage: Storage;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    let url = 'sqlite::memory:';
    if (backend === 'postgres') {
      const db = await freshPostgresDatabase('cp_catalog');
      url = db.url;
      drop = db.drop;
    }
    storage = await openStorage({ url }, { logger: silentLogger() });
    await storage.migrate();
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('parses each stored CRD once, then only those written since; forgets deleted ones', async () => {
    const clusters = ['a', 'b', 'c'];
    let rv = 1;
    const upserts = clusters.flatMap((c) => Array.from({ length: 60 }, (_, i) => crd(c, 'fleet.example.io', `things${i}s`, rv++)));
    await storage.write({ upserts, deletes: [] });
    const { reader, objectsRead } = counting(storage);
    const catalog = new Catalog(reader, 60_000);
    expect(await catalog.crdColumns('fleet.example.io', 'v1', 'things59s')).toEqual([{ name: 'Size', type: 'string', jsonPath: '.spec.size' }]);
    expect(objectsRead()).toBe(180);

    // Other rows written, no CRD: a refresh parses none.
    await storage.write({ upserts: [pod('a', 'default', 'p1')], deletes: [] });
    await catalog.get(0);
    await catalog.get(0);
    expect(objectsRead()).toBe(180);

    // One CRD changed in one cluster (the last cluster's CRD of a type is the one printed): that row alone is read.
    await storage.write({ upserts: [crd('c', 'fleet.example.io', 'things7s', rv++, 'Colour')], deletes: [] });
    expect((await catalog.get(0)).crdColumns.get('fleet.example.io/v1/things7s')).toEqual([{ name: 'Colour', type: 'string', jsonPath: '.spec.colour' }]);
    expect(objectsRead()).toBe(181);

    // Deleted everywhere: its columns, names and subresources go.
    expect(await catalog.subresources('fleet.example.io', 'v1', 'things8s')).toEqual({ status: true });
    await storage.write({ upserts: [], deletes: clusters.map((c) => ({ cluster: c, group: 'apiextensions.k8s.io', version: 'v1', resource: CRD_RESOURCE, namespace: '', name: 'things8s.fleet.example.io' })) });
    const snap = await catalog.get(0);
    expect(snap.crdColumns.has('fleet.example.io/v1/things8s')).toBe(false);
    expect(snap.crdNames.has('fleet.example.io/things8s')).toBe(false);
    expect(await catalog.subresources('fleet.example.io', 'v1', 'things8s')).toEqual({ status: false });
    expect(snap.crdColumns.has('fleet.example.io/v1/things9s')).toBe(true);
    expect(objectsRead()).toBe(181);
  });

  it('reads CRDs a cluster stores at apiextensions v1beta1 too', async () => {
    const old = crd('old-member', 'legacy.example.io', 'gadgets', 1, 'Age');
    await storage.write({ upserts: [{ ...old, version: 'v1beta1', object: { ...old.object, apiVersion: 'apiextensions.k8s.io/v1beta1' } }], deletes: [] });
    const catalog = new Catalog(storage, 60_000);
    expect(await catalog.crdColumns('legacy.example.io', 'v1', 'gadgets')).toEqual([{ name: 'Age', type: 'string', jsonPath: '.spec.age' }]);
  });

  it('knows every stored CRD, past the 5,000 it used to read', async () => {
    let rv = 10_000;
    const many = Array.from({ length: 5_100 }, (_, i) => crd('bulk', `g${i % 7}.example.io`, `kinds${i}s`, rv++));
    await storage.write({ upserts: many, deletes: [] });
    // Sorted after "bulk": the catalog read only the first 5,000 rows in (cluster, name) order.
    await storage.write({ upserts: [crd('zz-late', 'late.example.io', 'widgets', rv++, 'Weight')], deletes: [] });
    const catalog = new Catalog(storage, 60_000);
    expect(await catalog.crdColumns('late.example.io', 'v1', 'widgets')).toEqual([{ name: 'Weight', type: 'string', jsonPath: '.spec.weight' }]);
    expect((await catalog.get()).crdNames.get('late.example.io/widgets')?.shortNames).toEqual(['wix']);
  });
});
