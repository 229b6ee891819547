// Label selector grammar: kube's own parser test cases (labels/selector_test.go), messages and canonical printing.
import { describe, expect, it } from 'vitest';
import { formatLabelSelector, isDns1123Label, labelValueProblems, parseLabelSelector, qualifiedNameProblems } from '../../src/kube/label-selector.js';
import { isSelectorError, tokenizeSelector } from '../../src/kube/selector-syntax.js';
import type { LabelRequirement } from '../../src/kube/requirement.js';

const req = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({ key, operator, values });

function errorOf(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e: unknown) {
    expect(isSelectorError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to be rejected`);
}

describe('tokenizeSelector (kube TestLexer, reference §9.2 lexer cases)', () => {
  it.each([
    ['', 'eos'], [',', ','], ['notin', 'notin'], ['in', 'in'], ['=', '='], ['==', '=='], ['>', '>'], ['<', '<'],
    ['!', '!'], ['!=', '!='], ['(', '('], [')', ')'], ['~', 'identifier'], ['||', 'identifier'],
  ])('%j → %s', (s, tok) => {
    expect(tokenizeSelector(s)[0]?.tok).toBe(tok);
  });

  it.each([
    ['key in ( value )', ['identifier', 'in', '(', 'identifier', ')', 'eos']],
    ['key notin ( value )', ['identifier', 'notin', '(', 'identifier', ')', 'eos']],
    ['key in ( value1, value2 )', ['identifier', 'in', '(', 'identifier', ',', 'identifier', ')', 'eos']],
    ['!key', ['!', 'identifier', 'eos']],
    ['()', ['(', ')', 'eos']],
    ['x in (),y', ['identifier', 'in', '(', ')', ',', 'identifier', 'eos']],
    ['== != (), = notin', ['==', '!=', '(', ')', ',', '=', 'notin', 'eos']],
    ['key>2', ['identifier', '>', 'identifier', 'eos']],
    ['key<1', ['identifier', '<', 'identifier', 'eos']],
    ['a=!b', ['identifier', '=', '!', 'identifier', 'eos']],
  ])('%j', (s, toks) => {
    expect(tokenizeSelector(s).map((t) => t.tok)).toEqual(toks);
  });
});

describe('parseLabelSelector', () => {
  it.each<[string, LabelRequirement[]]>([
    ['', []],
    ['\rx', [req('x', 'exists')]],
    ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'exists')]],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', [req('this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what'])]],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tock.clock)', [req('0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tock.clock'])]],
    ['foo  in\t (abc)', [req('foo', 'in', ['abc'])]],
    ['x notin\n (abc)', [req('x', 'notin', ['abc'])]],
    ['x  notin\t\t\t(abc,def)', [req('x', 'notin', ['abc', 'def'])]],
    ['x in (abc,)', [req('x', 'in', ['', 'abc'])]],
    ['x in ()', [req('x', 'in', [''])]],
    ['x notin (abc,,def),bar,z in (),w', [req('bar', 'exists'), req('w', 'exists'), req('x', 'notin', ['', 'abc', 'def']), req('z', 'in', [''])]],
    ['x,y in (a)', [req('x', 'exists'), req('y', 'in', ['a'])]],
    ['x=a', [req('x', '=', ['a'])]],
    ['x==a', [req('x', '==', ['a'])]],
    ['x>1', [req('x', 'gt', ['1'])]],
    ['x<7', [req('x', 'lt', ['7'])]],
    ['x=a,y!=b', [req('x', '=', ['a']), req('y', '!=', ['b'])]],
    ['x=', [req('x', '=', [''])]],
    ['x= ,z= ', [req('x', '=', ['']), req('z', '=', [''])]],
    ['!x', [req('x', '!')]],
    ['x notin ( )', [req('x', 'notin', [''])]],
    ['x notin (, a)', [req('x', 'notin', ['', 'a'])]],
    ['a ', [req('a', 'exists')]],
    ['a in (x,y,notin, z,in)', [req('a', 'in', ['in', 'notin', 'x', 'y', 'z'])]],
    ['in=notin', [req('in', '=', ['notin'])]],
    ['b=1,a=2,b=0', [req('a', '=', ['2']), req('b', '=', ['1']), req('b', '=', ['0'])]],
    ['x in (b,a,b)', [req('x', 'in', ['a', 'b'])]],
  ])('%j', (s, want) => {
    expect(parseLabelSelector(s)).toEqual(want);
  });

  it.each(['x=a||y=b', 'x==a==b', '!x=a', 'x<a', 'x,,y', ',x,y', 'x nott in (y)', 'a in (xyz),', 'a in (xyz)b notin ()',
    'a in (xyz abc)', 'a notin(', 'a (', '(', 'x=a b', 'k=v w', 'a in (b', 'a>', 'a>1.5', '-a', 'a-', 'a/b/c', '/a', 'A.B/c',
    `${'k'.repeat(64)}`, `k=${'v'.repeat(64)}`, 'a>9223372036854775808'])('rejects %j', (s) => {
    errorOf(s);
  });

  it('keeps source order when asked (search labels whose order matters)', () => {
    expect(parseLabelSelector('z in (b,a,b),a=1', { sourceOrder: true })).toEqual([req('z', 'in', ['b', 'a']), req('a', '=', ['1'])]);
  });
});

describe('kube error messages', () => {
  it.each([
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a,', "found '', expected: identifier after ','"],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a in =', "unable to parse requirement: found '=' expected: '('"],
    ['a in (=', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (b,=', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!,', "unable to parse requirement: found ',', expected: identifier"],
    ['a>abc', `unable to parse requirement: values[0]: Invalid value: "abc": for 'Gt', 'Lt' operators, the value must be an integer`],
  ])('%j', (s, message) => {
    expect(errorOf(s)).toBe(message);
  });

  it('names the key with a nil path, as kubectl users see it', () => {
    expect(errorOf('app:monolith')).toBe(
      'unable to parse requirement: <nil>: Invalid value: "app:monolith": name part must consist of alphanumeric characters, '
      + "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
      + "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    expect(errorOf('app.kubernetes_io/name=x')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io\/name": prefix part a lowercase RFC 1123 subdomain must consist of/);
  });

  it('names the value by index and key', () => {
    expect(errorOf('k=v_')).toBe(
      'unable to parse requirement: values[0][k]: Invalid value: "v_": a valid label must be an empty string or consist of '
      + "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      + "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    // Indexes count in sorted order, as kube validates the sorted set.
    expect(errorOf('k in (b_,a)')).toMatch(/^unable to parse requirement: values\[1\]\[k\]: Invalid value: "b_"/);
  });

  it('aggregates several problems as kube does', () => {
    expect(errorOf('a>a_b_')).toMatch(/^unable to parse requirement: \[values\[0\]: Invalid value: "a_b_": for 'Gt', 'Lt' operators, the value must be an integer, values\[0\]\[a\]: Invalid value: "a_b_": a valid label/);
  });

  it('quotes values as Go does', () => {
    expect(errorOf('k=a"b')).toContain('Invalid value: "a\\"b"');
  });
});

describe('validation helpers', () => {
  it('qualified names', () => {
    expect(qualifiedNameProblems('app.kubernetes.io/name')).toEqual([]);
    expect(qualifiedNameProblems('a'.repeat(63))).toEqual([]);
    expect(qualifiedNameProblems('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(qualifiedNameProblems('/a')).toEqual(['prefix part must be non-empty']);
    expect(qualifiedNameProblems('a/')).toEqual(['name part must be non-empty', expect.stringMatching(/^name part must consist/)]);
    expect(qualifiedNameProblems('x'.repeat(254) + '/a')[0]).toBe('prefix part must be no more than 253 characters');
  });

  it('label values', () => {
    expect(labelValueProblems('')).toEqual([]);
    expect(labelValueProblems('a.b-c_d')).toEqual([]);
    expect(labelValueProblems('v'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(labelValueProblems('-a')).toHaveLength(1);
  });
});

describe('formatLabelSelector', () => {
  it.each([
    ['x in (foo,bar)', 'x in (bar,foo)'],
    ['x notin (foo,bar)', 'x notin (bar,foo)'],
    ['x=abc,y>10', 'x=abc,y>10'],
    ['y<5,x==a', 'x==a,y<5'],
    ['!x , y', '!x,y'],
    ['x!=', 'x!='],
    ['x in (,a)', 'x in (,a)'],
    ['b,a', 'a,b'],
  ])('%j → %j', (s, canonical) => {
    expect(formatLabelSelector(parseLabelSelector(s))).toBe(canonical);
  });

  it('sorts hand-built requirements and set values without mutating them', () => {
    const reqs = [req('z', 'in', ['b', 'a']), req('a', 'exists')];
    expect(formatLabelSelector(reqs)).toBe('a,z in (a,b)');
    expect(reqs[0]?.values).toEqual(['b', 'a']);
  });
});

describe('isDns1123Label (a namespace name)', () => {
  it('takes lower-case letters, digits and inner dashes, up to 63 bytes', () => {
    for (const ok of ['a', 'kube-system', '0', 'a'.repeat(63), '123-abc']) expect(isDns1123Label(ok), ok).toBe(true);
    for (const bad of ['', 'a'.repeat(64), 'Kube', 'kube system', '-a', 'a-', 'a.b', 'a_b', 'é']) expect(isDns1123Label(bad), bad).toBe(false);
  });
});
