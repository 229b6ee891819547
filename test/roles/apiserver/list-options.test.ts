// URL query → ListQuery: reference §9.5 A1–A6/A11, the parameter table, label forms with operators, and errors.
import { describe, expect, it } from 'vitest';
import { parseListOptions, type ListOptionsInput, type ParsedListOptions } from '../../../src/roles/apiserver/list-options.js';
import { isStatusError } from '../../../src/kube/status.js';

type Params = Record<string, string> | string;

function input(params: Params, extra: Partial<Extract<ListOptionsInput, { mode: 'resources' }>> = {}): ListOptionsInput {
  return { mode: 'resources', group: 'apps', version: 'v1', resource: 'deployments', query: new URLSearchParams(params), ...extra };
}
const parse = (params: Params, extra?: Partial<Extract<ListOptionsInput, { mode: 'resources' }>>): ParsedListOptions =>
  parseListOptions(input(params, extra));
const labels = (selector: string): ParsedListOptions => parse({ labelSelector: selector });

/** The 400 message for a query, failing the test when it parses or fails otherwise. */
function badRequestOf(params: Params, extra?: Partial<Extract<ListOptionsInput, { mode: 'resources' }>>): string {
  try {
    parse(params, extra);
  } catch (e: unknown) {
    if (!isStatusError(e)) throw e;
    expect(e.status.code).toBe(400);
    expect(e.status.reason).toBe('BadRequest');
    return e.status.message;
  }
  throw new Error(`expected ${JSON.stringify(params)} to be rejected`);
}

const DEPLOYMENTS = { kind: 'one', group: 'apps', version: 'v1', resource: 'deployments' } as const;

describe('defaults', () => {
  it('an empty query selects the one GVR and nothing else', () => {
    expect(parse('')).toEqual({
      query: { types: DEPLOYMENTS }, watch: undefined, revision: { kind: 'newest' },
      timeoutSeconds: undefined, withContinue: undefined, injectEvents: false,
    });
  });
});

describe('A1 clusters: URL and label forms', () => {
  it('give the same filter', () => {
    expect(parse({ clusters: 'c1,c2' }).query.clusters).toEqual({ op: 'in', values: ['c1', 'c2'] });
    expect(labels('search.clusterpedia.io/clusters in (c1,c2)').query.clusters).toEqual({ op: 'in', values: ['c1', 'c2'] });
  });

  it('the URL wins when both are given', () => {
    expect(parse({ clusters: 'c3', labelSelector: 'search.clusterpedia.io/clusters in (c1,c2)' }).query.clusters)
      .toEqual({ op: 'in', values: ['c3'] });
  });

  it('reads only the first occurrence, trims items and drops empty and repeated ones', () => {
    expect(parse('clusters=c1,%20c2&clusters=c9').query.clusters).toEqual({ op: 'in', values: ['c1', 'c2'] });
    expect(parse({ namespaces: ',kube-system,,kube-system' }).query.namespaces).toEqual({ op: 'in', values: ['kube-system'] });
    expect(parse({ names: '  ' }).query.names).toBeUndefined();
    expect(parse({ namespaces: ' , ,' }).query.namespaces).toBeUndefined();
  });
});

