// Clusterpedia's enhanced field selector (reference §2.4): label-selector grammar whose keys are JSON field paths.
import type { FieldPathSegment, FieldRequirement } from './requirement.js';
import { formatRequirement, qualifiedNameProblems } from './label-selector.js';
import {
  SelectorError, aggregate, canonicalValues, compareGoStrings, goQuote, parseSelectorSyntax, valueCountProblems,
  type SyntaxHooks,
} from './selector-syntax.js';

export { SelectorError, isSelectorError } from './selector-syntax.js';

/** Largest `[N]` accepted: far beyond any real list, small enough for every JSON path dialect. */
const MAX_INDEX = 2 ** 31 - 1;

/** Characters that end an unquoted field name. */
const isNameEnd = (ch: string): boolean => ch === '.' || ch === '[';

/**
 * Parses a field path: dot-separated names with an optional leading `.`; a name may be quoted (`'a.b'`,
 * `"a.b"`) after a dot, or bracketed (`['a.b']`) right after another segment or at the very start; `[]`
 * marks the previous field a list (any element), `[N]` picks element N. Every name must be a Kubernetes
 * qualified name. Unlike Clusterpedia, a one-character quoted name (`['a']`) is accepted.
 * Throws SelectorError naming what is wrong.
 */
export function parseFieldPath(text: string): FieldPathSegment[] {
  const fail = (why: string): never => {
    throw new SelectorError(`invalid field path ${goQuote(text)}: ${why}`);
  };
  const segments: FieldPathSegment[] = [];
  const pushName = (name: string): void => {
    if (name.length === 0) fail('empty field name');
    const errs = qualifiedNameProblems(name);
    if (errs.length) fail(`field ${goQuote(name)}: ${errs.join('; ')}`);
    segments.push({ name });
  };
  /** Reads a quoted name starting at the quote at `i`; returns the index after the closing quote. */
  const readQuoted = (i: number): number => {
    const quote = text[i] as string;
    const close = text.indexOf(quote, i + 1);
    if (close < 0) fail(`unterminated quote at position ${i}`);
    pushName(text.slice(i + 1, close));
    return close + 1;
  };

  let i = text.startsWith('.') ? 1 : 0;
  if (i === 0 && text.startsWith('[')) {
    // A path may open with a bracketed name (`['a.b'].c`) but never with `[]` or `[N]`: there is no field to index.
    const q = text[1];
    if (q !== "'" && q !== '"') fail("'[]' or '[N]' needs a field before it");
    i = readQuoted(1);
    if (text[i] !== ']') fail(`expected ']' at position ${i}`);
    i++;
  } else {
    i = readSegmentAfterDot(i);
  }
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '.') {
      i = readSegmentAfterDot(i + 1);
    } else if (ch === '[') {
      i = readBracket(i);
    } else {
      fail(`unexpected ${goQuote(ch)} at position ${i}, expected '.' or '['`);
    }
  }
  return segments;

  /** After a dot (or at the start): a plain or quoted name. */
  function readSegmentAfterDot(start: number): number {
    const ch = text[start];
    if (ch === undefined || ch === '.') return fail(`empty field name at position ${start}`);
    if (ch === '[') return fail(`expected a field name at position ${start}, found '['`);
    if (ch === "'" || ch === '"') return readQuoted(start);
    let end = start;
    while (end < text.length && !isNameEnd(text[end] as string)) {
      const c = text[end] as string;
      if (c === "'" || c === '"' || c === ']') fail(`unexpected ${goQuote(c)} at position ${end}`);
      end++;
    }
    pushName(text.slice(start, end));
    return end;
  }

  /** `[]`, `[N]` or `['name']` after a segment. */
  function readBracket(start: number): number {
    const close = text.indexOf(']', start);
    const inner = close < 0 ? text.slice(start + 1) : text.slice(start + 1, close);
    const first = inner[0];
    if (first === "'" || first === '"') {
      const end = readQuoted(start + 1);
      if (text[end] !== ']') fail(`expected ']' at position ${end}`);
      return end + 1;
    }
    if (close < 0) fail(`unterminated '[' at position ${start}`);
    const last = segments[segments.length - 1] as FieldPathSegment;
    if (last.list || last.index !== undefined) fail(`field ${goQuote(last.name)} has two list markers; lists of lists are not supported`);
    if (inner === '') {
      last.list = true;
    } else if (/^(0|[1-9][0-9]*)$/.test(inner) && Number(inner) <= MAX_INDEX) {
      last.index = Number(inner);
    } else {
      fail(`${goQuote(`[${inner}]`)} is neither '[]', an index '[N]' nor a quoted name like ['${inner}']`);
    }
    return close + 1;
  }
}

