// Property tests: selector parsers throw only SelectorError, and whatever parses round-trips through format.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatLabelSelector, parseLabelSelector } from '../../src/kube/label-selector.js';
import { formatFieldSelector, parseFieldSelector } from '../../src/kube/field-selector.js';
import { compareGoStrings, isSelectorError } from '../../src/kube/selector-syntax.js';
import type { FieldPathSegment, FieldRequirement, LabelRequirement, SelectorOperator } from '../../src/kube/requirement.js';

const RUNS = { numRuns: 500 };

/** Tokens and fragments that exercise every grammar branch of both selectors. */
const fragment = fc.constantFrom(
  'a', 'b', 'x.io/k', 'app.kubernetes.io/name', 'in', 'notin', '=', '==', '!=', '!', '(', ')', ',', ' ', '\t', '>', '<', '1', '-2',
  'v_', '', "'", '"', '[', ']', '[]', '[0]', '[12]', '.', "['a.b']", "'c.d'", 'metadata', 'spec.containers', '_', '/', '~', '\u00e9', '\0',
);
const selectorish = fc.array(fragment, { maxLength: 14 }).map((parts) => parts.join(''));
const anyString = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), selectorish);

function parseOrSelectorError<T>(parse: (s: string) => T, s: string): T | undefined {
  try {
    return parse(s);
  } catch (e: unknown) {
    if (!isSelectorError(e)) throw e;
    return undefined;
  }
}

describe('label selectors', () => {
  it('throw nothing but SelectorError, and every parsed selector round-trips', () => {
    fc.assert(fc.property(anyString, (s) => {
      const reqs = parseOrSelectorError(parseLabelSelector, s);
      if (reqs === undefined) return;
      const text = formatLabelSelector(reqs);
      expect(parseLabelSelector(text)).toEqual(reqs);
      expect(formatLabelSelector(parseLabelSelector(text))).toBe(text);
    }), RUNS);
  });

  const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?$/);
  const name = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?$/);
  const key = fc.tuple(fc.option(fc.array(dnsLabel, { minLength: 1, maxLength: 3 }).map((l) => l.join('.'))), name)
    .map(([prefix, n]) => (prefix === null ? n : `${prefix}/${n}`));
  const value = fc.oneof(fc.constant(''), name);

  function requirement(): fc.Arbitrary<LabelRequirement> {
    return fc.oneof(
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('=', '==', '!='), values: fc.tuple(value).map((v) => [...v]) }),
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('in', 'notin'), values: fc.array(value, { minLength: 1, maxLength: 4 }) }),
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('exists', '!'), values: fc.constant<string[]>([]) }),
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('gt', 'lt'), values: fc.nat().map((n) => [String(n)]) }),
    );
  }

  it('parse(format(x)) is x in canonical form for generated requirements', () => {
    fc.assert(fc.property(fc.array(requirement(), { maxLength: 5 }), (reqs) => {
      const canonical = reqs
        .map((r) => ({ ...r, values: [...new Set(r.values)].sort(compareGoStrings) }))
        .sort((a, b) => compareGoStrings(a.key, b.key));
      expect(parseLabelSelector(formatLabelSelector(reqs))).toEqual(canonical);
    }), RUNS);
  });
});

describe('field selectors', () => {
  it('throw nothing but SelectorError, and every parsed selector round-trips exactly', () => {
    fc.assert(fc.property(anyString, (s) => {
      const reqs = parseOrSelectorError(parseFieldSelector, s);
      if (reqs === undefined) return;
      const text = formatFieldSelector(reqs);
      expect(parseFieldSelector(text)).toEqual(reqs);
      expect(formatFieldSelector(parseFieldSelector(text))).toBe(text);
    }), RUNS);
  });

  const plain = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_]{0,8}[A-Za-z0-9])?$/);
  const dotted = fc.tuple(plain, plain).map(([a, b]) => `${a}.${b}`);
  const segment = fc.record({
    name: fc.oneof(plain, dotted, fc.constant('app.kubernetes.io/name')),
    marker: fc.constantFrom<'none' | 'list' | 'index'>('none', 'none', 'list', 'index'),
    index: fc.nat({ max: 20 }),
  }).map(({ name, marker, index }): FieldPathSegment => (
    marker === 'list' ? { name, list: true } : marker === 'index' ? { name, index } : { name }));
  const path = fc.tuple(fc.array(segment, { maxLength: 3 }), plain)
    .map(([head, last]) => [...head, { name: last }]);
  const value = fc.stringMatching(/^[^\s=!(),<>]{0,8}$/);
  const requirement: fc.Arbitrary<FieldRequirement> = fc.oneof(
    fc.record({ path, operator: fc.constantFrom<SelectorOperator>('=', '==', '!='), values: fc.tuple(value).map((v) => [...v]) }),
    fc.record({ path, operator: fc.constantFrom<SelectorOperator>('in', 'notin'), values: fc.array(value, { minLength: 1, maxLength: 4 }) }),
    fc.record({ path, operator: fc.constantFrom<SelectorOperator>('exists', '!'), values: fc.constant<string[]>([]) }),
    fc.record({ path, operator: fc.constantFrom<SelectorOperator>('gt', 'lt'), values: fc.integer().map((n) => [String(n)]) }),
  );

  it('the canonical spelling of generated requirements parses back to them', () => {
    fc.assert(fc.property(fc.array(requirement, { maxLength: 4 }), (reqs) => {
      const parsed = parseFieldSelector(formatFieldSelector(reqs));
      const canonical = reqs.map((r) => ({ ...r, values: [...new Set(r.values)].sort(compareGoStrings) }));
      // Order follows the printed keys; compare as multisets of printed requirements.
      const show = (rs: FieldRequirement[]): string[] => rs.map((r) => JSON.stringify(r)).sort();
      expect(show(parsed)).toEqual(show(canonical));
    }), RUNS);
  });
});