describe('search labels honour operators (API.md §4 difference)', () => {
  it.each([
    ['search.clusterpedia.io/namespaces notin (kube-system)', 'namespaces', { op: 'notin', values: ['kube-system'] }],
    ['search.clusterpedia.io/clusters!=c1', 'clusters', { op: 'notin', values: ['c1'] }],
    ['search.clusterpedia.io/clusters=c1', 'clusters', { op: 'in', values: ['c1'] }],
    ['search.clusterpedia.io/clusters==c1', 'clusters', { op: 'in', values: ['c1'] }],
    ['search.clusterpedia.io/names in (b,a)', 'names', { op: 'in', values: ['b', 'a'] }],
    ['search.clusterpedia.io/namespaces in (a,b),search.clusterpedia.io/namespaces notin (b)', 'namespaces', { op: 'in', values: ['a'] }],
    ['search.clusterpedia.io/namespaces notin (a),search.clusterpedia.io/namespaces!=b', 'namespaces', { op: 'notin', values: ['a', 'b'] }],
  ] as const)('%j', (selector, key, filter) => {
    expect(labels(selector).query[key]).toEqual(filter);
  });

  it.each([
    ['search.clusterpedia.io/clusters', /search label requirement "search.clusterpedia.io\/clusters" uses an operator not supported/],
    ['!search.clusterpedia.io/namespaces', /not supported for search.clusterpedia.io\/namespaces; use =, ==, in, != or notin/],
    ['search.clusterpedia.io/owner-uid!=u', /not supported for search.clusterpedia.io\/owner-uid; use = or ==/],
    ['search.clusterpedia.io/since notin (2022-03-04)', /not supported for search.clusterpedia.io\/since/],
    ['search.clusterpedia.io/inject-events', /not supported for search.clusterpedia.io\/inject-events/],
    ['search.clusterpedia.io/orderby!=name', /not supported for search.clusterpedia.io\/orderby; use =, == or in/],
    ['internalstorage.clusterpedia.io/fuzzy-name notin (a)', /not supported for internalstorage.clusterpedia.io\/fuzzy-name/],
    ['search.clusterpedia.io/owner-uid in (a,b)', /search.clusterpedia.io\/owner-uid takes exactly one value/],
    ['search.clusterpedia.io/limit=1,search.clusterpedia.io/limit=2', /search.clusterpedia.io\/limit given more than once/],
    ['search.clusterpedia.io/forward', /forwarding to member clusters is not supported/],
    ['search.clusterpedia.io/forward=true', /forwarding to member clusters is not supported/],
    ['search.clusterpedia.io/cluster=c1', /unknown search label search.clusterpedia.io\/cluster; known under/],
    ['internalstorage.clusterpedia.io/fuzzy=a', /unknown search label internalstorage.clusterpedia.io\/fuzzy/],
  ])('rejects %j', (selector, message) => {
    const m = badRequestOf({ labelSelector: selector });
    expect(m).toMatch(/^labelSelector: /);
    expect(m).toMatch(message);
  });

  it('A11: other keys merely containing clusterpedia.io are ordinary labels', () => {
    expect(labels('app.clusterpedia.io/x=y').query.labels).toEqual([{ key: 'app.clusterpedia.io/x', operator: '=', values: ['y'] }]);
  });

  it('keeps the ordinary requirements in canonical form and consumes the search ones', () => {
    const { query } = labels('tier in (b,a),search.clusterpedia.io/clusters=c1,app=web,internalstorage.clusterpedia.io/fuzzy-name in (x,y)');
    expect(query.labels).toEqual([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'tier', operator: 'in', values: ['a', 'b'] },
    ]);
    expect(query.clusters).toEqual({ op: 'in', values: ['c1'] });
    expect(query.fuzzyNames).toEqual(['x', 'y']);
  });
});

