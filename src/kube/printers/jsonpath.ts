// The subset of client-go's util/jsonpath that CRD printer columns use, evaluated with
// AllowMissingKeys(true) as apiextensions-apiserver's table convertor does.
//
// Supported: `.a.b`, `['a.b']` / `["a"]` and unions of quoted names, `.*` and `[*]`, `..a`,
// `[n]` (negative from the end), `[start:end:step]`, and filters `[?(@.a.b == "x")]` with
// == != < > <= >= against string, number and boolean literals or `@` paths, or `[?(@.a)]` for
// existence. Not supported (a parse error): integer unions `[0,1]`, `range`/`end`, regexes.

import { isObject } from './fields.js';
import { compareGo } from './labels.js';

type Step =
  | { kind: 'field'; names: string[] }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'slice'; start: number | undefined; end: number | undefined; step: number | undefined; single: boolean }
  | { kind: 'filter'; left: Step[]; op: string; right: Operand | undefined };

type Operand = { kind: 'literal'; value: string | number | boolean; int: boolean } | { kind: 'path'; steps: Step[] };

/** A parsed path; build one with parseJsonPath. */
export interface JsonPath {
  readonly source: string;
  readonly steps: readonly Step[];
}

export type ParseResult = { ok: true; path: JsonPath } | { ok: false; error: string };

/** Raised inside this module only, for evaluation errors kube reports (they empty the cell). */
class EvalError extends Error {}

