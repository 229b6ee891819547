// The in-process matcher: every operator against present, absent and list values (the SQL storages must agree).
import { describe, expect, it } from 'vitest';
import { fieldValueText, matchesFields, matchesLabels, matchesQuery, resolveFieldPath, type MatchableRow } from '../../src/kube/match.js';
import { parseLabelSelector } from '../../src/kube/label-selector.js';
import { parseFieldSelector } from '../../src/kube/field-selector.js';
import type { WatchFilter } from '../../src/storage/types.js';

const labels = { app: 'web', tier: 'front', empty: '', n: '10', 'key1.io': 'value1' };
const L = (s: string): boolean => matchesLabels(labels, parseLabelSelector(s));

describe('matchesLabels', () => {
  it.each<[string, boolean]>([
    ['app=web', true], ['app=db', false], ['missing=web', false], ['app==web', true],
    ['empty=', true], ['app=', false], ['missing=', false], ['key1.io=value1', true],
    ['app!=web', false], ['app!=db', true], ['missing!=x', true],
    ['app in (db,web)', true], ['app in (db)', false], ['missing in (web)', false], ['empty in ()', true],
    ['app notin (web)', false], ['app notin (db)', true], ['missing notin (web)', true],
    ['app', true], ['missing', false], ['empty', true],
    ['!app', false], ['!missing', true],
    ['n>9', true], ['n>10', false], ['n<11', true], ['n<10', false], ['missing>1', false], ['app>1', false], ['app<1', false],
    ['app=web,tier=front', true], ['app=web,tier=back', false], ['', true],
    ['constructor', false], ['!constructor', true], ['toString!=x', true],
  ])('%j → %s', (s, want) => {
    expect(L(s)).toBe(want);
  });

  it('treats absent labels as an empty set', () => {
    expect(matchesLabels(undefined, parseLabelSelector('!a,b notin (c),d!=e'))).toBe(true);
    expect(matchesLabels(undefined, parseLabelSelector('a'))).toBe(false);
  });

  it('compares gt/lt as int64 integers, never as text', () => {
    expect(matchesLabels({ n: '9' }, parseLabelSelector('n<10'))).toBe(true);
    expect(matchesLabels({ n: '9223372036854775807' }, parseLabelSelector('n>9223372036854775806'))).toBe(true);
    expect(matchesLabels({ n: '9223372036854775808' }, parseLabelSelector('n>1'))).toBe(false);
  });
});

const pod = {
  metadata: { name: 'p', annotations: { 'test.io': 'v1' }, labels: { app: 'web' } },
  spec: {
    replicas: 3, paused: false, ratio: 1.5, nothing: null, nested: { a: 1 },
    containers: [{ name: 'c1', image: 'nginx', ports: [{ port: 80 }] }, { name: 'c2', image: 'redis', ports: [{ port: 6379 }] }],
    empty: [],
  },
};
const F = (s: string): boolean => matchesFields(pod, parseFieldSelector(s));

describe('matchesFields: scalars', () => {
  it.each<[string, boolean]>([
    ['metadata.name=p', true], ['metadata.name=q', false], ['metadata.missing=p', false],
    [".metadata.annotations['test.io']==v1", true], ['spec.replicas=3', true], ['spec.paused=false', true], ['spec.ratio=1.5', true],
    ['spec.nothing=null', false], ['spec.nested=x', false], ['spec.containers=x', false],
    ['metadata.name!=p', false], ['metadata.name!=q', true], ['metadata.missing!=p', true], ['spec.nothing!=null', true],
    ['spec.replicas in (2,3)', true], ['spec.replicas in (2)', false], ['metadata.missing in (a)', false],
    ['spec.replicas notin (3)', false], ['spec.replicas notin (2)', true], ['metadata.missing notin (a)', true],
    // A JSON null is no value: not present (as storage reads it; a list and a watch must agree).
    ['spec.nothing', false], ['spec.nested', true], ['spec.missing', false], ['metadata.name.deeper', false],
    ['!spec.nothing', true], ['!spec.missing', true],
    ['spec.replicas>2', true], ['spec.replicas>3', false], ['spec.replicas<4', true], ['spec.ratio>1', false], ['metadata.name>1', false],
    ['spec.missing>1', false], ['spec.missing<1', false],
  ])('%j → %s', (s, want) => {
    expect(F(s)).toBe(want);
  });
});

