// Enhanced field selector: reference §9.2 grammar cases, our differences (lists, one-char names) and canonical form.
import { describe, expect, it } from 'vitest';
import { formatFieldPath, formatFieldSelector, parseFieldPath, parseFieldSelector } from '../../src/kube/field-selector.js';
import { isSelectorError } from '../../src/kube/selector-syntax.js';
import type { FieldPathSegment, FieldRequirement } from '../../src/kube/requirement.js';

const seg = (name: string, extra: Partial<FieldPathSegment> = {}): FieldPathSegment => ({ name, ...extra });

function errorOf(s: string): string {
  try {
    parseFieldSelector(s);
  } catch (e: unknown) {
    expect(isSelectorError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to be rejected`);
}

describe('reference §9.2 good selectors: String() round-trips exactly', () => {
  it.each([
    '',
    ".metadata.annotations['test.io'] in (value1,value2),.spec.replica=3",
    "metadata.annotations.'test.io'==value1",
    "!metadata.annotation['test.io']",
    'spec.containers[].name!=container1',
    '.spec.containers[].name==container1',
    '.spec.containers[1].name in (container1,container2)',
  ])('%j', (s) => {
    expect(formatFieldSelector(parseFieldSelector(s))).toBe(s);
  });

  it('parses them into paths', () => {
    expect(parseFieldSelector(".metadata.annotations['test.io'] in (value1,value2),.spec.replica=3")).toEqual([
      { path: [seg('metadata'), seg('annotations'), seg('test.io')], operator: 'in', values: ['value1', 'value2'] },
      { path: [seg('spec'), seg('replica')], operator: '=', values: ['3'] },
    ]);
    expect(parseFieldSelector('.spec.containers[1].name in (container1,container2)')[0]?.path)
      .toEqual([seg('spec'), seg('containers', { index: 1 }), seg('name')]);
    expect(parseFieldSelector('spec.containers[].name!=container1')[0]?.path)
      .toEqual([seg('spec'), seg('containers', { list: true }), seg('name')]);
  });
});

describe('reference §9.2 bad selectors', () => {
  it.each([
    ['.metadata.annotations[test.io] in (value1, value2)', /invalid field path "\.metadata\.annotations\[test\.io\]": "\[test\.io\]" is neither/],
    [".metadata.annotations['test'io'] in (value1, value2)", /expected '\]'/],
    ['spec.containers[]==something', /the last field "containers" may not be a list/],
    ['[]', /needs a field before it/],
    ['[0]=a', /needs a field before it/],
    [".metadata.annotations['test.io'.go]", /expected '\]'/],
  ])('%j', (s, message) => {
    expect(errorOf(s)).toMatch(message);
  });
});

describe('paths', () => {
  it.each<[string, FieldPathSegment[]]>([
    ['metadata.name', [seg('metadata'), seg('name')]],
    ['.metadata.name', [seg('metadata'), seg('name')]],
    ['.metadata.annotations.\'test.io\'', [seg('metadata'), seg('annotations'), seg('test.io')]],
    ['.metadata.annotations."test.io"', [seg('metadata'), seg('annotations'), seg('test.io')]],
    ['.metadata.labels["app.kubernetes.io/name"]', [seg('metadata'), seg('labels'), seg('app.kubernetes.io/name')]],
    [".field1['prefix.field2'].field3", [seg('field1'), seg('prefix.field2'), seg('field3')]],
    ["['a.b'].c", [seg('a.b'), seg('c')]],
    ["a['b']", [seg('a'), seg('b')]],
    ["a['b'][]['c']", [seg('a'), seg('b', { list: true }), seg('c')]],
    ['spec.containers[0].args[2]', [seg('spec'), seg('containers', { index: 0 }), seg('args', { index: 2 })]],
    ['a.0.b', [seg('a'), seg('0'), seg('b')]],
  ])('%j', (s, path) => {
    expect(parseFieldPath(s)).toEqual(path);
  });

  it('accepts a one-character quoted name, which Clusterpedia rejects as empty', () => {
    expect(parseFieldPath("['a']")).toEqual([seg('a')]);
    expect(parseFieldPath("x.'y'")).toEqual([seg('x'), seg('y')]);
  });

  it.each([
    ['', /empty field name/],
    ['.', /empty field name/],
    ['a..b', /empty field name at position 2/],
    ['a.', /empty field name/],
    ["a.['b']", /expected a field name at position 2, found '\['/],
    ["a''", /unexpected "'"/],
    ["''", /empty field name/],
    ["a['']", /empty field name/],
    ["a['b", /unterminated quote/],
    ['a[0', /unterminated '\['/],
    ['a[01]', /neither '\[\]', an index/],
    ['a[-1]', /neither/],
    ['a[99999999999]', /neither/],
    ['a[0][1]', /lists of lists are not supported/],
    ['a[][]', /lists of lists/],
    ['a]', /unexpected "\]"/],
    ["'a'b", /unexpected "b" at position 3/],
    ['a_', /field "a_": name part must consist/],
    [`a.${'x'.repeat(64)}`, /name part must be no more than 63 characters/],
  ])('rejects %j', (s, message) => {
    expect(() => parseFieldPath(s)).toThrow(message);
  });
});

describe('plain Kubernetes field selectors parse as paths', () => {
  it.each<[string, FieldRequirement]>([
    ['metadata.name=x', { path: [seg('metadata'), seg('name')], operator: '=', values: ['x'] }],
    ['status.phase!=Running', { path: [seg('status'), seg('phase')], operator: '!=', values: ['Running'] }],
    ['spec.nodeName=n1', { path: [seg('spec'), seg('nodeName')], operator: '=', values: ['n1'] }],
    ['metadata.namespace==', { path: [seg('metadata'), seg('namespace')], operator: '==', values: [''] }],
  ])('%j', (s, want) => {
    expect(parseFieldSelector(s)).toEqual([want]);
    expect(formatFieldSelector(parseFieldSelector(s))).toBe(s);
  });

  it('values are not label values: anything the lexer accepts', () => {
    expect(parseFieldSelector('spec.nodeName=ip-10-0-0-1.ec2.internal,metadata.annotations.x=http://a/b')
      .map((r) => r.values)).toEqual([['http://a/b'], ['ip-10-0-0-1.ec2.internal']]);
  });
});

describe('operators and values', () => {
  it.each<[string, FieldRequirement['operator'], string[]]>([
    ['a', 'exists', []], ['!a', '!', []], ['a=b', '=', ['b']], ['a==b', '==', ['b']], ['a!=b', '!=', ['b']],
    ['a in (c,b,c)', 'in', ['b', 'c']], ['a notin ()', 'notin', ['']], ['a>3', 'gt', ['3']], ['a<-3', 'lt', ['-3']],
  ])('%j', (s, operator, values) => {
    expect(parseFieldSelector(s)).toEqual([{ path: [seg('a')], operator, values }]);
  });

  it('requires an integer for > and <', () => {
    expect(errorOf('a>b')).toBe(`unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`);
  });

  it('sorts requirements by the key as written', () => {
    expect(parseFieldSelector('b=1,a.c=2').map((r) => r.path[0]?.name)).toEqual(['a', 'b']);
  });

  it('reports grammar errors like kube', () => {
    expect(errorOf('a b')).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    expect(errorOf('a=1,')).toBe("found '', expected: identifier after ','");
  });
});

describe('canonical form of hand-built requirements', () => {
  it('starts plain names with a dot and brackets names that need quotes', () => {
    expect(formatFieldPath([seg('metadata'), seg('annotations'), seg('a.io/b')])).toBe(".metadata.annotations['a.io/b']");
    expect(formatFieldPath([seg('a.b'), seg('c')])).toBe("['a.b'].c");
    expect(formatFieldPath([seg('spec'), seg('containers', { list: true }), seg('image')])).toBe('.spec.containers[].image');
    expect(formatFieldPath([seg('spec'), seg('containers', { index: 3 }), seg('image')])).toBe('.spec.containers[3].image');
  });

  it('prints sorted by key with sorted set values, and parses back to the same requirements', () => {
    const reqs: FieldRequirement[] = [
      { path: [seg('status'), seg('phase')], operator: 'notin', values: ['b', 'a'] },
      { path: [seg('metadata'), seg('labels'), seg('app.kubernetes.io/name')], operator: '=', values: ['web'] },
    ];
    const text = formatFieldSelector(reqs);
    expect(text).toBe(".metadata.labels['app.kubernetes.io/name']=web,.status.phase notin (a,b)");
    expect(parseFieldSelector(text)).toEqual([reqs[1], { ...reqs[0], values: ['a', 'b'] }]);
  });

  it('falls back to the canonical spelling when a parsed path was changed', () => {
    const [r] = parseFieldSelector("metadata.annotations.'test.io'=x");
    if (!r) throw new Error('no requirement');
    expect(formatFieldSelector([r])).toBe("metadata.annotations.'test.io'=x");
    r.path = [seg('spec'), seg('replicas')];
    expect(formatFieldSelector([r])).toBe('.spec.replicas=x');
    expect(formatFieldSelector([{ ...r, path: [seg('a')] }])).toBe('.a=x');
  });
});
