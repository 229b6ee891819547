// Lexer and parser shared by label and enhanced field selectors: a port of apimachinery's labels/selector.go grammar.
import type { SelectorOperator } from './requirement.js';

/** A selector that does not parse. Identified by `code === 'SelectorError'` (STYLE §10). */
export class SelectorError extends Error {
  readonly code = 'SelectorError';
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

export function isSelectorError(e: unknown): e is SelectorError {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'SelectorError';
}

/** Token kinds; literals name themselves, `identifier` covers keys and values. */
export type Token =
  | 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

/** Literal → token, as apimachinery's string2token (identifiers, end and errors excluded). */
const LITERAL_TOKENS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'], [',', ','], ['!', '!'], ['==', '=='], ['=', '='], ['>', '>'], ['in', 'in'], ['<', '<'],
  ['!=', '!='], ['notin', 'notin'], ['(', '('],
]);

/** Kube's binaryOperators, in its order: the list printed by "expected: …" messages. */
const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

export interface Scanned {
  tok: Token;
  literal: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean =>
  ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';

/**
 * Splits a selector into tokens, ending with `eos` (exported for the lexer tests of reference §9.2). Unlike Go, a NUL character is an ordinary character (Go's reader
 * treats it as the end of the string, which would silently drop the rest of a selector).
 */
export function tokenizeSelector(s: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos] as string)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', literal: '' });
      return items;
    }
    const start = pos;
    if (isSpecial(s[pos] as string)) {
      // Longest run of special characters that still forms a known token ("!=" but "=" then "!" for "=!").
      let last: Scanned | undefined;
      let end = pos;
      while (end < s.length && isSpecial(s[end] as string)) {
        const tok = LITERAL_TOKENS.get(s.slice(start, end + 1));
        if (tok !== undefined) last = { tok, literal: s.slice(start, end + 1) };
        else if (last) break;
        end++;
      }
      // Every special character alone is a token, so `last` is always set here.
      const item = last ?? { tok: 'error', literal: `error expected: keyword found '${s.slice(start, end)}'` };
      items.push(item);
      pos = start + Math.max(item.literal.length, 1);
      continue;
    }
    while (pos < s.length && !isSpecial(s[pos] as string) && !isWhitespace(s[pos] as string)) pos++;
    const literal = s.slice(start, pos);
    const tok = LITERAL_TOKENS.get(literal);
    items.push({ tok: tok === 'in' || tok === 'notin' ? tok : 'identifier', literal });
  }
}

/** A requirement as written: values in source order, duplicates dropped. */
export interface ParsedRequirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

/** What differs between label and field selectors: how keys and finished requirements are validated. */
export interface SyntaxHooks {
  /** Returns an error message for a bad key (checked as soon as the key is read, as kube does). */
  validateKey(key: string): string | undefined;
  /** Returns an error message for a bad requirement (kube's NewRequirement checks). */
  validateRequirement(req: ParsedRequirement): string | undefined;
}

type Context = 'keyAndOperator' | 'values';

/** Recursive-descent parser over the scanned tokens; each method mirrors its Go namesake. */
class Parser {
  private position = 0;
  constructor(private readonly items: Scanned[], private readonly hooks: SyntaxHooks) {}

  private lookahead(ctx: Context): Scanned {
    return this.view(this.items[Math.min(this.position, this.items.length - 1)] as Scanned, ctx);
  }

  private consume(ctx: Context): Scanned {
    const item = this.items[Math.min(this.position, this.items.length - 1)] as Scanned;
    this.position++;
    return this.view(item, ctx);
  }

  /** In a values context `in` and `notin` are plain identifiers (`x in (in)`). */
  private view(item: Scanned, ctx: Context): Scanned {
    if (ctx === 'values' && (item.tok === 'in' || item.tok === 'notin')) return { tok: 'identifier', literal: item.literal };
    return item;
  }

