// orderby (URL and search-label forms): whatever is printed parses back to the same terms, and any text gives terms
// (known columns or JSON paths, never SQL text) or a 400 Status starting "Invalid Query OrderBy" — nothing else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldPathSegment } from '../../src/kube/requirement.js';
import { isStatusError } from '../../src/kube/status.js';
import { parseListOptions } from '../../src/roles/apiserver/list-options.js';
import { parseOrderByLabel, parseOrderByParam } from '../../src/roles/apiserver/list-options-orderby.js';
import { ORDER_COLUMNS, type OrderColumn, type OrderTerm } from '../../src/storage/types.js';
import { FRAGMENTS, INJECTIONS } from './fuzz/corpus.js';

const RUNS = { numRuns: 1000 };

const column = fc.constantFrom<OrderColumn>(...ORDER_COLUMNS);
const plain = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_]{0,8}[A-Za-z0-9])?$/);
const dotted = fc.tuple(plain, plain).map(([a, b]) => `${a}.${b}`);
const segmentName = fc.oneof(plain, plain, dotted, fc.constant('app.kubernetes.io/name'));
const path = fc.array(segmentName, { minLength: 1, maxLength: 4 }).map((names): FieldPathSegment[] => names.map((name) => ({ name })));
const term: fc.Arbitrary<OrderTerm> = fc.oneof(
  fc.record({ column, desc: fc.boolean() }),
  fc.record({ path, desc: fc.boolean() }),
);

/** A path as the URL form takes it: starts with '.', names that need it quoted after the dot. */
function printPath(p: FieldPathSegment[]): string {
  return p.map((s) => (/^[^.[\]'"\s=!(),<>]+$/.test(s.name) ? `.${s.name}` : `.'${s.name}'`)).join('');
}

function printParam(terms: OrderTerm[]): string {
  return terms.map((t) => `${'column' in t ? t.column : printPath(t.path)}${t.desc ? ' desc' : ''}`).join(',');
}

/** Runs `parse`; returns its terms, or undefined for a 400 "Invalid Query OrderBy" Status. Anything else fails. */
function termsOr400(parse: () => OrderTerm[]): OrderTerm[] | undefined {
  try {
    return parse();
  } catch (e: unknown) {
    if (!isStatusError(e)) throw e;
    expect(e.status.code).toBe(400);
    expect(e.status.message).toMatch(/^Invalid Query OrderBy\(/);
    return undefined;
  }
}

function isSafe(t: OrderTerm): boolean {
  if ('column' in t) return (ORDER_COLUMNS as readonly string[]).includes(t.column) && Object.keys(t).sort().join() === 'column,desc';
  return t.path.length > 0 && t.path.every((s) => s.list === undefined && s.index === undefined && s.name.length > 0);
}

describe('orderby', () => {
  it('URL form: printing generated terms and parsing them back gives the same terms', () => {
    fc.assert(fc.property(fc.array(term, { minLength: 1, maxLength: 5 }), (terms) => {
      expect(parseOrderByParam(printParam(terms))).toEqual(terms);
    }), RUNS);
  });

  it('label form: `<column>` / `<column>_desc` round-trip for every column', () => {
    fc.assert(fc.property(fc.array(fc.record({ column, desc: fc.boolean() }), { minLength: 1, maxLength: 5 }), (terms) => {
      const values = terms.map((t) => `${t.column}${t.desc ? '_desc' : ''}`);
      expect(parseOrderByLabel(values)).toEqual(terms);
    }), RUNS);
  });

  it('URL and label forms give the same order for columns, through parseListOptions', () => {
    fc.assert(fc.property(fc.array(fc.record({ column, desc: fc.boolean() }), { minLength: 1, maxLength: 4 }), (terms) => {
      const url = parseListOptions({ mode: 'resources', group: '', version: 'v1', resource: 'pods', query: new URLSearchParams({ orderby: printParam(terms) }) });
      const label = parseListOptions({
        mode: 'resources', group: '', version: 'v1', resource: 'pods',
        query: new URLSearchParams({ labelSelector: `search.clusterpedia.io/orderby in (${terms.map((t) => `${t.column}${t.desc ? '_desc' : ''}`).join(',')})` }),
      });
      // The label form is a set: kube drops duplicate values, so compare with the first occurrence of each.
      const seen = new Set<string>();
      const distinct = terms.filter((t) => {
        const k = `${t.column}${t.desc}`;
        return seen.has(k) ? false : (seen.add(k), true);
      });
      expect(url.query.orderBy).toEqual(terms);
      expect(label.query.orderBy).toEqual(distinct);
    }), RUNS);
  });

  const hostile = fc.oneof(
    fc.string(), fc.string({ unit: 'binary' }),
    fc.array(fc.constantFrom(...INJECTIONS, ...FRAGMENTS, 'name', 'desc', ' ', ',', '.', "'", '"', '[', ']', '_desc', 'created_at'), { maxLength: 8 }).map((p) => p.join('')),
  );

  it('any text gives safe terms or a 400 Status, in both forms', () => {
    fc.assert(fc.property(hostile, (s) => {
      const url = termsOr400(() => parseOrderByParam(s));
      if (url) expect(url.every(isSafe)).toBe(true);
      const label = termsOr400(() => parseOrderByLabel(s.split(',')));
      if (label) expect(label.every(isSafe)).toBe(true);
    }), RUNS);
  });
});
