// Label and field selector grammar and matching, including properties over random label sets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../src/sim/field-selector.js';
import { matchLabels, parseLabelSelector, SelectorError } from '../../src/sim/label-selector.js';

describe('label selectors', () => {
  it('parses every operator', () => {
    expect(parseLabelSelector('a=b, c==d ,e!=f,g in (h, i),j notin (k),l,!m,n>1,o<2')).toEqual([
      { key: 'a', op: '=', values: ['b'] },
      { key: 'c', op: '=', values: ['d'] },
      { key: 'e', op: '!=', values: ['f'] },
      { key: 'g', op: 'in', values: ['h', 'i'] },
      { key: 'j', op: 'notin', values: ['k'] },
      { key: 'l', op: 'exists', values: [] },
      { key: 'm', op: '!exists', values: [] },
      { key: 'n', op: 'gt', values: ['1'] },
      { key: 'o', op: 'lt', values: ['2'] },
    ]);
    expect(parseLabelSelector('')).toEqual([]);
    expect(parseLabelSelector('app.kubernetes.io/name=web')[0]?.key).toBe('app.kubernetes.io/name');
  });

  it('rejects what kube rejects', () => {
    // Gt/Lt: an int64 (strconv.ParseInt) that is also a label value, so not "-2".
    for (const bad of ['a in (', 'a=b,', '=b', 'a=-b', 'a>x', 'a<-2', 'a>9223372036854775808', 'Bad_Prefix/a=b', 'a b']) {
      expect(() => parseLabelSelector(bad), bad).toThrow(SelectorError);
    }
  });

  it('reads "()" as the set of the empty value, as kube does', () => {
    expect(parseLabelSelector('a in (),b notin ()')).toEqual([{ key: 'a', op: 'in', values: [''] }, { key: 'b', op: 'notin', values: [''] }]);
    expect(matchLabels(parseLabelSelector('a in ()'), { a: '' })).toBe(true);
    expect(matchLabels(parseLabelSelector('a in ()'), { a: 'x' })).toBe(false);
  });

  it('matches like kube: != and notin match absent keys; in/=/exists need the key', () => {
    const labels = { app: 'web', tier: 'front' };
    const m = (s: string): boolean => matchLabels(parseLabelSelector(s), labels);
    expect(m('app=web,tier in (front,back)')).toBe(true);
    expect(m('missing!=x')).toBe(true);
    expect(m('missing notin (x)')).toBe(true);
    expect(m('missing in (x)')).toBe(false);
    expect(m('!missing,app')).toBe(true);
    expect(matchLabels(parseLabelSelector('app'), undefined)).toBe(false);
    expect(matchLabels(parseLabelSelector(''), undefined)).toBe(true);
  });

  it('Gt/Lt compare label values as int64 (strconv.ParseInt): leading zeros read, past int64 never matches', () => {
    const m = (s: string, v: string): boolean => matchLabels(parseLabelSelector(s), { n: v });
    expect(m('n>9223372036854775806', '9223372036854775807')).toBe(true);
    // 2^53 + 1: a double would call the two equal.
    expect(m('n>9007199254740992', '9007199254740993')).toBe(true);
    expect(m('n>1', '0009')).toBe(true);
    expect(m('n>1', '9223372036854775808')).toBe(false);
    expect(m('n<1', '9223372036854775808')).toBe(false);
    expect(m('n>1', '1e3')).toBe(false);
    expect(m('n>0', '')).toBe(false);
  });

  it('an equality selector built from a label set matches it, and != of any of its pairs does not', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
    const value = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    fc.assert(fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), (labels) => {
      const eq = Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
      expect(matchLabels(parseLabelSelector(eq), labels)).toBe(true);
      const [k, v] = Object.entries(labels)[0] as [string, string];
      expect(matchLabels(parseLabelSelector(`${k}!=${v}`), labels)).toBe(false);
      expect(matchLabels(parseLabelSelector(`${k} notin (${v},zzz)`), labels)).toBe(false);
    }));
  });
});

describe('field selectors', () => {
  it('parses =, ==, != and backslash escapes', () => {
    expect(parseFieldSelector('status.phase=Running,spec.nodeName!=n1,metadata.name==a\\,b')).toEqual([
      { field: 'status.phase', op: '=', value: 'Running' },
      { field: 'spec.nodeName', op: '!=', value: 'n1' },
      { field: 'metadata.name', op: '=', value: 'a,b' },
    ]);
    expect(parseFieldSelector('')).toEqual([]);
    expect(() => parseFieldSelector('nonsense')).toThrow(SelectorError);
  });
});
