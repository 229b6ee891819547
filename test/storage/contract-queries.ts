// Contract: the query model of list() — reference §9.1 S*, L*, F*, O* and our additions — on one read-only fixture.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LabelRequirement, SelectorOperator } from '../../src/kube/requirement.js';
import type { Storage, StoredRow } from '../../src/storage/types.js';
import { drain, ids, migratedStorage, NODES, obj, path, pod, PODS, type OpenHarness } from './fixtures.js';

// A = c1/ns-1/name-1 … F = c3/ns-1/name-2 (see the fixture below).
const A = 'c1/ns-1/name-1';
const B = 'c1/ns-1/name-2';
const C = 'c1/ns-2/name-1';
const D = 'c2/ns-1/name-1';
const E = 'c2/ns-2/name-3';
const F = 'c3/ns-1/name-2';

export const WEIRD_LABEL = 'we"ird\\key/x.y[0]';
export const WEIRD_ANNOTATION = "a.b/c[0]'%_";

export const fixture = [
  pod({
    cluster: 'c1', namespace: 'ns-1', name: 'name-1', rv: '10', created: '2022-03-01T00:00:00Z',
    labels: { key1: 'value1', key2: 'value2', 'key1.io': 'value1', num: '5' },
    fields: {
      field1: { field11: 'value1', 'field12.io': 'value1' }, field2: 'value2',
      spec: { replicas: 3, paused: true, ratio: 1.5, containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'envoy' }] },
      status: { phase: 'Running', podIP: '10.0.0.3' },
    },
  }),
  pod({
    cluster: 'c1', namespace: 'ns-1', name: 'name-2', rv: '9', created: '2022-03-04T00:00:00Z',
    labels: { key1: 'value2', 'key1.io': '' },
    fields: { field1: { field11: 'value2', field13: '' }, spec: { containers: [{ name: 'app', image: 'busybox' }] }, status: { phase: 'Pending', podIP: '10.0.0.10' } },
  }),
  pod({
    cluster: 'c1', namespace: 'ns-2', name: 'name-1', rv: '100', created: '2022-03-10T12:00:00Z',
    labels: { key2: 'value2', num: '12' },
    fields: { field2: 'value3', spec: { containers: [{ image: 'nginx' }] }, status: { phase: 'Running', podIP: '10.0.0.2' } },
  }),
  pod({ cluster: 'c2', namespace: 'ns-1', name: 'name-1', rv: '11', created: '2022-03-14T23:59:59Z', labels: { key1: 'value1', num: '-3' }, fields: { status: { phase: 'Failed' } } }),
  pod({
    cluster: 'c2', namespace: 'ns-2', name: 'name-3', rv: '8', created: '2022-03-15T00:00:00Z',
    labels: { num: 'abc', [WEIRD_LABEL]: 'v"1\\', "it's": "o'k" }, annotations: { [WEIRD_ANNOTATION]: 'x' },
  }),
  pod({ cluster: 'c3', namespace: 'ns-1', name: 'name-2', rv: '1000', created: '2022-02-01T00:00:00Z', labels: { key1: 'value3' } }),
  obj('nodes', { cluster: 'c1', name: 'node-1', rv: '5' }),
  obj('nodes', { cluster: 'c2', name: 'node-1', rv: '6' }),
];

const L = (key: string, operator: SelectorOperator, ...values: string[]): LabelRequirement => ({ key, operator, values });