describe('matchesFields: lists', () => {
  it.each<[string, boolean]>([
    // []: positive operators need some element, negated ones no element.
    ['spec.containers[].image=nginx', true], ['spec.containers[].image=busybox', false],
    ['spec.containers[].image!=nginx', false], ['spec.containers[].image!=busybox', true],
    ['spec.containers[].image in (busybox,redis)', true], ['spec.containers[].image notin (busybox,redis)', false],
    ['spec.containers[].image notin (busybox)', true],
    ['spec.containers[].name', true], ['!spec.containers[].name', false], ['spec.containers[].missing', false], ['!spec.containers[].missing', true],
    ['spec.containers[].ports[].port=6379', true], ['spec.containers[].ports[].port>1000', true], ['spec.containers[].ports[].port>7000', false],
    ['spec.empty[].x', false], ['spec.empty[].x!=y', true], ['spec.replicas[].x', false], ['metadata.missing[].x!=y', true],
    // [N]: one element, absent when out of range.
    ['spec.containers[1].image=redis', true], ['spec.containers[0].image=redis', false], ['spec.containers[2].image', false],
    ['!spec.containers[2].image', true], ['spec.containers[2].image!=x', true], ['spec.containers[0].ports[0].port=80', true],
    ['spec.replicas[0]', false],
  ])('%j → %s', (s, want) => {
    expect(F(s)).toBe(want);
  });

  it('an index may come last and picks a scalar element', () => {
    expect(matchesFields({ spec: { args: ['a', 'b'] } }, parseFieldSelector('spec.args[1]=b'))).toBe(true);
  });

  it('resolves every reachable value', () => {
    expect(resolveFieldPath(pod, parseFieldSelector('spec.containers[].ports[].port')[0]?.path ?? [])).toEqual([80, 6379]);
    expect(resolveFieldPath('text', [{ name: 'length' }])).toEqual([]);
    expect(resolveFieldPath({}, [{ name: 'constructor' }])).toEqual([]);
  });
});

describe('fieldValueText', () => {
  it('renders scalars as text and nothing else', () => {
    expect([fieldValueText('x'), fieldValueText(3), fieldValueText(1e21), fieldValueText(true), fieldValueText(false)])
      .toEqual(['x', '3', '1e+21', 'true', 'false']);
    expect([fieldValueText(null), fieldValueText({}), fieldValueText([]), fieldValueText(undefined)]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('matchesQuery', () => {
  const row: MatchableRow = {
    cluster: 'c1', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns-1', name: 'web-frontend',
    createdAt: '2022-03-10T00:00:00Z', object: JSON.stringify(pod),
  };
  const one: WatchFilter = { types: { kind: 'one', group: 'apps', version: 'v1', resource: 'deployments' } };
  const q = (extra: Partial<WatchFilter>, r: Partial<MatchableRow> = {}): boolean => matchesQuery({ ...row, ...r }, { ...one, ...extra });

  it('types', () => {
    expect(q({})).toBe(true);
    expect(q({ types: { kind: 'one', group: 'apps', version: 'v1beta1', resource: 'deployments' } })).toBe(false);
    expect(q({ types: { kind: 'all' } })).toBe(true);
    expect(q({ types: { kind: 'many', entries: [{ group: 'batch' }, { group: 'apps', resource: 'deployments' }] } })).toBe(true);
    expect(q({ types: { kind: 'many', entries: [{ group: 'apps', version: 'v2' }] } })).toBe(false);
    expect(q({ types: { kind: 'many', entries: [{ group: 'apps' }] } })).toBe(true);
  });

  it('clusters, namespaces and names: in and notin', () => {
    expect(q({ clusters: { op: 'in', values: ['c1', 'c2'] } })).toBe(true);
    expect(q({ clusters: { op: 'in', values: ['c2'] } })).toBe(false);
    expect(q({ clusters: { op: 'notin', values: ['c1'] } })).toBe(false);
    expect(q({ namespaces: { op: 'notin', values: ['kube-system'] } })).toBe(true);
    expect(q({ namespaces: { op: 'in', values: [''] } }, { namespace: '' })).toBe(true);
    expect(q({ names: { op: 'in', values: ['web-frontend'] } })).toBe(true);
    expect(q({ names: { op: 'in', values: [] } })).toBe(false);
  });

  it('fuzzy names: every substring, case-sensitive', () => {
    expect(q({ fuzzyNames: ['web', 'front'] })).toBe(true);
    expect(q({ fuzzyNames: ['web', 'back'] })).toBe(false);
    expect(q({ fuzzyNames: ['WEB'] })).toBe(false);
  });

  it('since is inclusive, before exclusive; no creation time matches neither', () => {
    const t = new Date('2022-03-10T00:00:00Z');
    expect(q({ since: t })).toBe(true);
    expect(q({ before: t })).toBe(false);
    expect(q({ since: new Date('2022-03-04'), before: new Date('2022-03-15') })).toBe(true);
    expect(q({ since: new Date('2022-03-11') })).toBe(false);
    expect(q({ since: t }, { createdAt: '' })).toBe(false);
    expect(q({}, { createdAt: '' })).toBe(true);
  });

  it('labels and fields on the object, given as JSON text or parsed', () => {
    expect(q({ labels: parseLabelSelector('app=web'), fields: parseFieldSelector('spec.containers[].image=redis') })).toBe(true);
    expect(q({ labels: parseLabelSelector('app=db') })).toBe(false);
    expect(q({ fields: parseFieldSelector('metadata.name=p') }, { object: pod })).toBe(true);
    expect(q({ labels: parseLabelSelector('!app') }, { object: { metadata: { name: 'x' } } })).toBe(true);
  });
});