const FIELD_TERMINATORS = new Set([' ', '.', ',', '[', ']', '$', '@', '{', '}', '(', ')']);

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.pos} in ${JSON.stringify(this.text)}`);
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  /** Steps until the end of the text; `@` and `$` just name the start point. */
  steps(): Step[] {
    const steps: Step[] = [];
    while (this.pos < this.text.length) {
      const c = this.peek();
      if (c === ' ') this.pos++;
      else if (c === '@' || c === '$') this.pos++;
      else if (c === '.' && this.peek(1) === '.') {
        this.pos += 2;
        steps.push({ kind: 'recursive' });
        if (this.peek() === '*') {
          this.pos++;
          steps.push({ kind: 'wildcard' });
        } else if (this.peek() !== '[') steps.push({ kind: 'field', names: [this.fieldName()] });
      } else if (c === '.') {
        this.pos++;
        if (this.peek() === '*') {
          this.pos++;
          steps.push({ kind: 'wildcard' });
        } else if (this.peek() !== '[' && this.pos < this.text.length) {
          steps.push({ kind: 'field', names: [this.fieldName()] });
        }
      } else if (c === '[') steps.push(this.bracket());
      else this.fail(`unexpected ${JSON.stringify(c)}`);
    }
    return steps;
  }

  fieldName(): string {
    const start = this.pos;
    while (this.pos < this.text.length && !FIELD_TERMINATORS.has(this.peek())) this.pos++;
    if (this.pos === start) this.fail('empty field name');
    return this.text.slice(start, this.pos);
  }

  bracket(): Step {
    this.pos++; // '['
    if (this.peek() === '?' && this.peek(1) === '(') return this.filter();
    const close = this.closingBracket();
    const inner = this.text.slice(this.pos, close).trim();
    this.pos = close + 1;
    if (inner === '*') return { kind: 'wildcard' };
    if (inner.startsWith("'") || inner.startsWith('"')) return { kind: 'field', names: quotedList(inner, this) };
    const m = /^(-?\d+)?(?:(:)(-?\d+)?(?:(:)(-?\d+)?)?)?$/.exec(inner);
    if (!m || inner === '') this.fail(`unsupported array selection [${inner}]`);
    const [, a, colon, b, , c] = m;
    if (colon === undefined) return { kind: 'slice', start: Number(a), end: undefined, step: undefined, single: true };
    return {
      kind: 'slice',
      start: a === undefined ? undefined : Number(a),
      end: b === undefined ? undefined : Number(b),
      step: c === undefined ? undefined : Number(c),
      single: false,
    };
  }

  /** The `]` closing the current bracket, skipping quoted text. */
  closingBracket(): number {
    let quote = '';
    for (let i = this.pos; i < this.text.length; i++) {
      const ch = this.text[i];
      if (quote !== '') {
        if (ch === '\\') i++;
        else if (ch === quote) quote = '';
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === ']') return i;
    }
    return this.fail('unclosed [');
  }

  /** `?(left op right)]`, split as kube's parseFilter splits it: at the first run of !<>= outside the left path. */
  filter(): Step {
    this.pos += 2; // '?('
    let quote = '';
    let i = this.pos;
    for (; i < this.text.length; i++) {
      const ch = this.text[i];
      if (quote !== '') {
        if (ch === '\\') i++;
        else if (ch === quote) quote = '';
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === ')') break;
    }
    if (i >= this.text.length || this.text[i + 1] !== ']') this.fail('unterminated filter');
    const body = this.text.slice(this.pos, i);
    this.pos = i + 2;
    const m = /^([^!<>=]+)([!<>=]+)(.+?)$/s.exec(body);
    if (!m) return { kind: 'filter', left: subPath(body), op: 'exists', right: undefined };
    const [, left = '', op = '', right = ''] = m;
    if (!['==', '!=', '<', '>', '<=', '>='].includes(op)) this.fail(`unrecognized filter operator ${op}`);
    return { kind: 'filter', left: subPath(left), op, right: operand(right.trim()) };
  }
}

function subPath(text: string): Step[] {
  return new Parser(text.trim()).steps();
}

function operand(text: string): Operand {
  if (text.startsWith('"') || text.startsWith("'")) {
    const p = new Parser(text);
    const [value = ''] = quotedList(text, p);
    return { kind: 'literal', value, int: false };
  }
  if (/^-?\d+$/.test(text)) return { kind: 'literal', value: Number(text), int: true };
  if (/^-?\d+\.\d+$/.test(text)) return { kind: 'literal', value: Number(text), int: false };
  if (text === 'true' || text === 'false') return { kind: 'literal', value: text === 'true', int: false };
  if (text.startsWith('@') || text.startsWith('.') || text.startsWith('$')) return { kind: 'path', steps: subPath(text) };
  throw new SyntaxError(`unrecognized filter operand ${JSON.stringify(text)}`);
}

/** `'a','b'` → [a, b]; backslash escapes the next character. */
function quotedList(text: string, p: Parser): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const q = text[i];
    if (q !== '"' && q !== "'") p.fail('expected a quoted name');
    let value = '';
    i++;
    for (; i < text.length && text[i] !== q; i++) {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      value += text[i];
    }
    if (i >= text.length) p.fail('unterminated quote');
    out.push(value);
    i++;
    while (text[i] === ' ') i++;
    if (i < text.length) {
      if (text[i] !== ',') p.fail('expected ,');
      i++;
      while (text[i] === ' ') i++;
    }
  }
  return out;
}

/** Parses a printer column's JSONPath (as written in the CRD, without braces). */
export function parseJsonPath(source: string): ParseResult {
  try {
    return { ok: true, path: { source, steps: new Parser(source.trim()).steps() } };
  } catch (e: unknown) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Every value the path selects, in order; [] when a key is missing (AllowMissingKeys), undefined
 * when kube's evaluation would fail (indexing a non-array, index out of range, mixed-type filter).
 */
export function findResults(path: JsonPath, data: unknown): unknown[] | undefined {
  try {
    return walk(path.steps, [data]);
  } catch (e: unknown) {
    if (e instanceof EvalError) return undefined;
    throw e;
  }
}

function walk(steps: readonly Step[], input: unknown[]): unknown[] {
  let values = input;
  for (const step of steps) values = apply(step, values);
  return values;
}

function apply(step: Step, input: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    // template.Indirect: a nil value yields nothing, whatever the step.
    if (v === null || v === undefined) continue;
    switch (step.kind) {
      case 'field':
        if (isObject(v)) for (const name of step.names) if (Object.hasOwn(v, name)) out.push(v[name]);
        break;
      case 'wildcard':
        if (isObject(v)) out.push(...Object.values(v));
        else if (Array.isArray(v)) out.push(...v);
        break;
      case 'recursive':
        descend(v, out);
        break;
      case 'slice':
        out.push(...slice(step, v));
        break;
      case 'filter':
        out.push(...filter(step, v));
        break;
    }
  }
  return out;
}

/** evalRecursive: a container and, depth first, every container below it. */
function descend(v: unknown, out: unknown[]): void {
  const children = isObject(v) ? Object.values(v) : Array.isArray(v) ? v : [];
  if (children.length === 0) return;
  out.push(v);
  for (const c of children) if (c !== null && c !== undefined) descend(c, out);
}

/** evalArray, with kube's bounds errors. */
function slice(step: Extract<Step, { kind: 'slice' }>, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new EvalError('not array or slice');
  const len = v.length;
  let start = step.start ?? 0;
  if (start < 0) start += len;
  let end: number;
  if (step.single) end = start + 1;
  else {
    end = step.end ?? len;
    if (end < 0) end += len;
  }
  if (end === start) return [];
  if (start >= len || start < 0 || end > len || end < 0 || start > end) throw new EvalError('array index out of bounds');
  const stride = step.step ?? 1;
  if (stride <= 0) throw new EvalError('step must be > 0');
  const out: unknown[] = [];
  for (let i = start; i < end; i += stride) out.push(v[i]);
  return out;
}

function filter(step: Extract<Step, { kind: 'filter' }>, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new EvalError('not array or slice and cannot be filtered');
  const out: unknown[] = [];
  for (const item of v) {
    const lefts = walk(step.left, [item]);
    if (step.op === 'exists') {
      if (lefts.length > 0) out.push(item);
      continue;
    }
    if (lefts.length === 0) continue;
    if (lefts.length > 1) throw new EvalError('can only compare one element at a time');
    const right = step.right;
    let rights: Array<{ value: unknown; int: boolean }>;
    if (right === undefined) continue;
    if (right.kind === 'literal') rights = [{ value: right.value, int: right.int }];
    else rights = walk(right.steps, [item]).map((value) => ({ value, int: isInt(value) }));
    if (rights.length === 0) continue;
    if (rights.length > 1) throw new EvalError('can only compare one element at a time');
    const r = rights[0] ?? { value: undefined, int: false };
    if (compare(step.op, lefts[0], isInt(lefts[0]), r.value, r.int)) out.push(item);
  }
  return out;
}

/** JSON numbers that unstructured decoding turns into int64 rather than float64. */
function isInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** The basic kind text/template compares by; values of different kinds do not compare. */
function kindOf(v: unknown, int: boolean): string {
  if (typeof v === 'number') return int ? 'int' : 'float';
  if (typeof v === 'string' || typeof v === 'boolean') return typeof v;
  throw new EvalError('invalid type for comparison');
}

/** The forked text/template eq/lt helpers kube's jsonpath uses. */
function compare(op: string, left: unknown, leftInt: boolean, right: unknown, rightInt: boolean): boolean {
  const lk = kindOf(left, leftInt);
  if (lk !== kindOf(right, rightInt)) throw new EvalError('incompatible types for comparison');
  if (op === '==') return left === right;
  if (op === '!=') return left !== right;
  let order: number;
  if (typeof left === 'number' && typeof right === 'number') order = left - right;
  else if (typeof left === 'string' && typeof right === 'string') order = compareGo(left, right);
  else throw new EvalError('invalid type for comparison');
  switch (op) {
    case '<':
      return order < 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    default:
      return order >= 0;
  }
}