export function queryContract(open: OpenHarness): void {
  describe('queries', () => {
    const storage = migratedStorage(open, async (st) => {
      await st.write({ upserts: fixture, deletes: [] });
    });
    let s: Storage;
    beforeAll(() => {
      s = storage();
    });

    it('L0: no filter lists every row of the type in the default order (cluster, namespace, name)', async () => {
      expect(await ids(s, { types: PODS })).toEqual([A, B, C, D, E, F]);
    });

    it('S1–S6: clusters, namespaces and names filters', async () => {
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: ['c1'] } })).toEqual([A, B, C]);
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: ['c1', 'c2'] } })).toEqual([A, B, C, D, E]);
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: ['c1', 'c2'] }, namespaces: { op: 'in', values: ['ns-1'] } })).toEqual([A, B, D]);
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: ['c1', 'c2'] }, namespaces: { op: 'in', values: ['ns-1', 'ns-2'] } })).toEqual([A, B, C, D, E]);
      expect(await ids(s, { types: PODS, namespaces: { op: 'in', values: ['ns-1'] }, names: { op: 'in', values: ['name-1'] } })).toEqual([A, D]);
      expect(await ids(s, { types: PODS, names: { op: 'in', values: ['name-1', 'name-2'] } })).toEqual([A, B, C, D, F]);
    });

    it('notin excludes clusters, namespaces and names; empty sets match nothing (in) or everything (notin)', async () => {
      expect(await ids(s, { types: PODS, clusters: { op: 'notin', values: ['c1'] } })).toEqual([D, E, F]);
      expect(await ids(s, { types: PODS, namespaces: { op: 'notin', values: ['ns-1'] } })).toEqual([C, E]);
      expect(await ids(s, { types: PODS, names: { op: 'notin', values: ['name-1', 'name-3'] } })).toEqual([B, F]);
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: [] } })).toEqual([]);
      expect(await ids(s, { types: PODS, clusters: { op: 'notin', values: [] } })).toHaveLength(6);
    });

    it("namespace '' is the cluster-scoped rows", async () => {
      expect(await ids(s, { types: { kind: 'all' }, namespaces: { op: 'in', values: [''] } })).toEqual(['c1//node-1', 'c2//node-1']);
      expect(await ids(s, { types: { kind: 'all' }, namespaces: { op: 'notin', values: [''] } })).toEqual([A, B, C, D, E, F]);
      expect(await ids(s, { types: NODES, namespaces: { op: 'in', values: ['', 'ns-1'] } })).toEqual(['c1//node-1', 'c2//node-1']);
    });

    it('types many/all: entries with only a group, or group and resource; default order adds group, version, resource', async () => {
      expect(await ids(s, { types: { kind: 'many', entries: [{ group: '', resource: 'nodes' }] } })).toEqual(['c1//node-1', 'c2//node-1']);
      expect(await ids(s, { types: { kind: 'many', entries: [{ group: '' }] }, clusters: { op: 'in', values: ['c1'] } })).toEqual(['c1//node-1', A, B, C]);
      expect(await ids(s, { types: { kind: 'many', entries: [] } })).toEqual([]);
      expect(await ids(s, { types: { kind: 'all' } })).toHaveLength(8);
    });

    it('a query too big for the database (thousands of ORed types or ANDed label requirements) is Invalid, not Internal', async () => {
      const expectInvalidOrAnswer = async (q: Parameters<typeof ids>[1]): Promise<void> => {
        try {
          await ids(s, q);
        } catch (e) {
          expect(e).toMatchObject({ kind: 'StorageError', code: 'Invalid', retryable: false });
        }
      };
      const entries = Array.from({ length: 3000 }, (_, i) => ({ group: `g${i}.example.com`, resource: `r${i}` }));
      await expectInvalidOrAnswer({ types: { kind: 'many', entries } });
      const labels: LabelRequirement[] = Array.from({ length: 3000 }, (_, i) => ({ key: `k${i}`, operator: '!=' as SelectorOperator, values: ['v'] }));
      await expectInvalidOrAnswer({ types: PODS, labels });
      const names = { op: 'in' as const, values: Array.from({ length: 40_000 }, (_, i) => `name-${i}`) };
      await expectInvalidOrAnswer({ types: PODS, names });
    });

    it('S7: since is inclusive, before exclusive', async () => {
      const q = { types: PODS, since: new Date('2022-03-04T00:00:00Z'), before: new Date('2022-03-15T00:00:00Z') };
      expect(await ids(s, q)).toEqual([B, C, D]);
    });

    it('L1–L8: label selector operators, all ANDed', async () => {
      const q = (...labels: LabelRequirement[]) => ids(s, { types: PODS, labels });
      expect(await q(L('key1', '=', 'value1'))).toEqual([A, D]);
      expect(await q(L('key1', '==', 'value1'))).toEqual([A, D]);
      expect(await q(L('key1.io', '=', 'value1'))).toEqual([A]);
      expect(await q(L('key1.io', '=', ''))).toEqual([B]);
      expect(await q(L('key1', '!=', 'value1'))).toEqual([B, C, E, F]);
      expect(await q(L('key1', 'in', 'value1', 'value2'), L('key2', '=', 'value2'))).toEqual([A]);
      expect(await q(L('key1', 'notin', 'value1'), L('key2', '=', 'value2'))).toEqual([C]);
      expect(await q(L('key1.io', 'exists'))).toEqual([A, B]);
      expect(await q(L('key1.io', '!'))).toEqual([C, D, E, F]);
      expect(await q(L('key1', 'in'))).toEqual([]);
      expect(await q(L('missing', 'notin', 'x'))).toEqual([A, B, C, D, E, F]);
    });

    it('label gt/lt: present, integer-valued, compared as integers', async () => {
      const q = (...labels: LabelRequirement[]) => ids(s, { types: PODS, labels });
      expect(await q(L('num', 'gt', '4'))).toEqual([A, C]);
      expect(await q(L('num', 'lt', '6'))).toEqual([A, D]);
      expect(await q(L('num', 'gt', '-4'))).toEqual([A, C, D]);
      expect(await q(L('num', 'gt', '4'), L('key2', '=', 'value2'))).toEqual([A, C]);
      expect(await q(L('num', 'gt', 'x'))).toEqual([]);
    });

    it('label keys and values with quotes, backslashes, slashes, dots and brackets match exactly', async () => {
      expect(await ids(s, { types: PODS, labels: [L(WEIRD_LABEL, '=', 'v"1\\')] })).toEqual([E]);
      expect(await ids(s, { types: PODS, labels: [L("it's", 'in', "o'k")] })).toEqual([E]);
      expect(await ids(s, { types: PODS, labels: [L(WEIRD_LABEL, '!')] })).toEqual([A, B, C, D, F]);
      expect(await ids(s, { types: PODS, fields: [{ path: path('metadata', 'labels', WEIRD_LABEL), operator: '=', values: ['v"1\\'] }] })).toEqual([E]);
      expect(await ids(s, { types: PODS, fields: [{ path: path('metadata', 'annotations', WEIRD_ANNOTATION), operator: 'exists', values: [] }] })).toEqual([E]);
    });

    it('F1–F8: field selector operators on JSON paths', async () => {
      const q = (p: string[], operator: SelectorOperator, ...values: string[]) => ids(s, { types: PODS, fields: [{ path: path(...p), operator, values }] });
      expect(await q(['field1', 'field11'], '=', 'value1')).toEqual([A]);
      expect(await q(['field1', 'field12.io'], '=', 'value1')).toEqual([A]);
      expect(await q(['field1', 'field13'], '=', '')).toEqual([B]);
      expect(await q(['field1', 'field11'], '!=', 'value1')).toEqual([B, C, D, E, F]);
      expect(
        await ids(s, { types: PODS, fields: [{ path: path('field1', 'field11'), operator: 'in', values: ['value1', 'value2'] }, { path: path('field2'), operator: '=', values: ['value2'] }] }),
      ).toEqual([A]);
      expect(
        await ids(s, { types: PODS, fields: [{ path: path('field1', 'field11'), operator: 'notin', values: ['value1'] }, { path: path('field2'), operator: '=', values: ['value3'] }] }),
      ).toEqual([C]);
      expect(await q(['field1'], 'exists')).toEqual([A, B]);
      expect(await q(['field1'], '!')).toEqual([C, D, E, F]);
      expect(await q(['metadata', 'name'], '=', 'name-3')).toEqual([E]);
    });

    it('field values render as text: numbers as JSON, booleans true/false; objects never equal a value', async () => {
      const q = (p: string[], operator: SelectorOperator, ...values: string[]) => ids(s, { types: PODS, fields: [{ path: path(...p), operator, values }] });
      expect(await q(['spec', 'replicas'], '=', '3')).toEqual([A]);
      expect(await q(['spec', 'ratio'], '=', '1.5')).toEqual([A]);
      expect(await q(['spec', 'paused'], '=', 'true')).toEqual([A]);
      expect(await q(['spec', 'paused'], '=', 'false')).toEqual([]);
      expect(await q(['spec', 'replicas'], 'gt', '2')).toEqual([A]);
      expect(await q(['spec', 'replicas'], 'lt', '2')).toEqual([]);
      expect(await q(['field1'], '=', 'value1')).toEqual([]);
      expect(await q(['field1'], '!=', 'value1')).toHaveLength(6);
      // Not even its own JSON text (values starting with { or [ take the exact path; others may read objects as text).
      const field1 = JSON.stringify({ field11: 'value1', 'field12.io': 'value1' });
      expect(await q(['field1'], '=', field1)).toEqual([]);
      expect(await q(['field1'], 'in', 'value1', field1)).toEqual([]);
      expect(await q(['field1'], '!=', field1)).toHaveLength(6);
      expect(await q(['spec', 'containers'], '=', JSON.stringify([{ name: 'app', image: 'nginx' }, { name: 'side', image: 'envoy' }]))).toEqual([]);
      expect(await q(['spec', 'containers'], 'notin', '[]', 'x')).toHaveLength(6);
    });

    it('list fields: [] means some element (negated: no element), [N] one element', async () => {
      const containers = (operator: SelectorOperator, tail: string, values: string[], index?: number) =>
        ids(s, { types: PODS, fields: [{ path: [{ name: 'spec' }, index === undefined ? { name: 'containers', list: true } : { name: 'containers', index }, { name: tail }], operator, values }] });
      expect(await containers('=', 'image', ['nginx'])).toEqual([A, C]);
      expect(await containers('!=', 'image', ['nginx'])).toEqual([B, D, E, F]);
      expect(await containers('in', 'image', ['busybox', 'envoy'])).toEqual([A, B]);
      expect(await containers('exists', 'name', [])).toEqual([A, B]);
      expect(await containers('!', 'name', [])).toEqual([C, D, E, F]);
      expect(await containers('=', 'image', ['envoy'], 1)).toEqual([A]);
      expect(await containers('=', 'image', ['nginx'], 1)).toEqual([]);
      expect(await containers('in', 'image', ['busybox'], 0)).toEqual([B]);
      // An index step on an object (not an array) addresses nothing, in both dialects.
      expect(await ids(s, { types: PODS, fields: [{ path: [{ name: 'field1', index: 0 }], operator: 'exists', values: [] }] })).toEqual([]);
    });

    it('fuzzy names: every substring must occur', async () => {
      expect(await ids(s, { types: PODS, fuzzyNames: ['ame'] })).toEqual([A, B, C, D, E, F]);
      expect(await ids(s, { types: PODS, fuzzyNames: ['ame', '-1'] })).toEqual([A, C, D]);
      expect(await ids(s, { types: PODS, fuzzyNames: ['%'] })).toEqual([]);
      expect(await ids(s, { types: PODS, fuzzyNames: ['_'] })).toEqual([]);
      expect(await ids(s, { types: PODS, fuzzyNames: ['NAME'] })).toEqual([]);
    });

    it('O1/O2: column orders; resource_version is numeric', async () => {
      const o = (...t: [string, boolean][]) => ids(s, { types: PODS, orderBy: t.map(([column, desc]) => ({ column: column as 'name', desc })) });
      expect(await o(['namespace', false], ['name', false], ['cluster', false], ['resource_version', false])).toEqual([A, D, B, F, C, E]);
      expect(await o(['name', true], ['cluster', true], ['resource_version', true])).toEqual([E, F, B, D, C, A]);
      expect(await o(['resource_version', false])).toEqual([E, B, A, D, C, F]);
      expect(await o(['created_at', true])).toEqual([E, D, C, B, A, F]);
      expect(await o(['kind', false])).toEqual([A, B, C, D, E, F]);
    });

    it('O3–O5: JSON path orders compare text, absent first ascending and last descending', async () => {
      expect(await ids(s, { types: PODS, orderBy: [{ path: path('status', 'podIP'), desc: false }] })).toEqual([D, E, F, B, C, A]);
      expect(await ids(s, { types: PODS, orderBy: [{ path: path('status', 'podIP'), desc: true }] })).toEqual([A, C, B, D, E, F]);
      expect(await ids(s, { types: PODS, orderBy: [{ path: path('status', 'phase'), desc: true }, { column: 'name', desc: false }] })).toEqual([A, C, B, D, F, E]);
    });

    it('onlyMetadata serves apiVersion, kind and metadata only', async () => {
      const [row] = await drain(await s.list({ types: PODS, clusters: { op: 'in', values: ['c1'] }, limit: 1, onlyMetadata: true }));
      const o = JSON.parse(row?.object ?? '{}') as Record<string, unknown>;
      expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(o.kind).toBe('Pod');
      expect((o.metadata as { name: string; resourceVersion: string }).name).toBe('name-1');
      expect((o.metadata as { resourceVersion: string }).resourceVersion).toBe(row?.revision);
    });

    it('keysOnly serves the same rows as a whole list, each without its object', async () => {
      const q = { types: PODS, labels: [L('key1', 'exists')] };
      const whole = await drain(await s.list(q));
      const keys = await drain(await s.list({ ...q, keysOnly: true }));
      expect(whole.length).toBeGreaterThan(1);
      const ident = (r: StoredRow): unknown[] => [r.cluster, r.group, r.version, r.resource, r.kind, r.namespace, r.name, r.uid, r.revision];
      expect(keys.map(ident)).toEqual(whole.map(ident));
      expect(new Set(keys.map((r) => r.object))).toEqual(new Set(['{}']));
      expect(new Set(whole.map((r) => r.object))).not.toContain('{}');
    });

    it('G1: get selects exactly one row; rows carry the extracted columns', async () => {
      const r = await s.get({ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns-2', name: 'name-1' });
      expect(r).toMatchObject({ cluster: 'c1', namespace: 'ns-2', name: 'name-1', kind: 'Pod', resourceVersion: '100', createdAt: '2022-03-10T12:00:00Z', uid: 'uid-c1-ns-2-name-1' });
      expect(JSON.parse(r?.object ?? '{}')).toMatchObject({ metadata: { name: 'name-1', namespace: 'ns-2', resourceVersion: r?.revision } });
      expect(await s.get({ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns-2', name: 'name-9' })).toBeUndefined();
      expect(await s.get({ cluster: 'c1', group: '', version: 'v1', resource: 'nodes', namespace: '', name: 'node-1' })).toMatchObject({ namespace: '', kind: 'Node' });
    });
  });
}