describe('A2 orderby', () => {
  it('URL and label forms agree', () => {
    const want = [{ column: 'name', desc: true }];
    expect(parse({ orderby: 'name desc' }).query.orderBy).toEqual(want);
    expect(labels('search.clusterpedia.io/orderby=name_desc').query.orderBy).toEqual(want);
  });

  it('several keys, numeric-looking columns and field paths', () => {
    expect(parse({ orderby: 'namespace,created_at desc, resource_version,.status.phase desc' }).query.orderBy).toEqual([
      { column: 'namespace', desc: false },
      { column: 'created_at', desc: true },
      { column: 'resource_version', desc: false },
      { path: [{ name: 'status' }, { name: 'phase' }], desc: true },
    ]);
    expect(parse({ orderby: ".metadata.labels['app.kubernetes.io/name']" }).query.orderBy)
      .toEqual([{ path: [{ name: 'metadata' }, { name: 'labels' }, { name: 'app.kubernetes.io/name' }], desc: false }]);
  });

  it('label values keep the order written', () => {
    expect(labels('search.clusterpedia.io/orderby in (resource_version_desc,cluster)').query.orderBy).toEqual([
      { column: 'resource_version', desc: true },
      { column: 'cluster', desc: false },
    ]);
  });

  it('the URL wins over the label', () => {
    expect(parse({ orderby: 'cluster', labelSelector: 'search.clusterpedia.io/orderby=name' }).query.orderBy)
      .toEqual([{ column: 'cluster', desc: false }]);
  });

  it.each([
    [{ orderby: 'a b' }, /^Invalid Query OrderBy\(a b\): expected '<field>' or '<field> desc'$/],
    [{ orderby: 'name  desc' }, /^Invalid Query OrderBy\(name {2}desc\)/],
    [{ orderby: 'name,' }, /^Invalid Query OrderBy\(\): empty field/],
    [{ orderby: 'JSON_EXTRACT(object,"$.x")' }, /^Invalid Query OrderBy\(JSON_EXTRACT\(object\): unknown field "JSON_EXTRACT\(object"; use one of cluster, namespace, name, created_at, resource_version, group, version, resource, kind, or a field path/],
    [{ orderby: 'name; drop table resources' }, /^Invalid Query OrderBy/],
    [{ orderby: '.spec.containers[].image' }, /may not contain \[\] or \[N\]/],
    [{ orderby: '.spec..x' }, /^Invalid Query OrderBy\(\.spec\.\.x\): invalid field path/],
    [{ labelSelector: 'search.clusterpedia.io/orderby=desc' }, /^Invalid Query OrderBy\(desc\): unknown field "desc"/],
    [{ labelSelector: 'search.clusterpedia.io/orderby=a,search.clusterpedia.io/orderby=b' }, /given more than once/],
  ])('%j → 400', (params, message) => {
    expect(badRequestOf(params)).toMatch(message);
  });
});

describe('A3 since / before', () => {
  it.each([
    ['1646352000', '2022-03-04T00:00:00.000Z'],
    ['1646352000000', '2022-03-04T00:00:00.000Z'],
    ['2022-03-04', '2022-03-04T00:00:00.000Z'],
    ['2022-03-04 08:00:00', '2022-03-04T08:00:00.000Z'],
    ['2022-03-04T08:00:00+08:00', '2022-03-04T00:00:00.000Z'],
  ])('since=%s', (v, iso) => {
    expect(parse({ since: v }).query.since?.toISOString()).toBe(iso);
    expect(parse({ before: v }).query.before?.toISOString()).toBe(iso);
  });

  it('label form: dates and timestamps', () => {
    const { query } = labels('search.clusterpedia.io/since=2022-03-04,search.clusterpedia.io/before=1647302400');
    expect([query.since?.toISOString(), query.before?.toISOString()]).toEqual(['2022-03-04T00:00:00.000Z', '2022-03-15T00:00:00.000Z']);
    expect(parse({ since: '2022-03-05', labelSelector: 'search.clusterpedia.io/since=2022-03-04' }).query.since?.toISOString())
      .toBe('2022-03-05T00:00:00.000Z');
  });

  it.each([
    [{ since: '16463520000' }, 'Invalid Query Since(16463520000): Invalid timestamp: only timestamps with string lengths of 10(as s) and 13(as ms) are supported'],
    [{ before: 'tomorrow' }, 'Invalid Query Before(tomorrow): Invalid datetime: tomorrow, a valid datetime format: RFC3339, Datetime(2006-01-02 15:04:05), Date(2006-01-02), Unix Timestamp'],
    [{ labelSelector: 'search.clusterpedia.io/since=2022-02-30' }, /^Invalid Query Since\(2022-02-30\): Invalid datetime/],
    [{ since: '2022-03-15', before: '2022-03-04' }, 'Invalid Query, Since is after Before'],
  ])('%j → 400', (params, message) => {
    expect(badRequestOf(params)).toMatch(message);
  });

  it('since equal to before is an empty range, not an error', () => {
    expect(parse({ since: '2022-03-04', before: '2022-03-04' }).query.since).toBeDefined();
  });
});

describe('A4/A5 pagination parameters', () => {
  it('limit, numeric continue (offset), withContinue, withRemainingCount', () => {
    const p = parse({ limit: '2', continue: '4', withContinue: 'true', withRemainingCount: 'true' });
    expect(p.query).toMatchObject({ limit: 2, continue: { offset: 4 }, withRemainingCount: true });
    expect(p.withContinue).toBe(true);
  });

  it('an opaque continue token is passed through', () => {
    expect(parse({ continue: 'eyJyIjoiMTIifQ' }).query.continue).toEqual({ token: 'eyJyIjoiMTIifQ' });
    expect(parse({ continue: '-1' }).query.continue).toEqual({ token: '-1' });
  });

  it('limit ≤ 0 and empty mean no limit; huge limits are kept for the server to cap', () => {
    expect(parse({ limit: '0' }).query.limit).toBeUndefined();
    expect(parse({ limit: '-2' }).query.limit).toBeUndefined();
    expect(parse({ limit: '' }).query.limit).toBeUndefined();
    expect(parse({ limit: '9223372036854775807' }).query.limit).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('label forms: limit, offset, with-continue, with-remaining-count', () => {
    const p = labels('search.clusterpedia.io/limit=10,search.clusterpedia.io/offset=20,search.clusterpedia.io/with-continue=true,search.clusterpedia.io/with-remaining-count=false');
    expect(p.query).toMatchObject({ limit: 10, continue: { offset: 20 }, withRemainingCount: false });
    expect(p.withContinue).toBe(true);
  });

  it('URL values win over the labels', () => {
    const p = parse({ limit: '5', continue: 'tok', withContinue: 'false', labelSelector: 'search.clusterpedia.io/limit=10,search.clusterpedia.io/offset=x,search.clusterpedia.io/with-continue=true' });
    expect(p.query).toMatchObject({ limit: 5, continue: { token: 'tok' } });
    expect(p.withContinue).toBe(false);
  });

  it.each([
    [{ limit: 'ten' }, 'limit: Invalid value: "ten": must be an integer'],
    [{ limit: '99999999999999999999' }, 'limit: Invalid value: "99999999999999999999": must be an integer'],
    [{ labelSelector: 'search.clusterpedia.io/limit=x' }, 'Invalid Query Limit(x): must be an integer'],
    [{ labelSelector: 'search.clusterpedia.io/offset=x' }, 'Invalid Query Offset(x): must be a non-negative integer'],
    [{ continue: '99999999999999999999' }, 'Invalid Query Offset(99999999999999999999): must be a non-negative integer'],
    [{ continue: 'tok', resourceVersion: '12' }, 'specifying resource version is not allowed when using continue'],
  ])('%j → 400', (params, message) => {
    expect(badRequestOf(params)).toBe(message);
  });
});

describe('booleans (reference §2.2)', () => {
  it.each([
    ['true', true], ['1', true], ['', true], ['yes', true], ['0', false], ['false', false], ['FALSE', false], ['False', false],
  ])('onlyMetadata/withRemainingCount=%j → %s', (v, want) => {
    expect(parse({ withRemainingCount: v }).query.withRemainingCount).toBe(want);
    expect(parse({ onlyMetadata: v }).query.onlyMetadata).toBe(want ? true : undefined);
  });

  it('onlyMetadata is forced by a metadata-only media type', () => {
    expect(parse({ onlyMetadata: 'false' }, { metadataOnly: true }).query.onlyMetadata).toBe(true);
  });

  it('injectEvents: label and URL', () => {
    expect(labels('search.clusterpedia.io/inject-events=true').injectEvents).toBe(true);
    expect(labels('search.clusterpedia.io/inject-events=0').injectEvents).toBe(false);
    expect(parse({ injectEvents: 'true' }).injectEvents).toBe(true);
  });
});

describe('A6 owner search', () => {
  it('needs exactly one cluster', () => {
    const message = 'If searching by owner uid or name, then the cluster must be specified';
    expect(badRequestOf({ ownerName: 'x' })).toBe(message);
    expect(badRequestOf({ ownerUID: 'u', clusters: 'c1,c2' })).toBe(message);
    expect(badRequestOf({ labelSelector: 'search.clusterpedia.io/owner-uid=u,search.clusterpedia.io/clusters!=c1' })).toBe(message);
    expect(parse({ ownerName: 'x' }, { pathCluster: 'c1' }).query.owner).toEqual({ name: 'x', seniority: 0 });
    expect(parse({ ownerUID: 'u', clusters: 'c1' }).query.owner).toEqual({ uid: 'u', seniority: 0 });
  });

  it('decodes group/resource and seniority; the UID wins over the name', () => {
    expect(parse({ ownerName: 'd', ownerGR: 'deployments.apps', ownerSeniority: '1', clusters: 'c1' }).query.owner)
      .toEqual({ name: 'd', groupResource: { group: 'apps', resource: 'deployments' }, seniority: 1 });
    expect(parse({ ownerName: 'p', ownerGR: 'pods', clusters: 'c1' }).query.owner?.groupResource).toEqual({ group: '', resource: 'pods' });
    expect(parse({ ownerName: 'i', ownerGR: 'ingresses.networking.k8s.io', clusters: 'c1' }).query.owner?.groupResource)
      .toEqual({ group: 'networking.k8s.io', resource: 'ingresses' });
    expect(parse({ ownerUID: 'u', ownerName: 'n', ownerGR: 'deployments.apps', clusters: 'c1' }).query.owner).toEqual({ uid: 'u', seniority: 0 });
  });

  it('label forms', () => {
    const p = labels('search.clusterpedia.io/clusters=c1,search.clusterpedia.io/owner-name=d,search.clusterpedia.io/owner-gr=deployments.apps,search.clusterpedia.io/owner-seniority=1');
    expect(p.query.owner).toEqual({ name: 'd', groupResource: { group: 'apps', resource: 'deployments' }, seniority: 1 });
  });

  it('ownerGR or ownerSeniority alone is no owner filter', () => {
    expect(parse({ ownerGR: 'deployments.apps', ownerSeniority: '2' }).query.owner).toBeUndefined();
  });

  it.each([
    [{ ownerUID: 'u', clusters: 'c1', ownerSeniority: 'x' }, 'Invalid Query OwnerSeniority(x): must be a non-negative integer'],
    [{ ownerUID: 'u', clusters: 'c1', ownerSeniority: '-1' }, 'Invalid Query OwnerSeniority(-1): must be a non-negative integer'],
    // Each generation nests a subquery: a fuzzer's 336 hit SQLite's recursion limit, a 500 before this bound.
    [{ ownerUID: 'u', clusters: 'c1', ownerSeniority: '17' }, 'Invalid Query OwnerSeniority(17): must be at most 16'],
    [{ ownerName: 'n', clusters: 'c1', labelSelector: 'search.clusterpedia.io/owner-seniority=336' }, 'Invalid Query OwnerSeniority(336): must be at most 16'],
    [{ ownerName: 'n', clusters: 'c1', ownerGR: '.apps' }, 'Invalid Query OwnerGR(.apps): expected <resource>[.<group>], e.g. deployments.apps or pods'],
    [{ ownerUID: 'u', clusters: 'c1', watch: 'true' }, 'watch: owner search (ownerUID, ownerName) is not supported with watch=true'],
  ])('%j → 400', (params, message) => {
    expect(badRequestOf(params)).toBe(message);
  });
});

describe('path context', () => {
  it('a path namespace and a path cluster replace the query values', () => {
    const { query } = parse({ namespaces: 'a,b', clusters: 'c1,c2' }, { pathNamespace: 'ns', pathCluster: 'c3' });
    expect(query.namespaces).toEqual({ op: 'in', values: ['ns'] });
    expect(query.clusters).toEqual({ op: 'in', values: ['c3'] });
    expect(labels('search.clusterpedia.io/clusters notin (c1)').query.clusters).toEqual({ op: 'notin', values: ['c1'] });
    expect(parse({ labelSelector: 'search.clusterpedia.io/clusters notin (c1)' }, { pathCluster: 'c1' }).query.clusters)
      .toEqual({ op: 'in', values: ['c1'] });
  });
});

describe('selectors', () => {
  it('labelSelector and fieldSelector (first occurrence)', () => {
    const { query } = parse('labelSelector=app%3Dweb&labelSelector=x&fieldSelector=spec.containers%5B%5D.image%3Dnginx');
    expect(query.labels).toEqual([{ key: 'app', operator: '=', values: ['web'] }]);
    expect(query.fields).toEqual([{ path: [{ name: 'spec' }, { name: 'containers', list: true }, { name: 'image' }], operator: '=', values: ['nginx'] }]);
  });

  it('grammar errors name the parameter and keep the parser message', () => {
    expect(badRequestOf({ labelSelector: 'a b' }))
      .toBe(`labelSelector: Invalid value: "a b": unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt`);
    expect(badRequestOf({ fieldSelector: 'spec.containers[]=x' }))
      .toBe(`fieldSelector: Invalid value: "spec.containers[]=x": unable to parse requirement: invalid field path "spec.containers[]": the last field "containers" may not be a list '[]'`);
  });
});

describe('kube list options', () => {
  it('watch options', () => {
    const p = parse({ watch: 'true', resourceVersion: '12', allowWatchBookmarks: 'true', timeoutSeconds: '300', labelSelector: 'app=web,search.clusterpedia.io/namespaces notin (kube-system)', limit: '5' });
    expect(p.watch).toEqual({
      filter: {
        types: DEPLOYMENTS, namespaces: { op: 'notin', values: ['kube-system'] }, labels: [{ key: 'app', operator: '=', values: ['web'] }],
      },
      resourceVersion: '12', allowWatchBookmarks: true, timeoutSeconds: 300, sendInitialEvents: undefined,
    });
    expect(p.timeoutSeconds).toBe(300);
  });

  it('watch=false, 0 and absent are no watch; timeoutSeconds=0 lets the server pick', () => {
    expect(parse({ watch: 'false' }).watch).toBeUndefined();
    expect(parse({ watch: '0' }).watch).toBeUndefined();
    expect(parse({ watch: '1', timeoutSeconds: '0' }).watch?.timeoutSeconds).toBeUndefined();
  });

  it('resourceVersion and resourceVersionMatch for lists, by kube\'s table, and sendInitialEvents for watches', () => {
    expect(parse({ resourceVersion: '5', resourceVersionMatch: 'NotOlderThan' }).revision).toEqual({ kind: 'notOlderThan', rv: 5n });
    expect(parse({ resourceVersion: '5', resourceVersionMatch: 'NotOlderThan', limit: '10' }).revision).toEqual({ kind: 'notOlderThan', rv: 5n });
    expect(parse({ resourceVersion: '5', resourceVersionMatch: 'Exact' }).revision).toEqual({ kind: 'exact', rv: 5n });
    expect(parse({ resourceVersion: '5' }).revision).toEqual({ kind: 'notOlderThan', rv: 5n });
    // The legacy rule: a first page with a limit and a resourceVersion is exact; the search label's limit counts.
    expect(parse({ resourceVersion: '5', limit: '10' }).revision).toEqual({ kind: 'exact', rv: 5n });
    expect(parse({ resourceVersion: '5', labelSelector: 'search.clusterpedia.io/limit=10' }).revision).toEqual({ kind: 'exact', rv: 5n });
    for (const q of [{ limit: '10' }, { resourceVersion: '0' }, { resourceVersion: '0', limit: '10' }, { resourceVersion: '0', continue: 'x' }, { resourceVersion: '5', continue: '20' }] as Record<string, string>[]) {
      expect(parse(q).revision).toEqual({ kind: 'newest' });
    }
    expect(parse({ watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' }).watch?.sendInitialEvents).toBe(true);
  });

  it.each([
    [{ timeoutSeconds: 'soon' }, 'timeoutSeconds: Invalid value: "soon": must be an integer'],
    [{ timeoutSeconds: '-1' }, 'timeoutSeconds: Invalid value: "-1": must be a non-negative integer'],
    [{ resourceVersion: 'abc' }, 'resourceVersion: Invalid value: "abc": must be a non-negative integer'],
    [{ resourceVersion: '-5' }, 'resourceVersion: Invalid value: "-5": must be a non-negative integer'],
    [{ watch: 'true', resourceVersion: '1e3' }, 'resourceVersion: Invalid value: "1e3": must be a non-negative integer'],
    [{ resourceVersion: '18446744073709551616' }, 'resourceVersion: Invalid value: "18446744073709551616": must be a non-negative integer no greater than 18446744073709551615 (64 bits)'],
    [{ resourceVersionMatch: 'Exact' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    [{ resourceVersion: '1', resourceVersionMatch: 'Newest' }, 'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
    [{ resourceVersion: '0', resourceVersionMatch: 'Exact' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    [{ sendInitialEvents: 'true' }, 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    [{ watch: 'true', sendInitialEvents: 'true' }, 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    [{ watch: 'true', resourceVersionMatch: 'NotOlderThan' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    [{ resourceVersionMatch: 'Exact', continue: 'x' }, '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]'],
  ])('%j → 400', (params, message) => {
    expect(badRequestOf(params)).toBe(message);
  });
});

describe('collection resources', () => {
  const collection = (params: Params, name = 'any'): ParsedListOptions =>
    parseListOptions({ mode: 'collection', collection: name, query: new URLSearchParams(params), types: { kind: 'many', entries: [{ group: 'apps', resource: 'deployments' }] } });

  it('any: groups and resources', () => {
    expect(collection({ groups: 'apps/v1,,batch' }).query.types).toEqual({ kind: 'many', entries: [{ group: 'apps', version: 'v1' }, { group: '' }, { group: 'batch' }] });
    expect(collection({ resources: 'apps/v1/deployments, apps/daemonsets,/pods' }).query.types).toEqual({
      kind: 'many',
      entries: [{ group: 'apps', version: 'v1', resource: 'deployments' }, { group: 'apps', resource: 'daemonsets' }, { group: '', resource: 'pods' }],
    });
    expect(collection({ groups: 'apps', resources: '/pods' }).query.types).toEqual({ kind: 'many', entries: [{ group: 'apps' }, { group: '', resource: 'pods' }] });
    expect(collection({ groups: 'apps,*' }).query.types).toEqual({ kind: 'all' });
  });

  it('any: errors with Clusterpedia messages', () => {
    const err = (params: Params): string => {
      try {
        collection(params);
      } catch (e: unknown) {
        if (isStatusError(e) && e.status.code === 400) return e.status.message;
        throw e;
      }
      throw new Error('expected a 400');
    };
    expect(err('')).toBe('url query - `groups` or `resources` is required');
    expect(err({ groups: 'a/b/c' })).toBe('groups query: unexpected GroupVersion string: a/b/c, expect <group> or <group>/<version>');
    expect(err({ resources: 'pods' })).toBe('resources query: unexpected GroupVersionResource string: pods, expect <group>/<resource> or <group>/<version>/<resource>');
    expect(err({ resources: 'apps/v1/' })).toMatch(/^resources query: unexpected GroupVersionResource string: apps\/v1\//);
  });

  it('fixed collections keep their types and ignore groups/resources; owner filters are ignored', () => {
    const p = collection({ groups: 'batch', ownerName: 'x', clusters: 'c1,c2' }, 'workloads');
    expect(p.query.types).toEqual({ kind: 'many', entries: [{ group: 'apps', resource: 'deployments' }] });
    expect(p.query.owner).toBeUndefined();
    expect(p.query.clusters).toEqual({ op: 'in', values: ['c1', 'c2'] });
  });
});