/** A name that may be written without quotes in a path. */
const isPlainName = (name: string): boolean => name.length > 0 && /^[^.[\]'"\s=!(),<>]+$/.test(name);

/**
 * The canonical spelling of a path: a plain name as `.name` (so the path starts with a dot), a name that
 * needs quoting as `['name']` (no dot), then `[]` or `[N]`. `metadata.name` → `.metadata.name`;
 * `metadata.annotations['a.io/b']` → `.metadata.annotations['a.io/b']`; `spec.containers[].image` →
 * `.spec.containers[].image`.
 */
export function formatFieldPath(path: readonly FieldPathSegment[]): string {
  return path
    .map((s) => {
      const q = s.name.includes("'") ? '"' : "'";
      const name = isPlainName(s.name) ? `.${s.name}` : `[${q}${s.name}${q}]`;
      if (s.index !== undefined) return `${name}[${s.index}]`;
      return s.list ? `${name}[]` : name;
    })
    .join('');
}

const FIELD_HOOKS: SyntaxHooks = {
  validateKey(key) {
    const path = parseFieldPath(key);
    const last = path[path.length - 1] as FieldPathSegment;
    // `[]` last would compare whole lists; `[N]` last picks one element and is fine.
    if (last.list) return `invalid field path ${goQuote(key)}: the last field ${goQuote(last.name)} may not be a list '[]'`;
    return undefined;
  },
  validateRequirement(req) {
    return aggregate(valueCountProblems(req.operator, req.values));
  },
};

/**
 * How the key was written, kept off the enumerable properties so requirements still deep-equal their
 * hand-built twins; formatFieldSelector prints it so selectors round-trip exactly (reference §9.2).
 */
const KEY_TEXT = Symbol('fieldSelectorKeyText');
type Spelled = FieldRequirement & { [KEY_TEXT]?: string };

function samePath(a: readonly FieldPathSegment[], b: readonly FieldPathSegment[]): boolean {
  return a.length === b.length && a.every((s, i) => {
    const t = b[i] as FieldPathSegment;
    return s.name === t.name && Boolean(s.list) === Boolean(t.list) && s.index === t.index;
  });
}

/** The key as written when the requirement came from parseFieldSelector and its path is unchanged, else canonical. */
function keyText(req: FieldRequirement): string {
  const text = (req as Spelled)[KEY_TEXT];
  if (text !== undefined) {
    try {
      if (samePath(parseFieldPath(text), req.path)) return text;
    } catch {
      // The stored spelling no longer parses: fall through to the canonical form.
    }
  }
  return formatFieldPath(req.path);
}

/**
 * Parses an enhanced field selector (`.metadata.annotations['a.io'] in (x,y),spec.replicas=3`). Requirements
 * come sorted by their key as written (stable), values sorted and de-duplicated, as Clusterpedia does.
 * Plain Kubernetes field selectors (`metadata.name=x`) parse as paths. Throws SelectorError only.
 */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const parsed = parseSelectorSyntax(s, FIELD_HOOKS)
    .map((r) => ({ text: r.key, req: { path: parseFieldPath(r.key), operator: r.operator, values: canonicalValues(r.values) } }))
    .sort((a, b) => compareGoStrings(a.text, b.text));
  return parsed.map(({ text, req }) => {
    Object.defineProperty(req, KEY_TEXT, { value: text, enumerable: false });
    return req;
  });
}

/**
 * Prints requirements as Clusterpedia's String() does: keys as written when they came from parseFieldSelector
 * (so `metadata.annotations.'test.io'==value1` round-trips unchanged), otherwise in formatFieldPath's
 * canonical spelling; sorted by that key text (stable); set values sorted.
 */
export function formatFieldSelector(reqs: readonly FieldRequirement[]): string {
  return reqs
    .map((r) => ({ text: keyText(r), r }))
    .sort((a, b) => compareGoStrings(a.text, b.text))
    .map(({ text, r }) => formatRequirement(text, r.operator, r.values))
    .join(',');
}
