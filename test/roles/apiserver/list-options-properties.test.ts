// Property test: any query string gives a ListQuery or a 400/422 Status, never another exception.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseListOptions, type ListOptionsInput } from '../../../src/roles/apiserver/list-options.js';
import { isStatusError } from '../../../src/kube/status.js';

const KEYS = [
  'clusters', 'namespaces', 'names', 'orderby', 'ownerUID', 'ownerName', 'ownerGR', 'ownerSeniority', 'since', 'before', 'limit',
  'continue', 'withContinue', 'withRemainingCount', 'onlyMetadata', 'injectEvents', 'labelSelector', 'fieldSelector', 'groups',
  'resources', 'watch', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'allowWatchBookmarks', 'sendInitialEvents',
];
const SEARCH_KEYS = [
  'clusters', 'namespaces', 'names', 'orderby', 'owner-uid', 'owner-name', 'owner-gr', 'owner-seniority', 'since', 'before', 'limit',
  'offset', 'with-continue', 'with-remaining-count', 'inject-events', 'forward', 'nope',
].map((k) => `search.clusterpedia.io/${k}`).concat('internalstorage.clusterpedia.io/fuzzy-name', 'app', 'app.clusterpedia.io/x');

const valueFragment = fc.constantFrom(
  'c1', 'c2', ',', ' ', '', '0', '1', '-1', '10', '1646352000', '1646352000000', '2022-03-04', '2022-03-04T00:00:00Z', 'true', 'false',
  'name', 'desc', ' desc', '_desc', '.status.phase', '[]', '[0]', "['a.b']", 'apps', '/', 'pods', 'deployments.apps', '*', 'Exact',
  'NotOlderThan', '=', '!=', 'in', 'notin', '(', ')', '!', '>', '<', '%', '\u00e9', '9999999999999999999999',
);
const value = fc.oneof(fc.array(valueFragment, { maxLength: 6 }).map((p) => p.join('')), fc.string());
const selector = fc.array(
  fc.tuple(fc.constantFrom(...SEARCH_KEYS), fc.constantFrom('=', '==', '!=', ' in ', ' notin ', '', '>'), value)
    .map(([k, op, v]) => (op.includes('in') ? `${k}${op}(${v})` : `${k}${op}${op ? v : ''}`)),
  { maxLength: 4 },
).map((reqs) => reqs.join(','));

const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string()), fc.oneof(value, selector)), { maxLength: 8 });
const rawQuery = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));

const inputs: fc.Arbitrary<ListOptionsInput> = fc.tuple(fc.oneof(pairs.map((p) => new URLSearchParams(p)), rawQuery.map((s) => new URLSearchParams(s))), fc.nat(3))
  .map(([query, shape]): ListOptionsInput => {
    if (shape === 0) return { mode: 'collection', collection: 'any', query };
    if (shape === 1) return { mode: 'collection', collection: 'workloads', query, types: { kind: 'all' } };
    return { mode: 'resources', group: 'apps', version: 'v1', resource: 'deployments', query, ...(shape === 3 ? { pathCluster: 'c1', pathNamespace: 'ns' } : {}) };
  });

describe('parseListOptions', () => {
  it('returns a query or throws a 400/422 StatusError, nothing else', () => {
    fc.assert(fc.property(inputs, (input) => {
      try {
        const parsed = parseListOptions(input);
        expect(parsed.query.types).toBeDefined();
        // Every order term is a known column or a path: never text that could reach SQL.
        for (const t of parsed.query.orderBy ?? []) expect('column' in t || 'path' in t).toBe(true);
      } catch (e: unknown) {
        if (!isStatusError(e)) throw e;
        expect([400, 422]).toContain(e.status.code);
      }
    }), { numRuns: 2000 });
  });
});