  parse(): ParsedRequirement[] {
    const reqs: ParsedRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead('values');
      if (tok === 'identifier' || tok === '!') {
        let req: ParsedRequirement;
        try {
          req = this.parseRequirement();
        } catch (e: unknown) {
          if (isSelectorError(e)) throw new SelectorError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        reqs.push(req);
        const next = this.consume('values');
        if (next.tok === 'eos') return reqs;
        if (next.tok === ',') {
          const after = this.lookahead('values');
          if (after.tok !== 'identifier' && after.tok !== '!') {
            throw new SelectorError(`found '${after.literal}', expected: identifier after ','`);
          }
          continue;
        }
        throw new SelectorError(`found '${next.literal}', expected: ',' or 'end of string'`);
      }
      if (tok === 'eos') return reqs;
      throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): ParsedRequirement {
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    if (inferred === 'exists' || inferred === '!') return this.finish({ key, operator: inferred, values: [] });
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.finish({ key, operator, values });
  }

  private finish(req: ParsedRequirement): ParsedRequirement {
    const problem = this.hooks.validateRequirement(req);
    if (problem !== undefined) throw new SelectorError(problem);
    return req;
  }

  private parseKeyAndInferOperator(): { key: string; operator: SelectorOperator | undefined } {
    let operator: SelectorOperator | undefined;
    let item = this.consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.consume('values');
    }
    if (item.tok !== 'identifier') throw new SelectorError(`found '${item.literal}', expected: identifier`);
    const problem = this.hooks.validateKey(item.literal);
    if (problem !== undefined) throw new SelectorError(problem);
    const next = this.lookahead('values').tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): SelectorOperator {
    const { tok, literal } = this.consume('keyAndOperator');
    switch (tok) {
      case 'in': return 'in';
      case '=': return '=';
      case '==': return '==';
      case '>': return 'gt';
      case '<': return 'lt';
      case 'notin': return 'notin';
      case '!=': return '!=';
      default: throw new SelectorError(`found '${literal}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private parseValues(): string[] {
    const open = this.consume('values');
    if (open.tok !== '(') throw new SelectorError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead('values');
    if (tok === 'identifier' || tok === ',') {
      const values = this.parseIdentifiersList();
      // Kube reports the token seen before the list here, not the offending one; kept for identical messages.
      if (this.consume('values').tok !== ')') throw new SelectorError(`found '${literal}', expected: ')'`);
      return values;
    }
    if (tok === ')') {
      this.consume('values');
      return [''];
    }
    throw new SelectorError(`found '${literal}', expected: ',', ')' or identifier`);
  }

  /** A possibly empty list of possibly empty values: `(a,,b)`, `(,a)`, `(a,)`. */
  private parseIdentifiersList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume('values');
      if (tok === 'identifier') {
        values.add(literal);
        const next = this.lookahead('values');
        if (next.tok === ',') continue;
        if (next.tok === ')') return [...values];
        throw new SelectorError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead('values').tok;
        if (next === ')') {
          values.add('');
          return [...values];
        }
        if (next === ',') {
          this.consume('values');
          values.add('');
        }
        continue;
      }
      throw new SelectorError(`found '${literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead('values').tok;
    if (next === 'eos' || next === ',') return [''];
    const { tok, literal } = this.consume('values');
    if (tok === 'identifier') return [literal];
    throw new SelectorError(`found '${literal}', expected: identifier`);
  }
}

/** Parses a selector into requirements in source order. Throws SelectorError only. */
export function parseSelectorSyntax(s: string, hooks: SyntaxHooks): ParsedRequirement[] {
  return new Parser(tokenizeSelector(s), hooks).parse();
}

/** Go's string order (UTF-8 bytes), which is code-point order; JS `<` compares UTF-16 units instead. */
export function compareGoStrings(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const d = (ca.value.codePointAt(0) as number) - (cb.value.codePointAt(0) as number);
    if (d !== 0) return d;
  }
}

/** Sorted copy, as kube's safeSort (never mutates its input). */
export function sortedValues(values: readonly string[]): string[] {
  return [...values].sort(compareGoStrings);
}

/** Sorted, duplicate-free copy: kube keeps values in a sets.String. */
export function canonicalValues(values: readonly string[]): string[] {
  return sortedValues([...new Set(values)]);
}

/** Checks value counts per operator with kube's NewRequirement messages; returns the problems found. */
export function valueCountProblems(operator: SelectorOperator, values: readonly string[]): string[] {
  const shown = goSliceLiteral(sortedValues(values));
  switch (operator) {
    case 'in':
    case 'notin':
      return values.length === 0 ? [`values: Invalid value: ${shown}: for 'in', 'notin' operators, values set can't be empty`] : [];
    case '=':
    case '==':
    case '!=':
      return values.length !== 1 ? [`values: Invalid value: ${shown}: exact-match compatibility requires one single value`] : [];
    case 'exists':
    case '!':
      return values.length !== 0 ? [`values: Invalid value: ${shown}: values set must be empty for exists and does not exist`] : [];
    case 'gt':
    case 'lt': {
      const problems = values.length !== 1 ? [`values: Invalid value: ${shown}: for 'Gt', 'Lt' operators, exactly one value is required`] : [];
      sortedValues(values).forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          problems.push(`values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
        }
      });
      return problems;
    }
  }
}

/** An error list rendered as kube's utilerrors aggregate: one message alone, several as `[a, b]`, duplicates dropped. */
export function aggregate(messages: readonly string[]): string | undefined {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return undefined;
  if (unique.length === 1) return unique[0];
  return `[${unique.join(', ')}]`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Go's `%q` (strconv.Quote) for the characters that matter in messages. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Go's `%#v` of a []string, as field.Invalid prints a slice value. */
function goSliceLiteral(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}
