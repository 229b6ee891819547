// Integers past 2^53 kept exact through JSON.parse and JSON.stringify. kube-apiserver reads an integer as an int64, so
// a custom resource may hold one that a double cannot (an ID, a nanosecond timestamp); JSON.parse would round it and
// the stored copy would differ from the member's. Such a literal is parsed as a marked string and written back as the
// literal it was. Node 20 has neither JSON.parse's source text nor JSON.rawJSON, which would do this natively.
import { randomBytes } from 'node:crypto';

/**
 * What a kept integer is parsed as: this process's mark and the literal. The mark holds a random nonce, so no string a
 * member sends can pass for one (and have `restoreIntegers` rewrite the text around it).
 */
const MARK = `\u0001int:${randomBytes(9).toString('base64url')}:`;
/** The mark as JSON.stringify writes it (its nonce is letters, digits, "-" and "_"), and a marked string so written. */
const MARK_JSON = JSON.stringify(MARK).slice(1, -1);
const MARKED_JSON = new RegExp(`"${MARK_JSON.replace('\\', '\\\\')}(-?[0-9]+)"`, 'g');

/** JSON.parse, except that integers a double cannot hold exactly become marked strings (`restoreIntegers` undoes it). */
export function parseExact(text: string): unknown {
  return JSON.parse(marked(text));
}

/** JSON.parse with integers a double cannot hold as BigInts, for writers that print those (the yaml package does). */
export function parseWithBigInts(text: string): unknown {
  const m = marked(text);
  if (m === text) return JSON.parse(text);
  return JSON.parse(m, (_key, v: unknown) => {
    const literal = exactLiteral(v);
    return literal === undefined ? v : BigInt(literal);
  });
}

/** The text with its integers past what a double holds marked, or the text itself when it has none. */
function marked(text: string): string {
  return mayHoldLongInteger(text) ? markIntegers(text) : text;
}

/** The literal of an integer `parseExact` kept as a marked string, or undefined for any other value. */
export function exactLiteral(v: unknown): string | undefined {
  return typeof v === 'string' && v.startsWith(MARK) ? v.slice(MARK.length) : undefined;
}

/** JSON text written by JSON.stringify with the marked strings of `parseExact` back as the integers they were. */
export function restoreIntegers(json: string): string {
  return json.includes(MARK_JSON) ? json.replace(MARKED_JSON, '$1') : json;
}

/**
 * False when the text surely holds no integer literal of 16 digits or more (an integer past 2^53 has at least 16).
 * Every watch event and list page goes through this, so it looks at every 16th character only: a run of 16 digits
 * covers one of them. A run found is a candidate only where a JSON number could stand (after ":", "[", "," or the start,
 * before ",", "}", "]" or the end), so the digits of a container image's digest do not send the page to the slow scan.
 */
function mayHoldLongInteger(text: string): boolean {
  const n = text.length;
  for (let p = 15; p < n; p += 16) {
    if (!isDigit(text.charCodeAt(p))) continue;
    let start = p;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    let end = p + 1;
    while (end < n && isDigit(text.charCodeAt(end))) end++;
    if (end - start < 16) continue;
    let before = start - 1;
    if (before >= 0 && text.charCodeAt(before) === 0x2d) before--;
    while (before >= 0 && isSpace(text.charCodeAt(before))) before--;
    let after = end;
    while (after < n && isSpace(text.charCodeAt(after))) after++;
    // The ends of the text count: a number alone is a JSON text too.
    const b = before >= 0 ? text.charCodeAt(before) : 0x2c;
    const a = after < n ? text.charCodeAt(after) : 0x2c;
    if ((b === 0x3a || b === 0x5b || b === 0x2c) && (a === 0x2c || a === 0x7d || a === 0x5d)) return true;
  }
  return false;
}

/** The text with every integer literal (outside strings) that no double writes back as itself replaced by a marked string. */
function markIntegers(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, over escapes.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      i++;
      continue;
    }
    if (c !== 0x2d && !isDigit(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === 0x2d) i++;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    const end = i;
    let integer = true;
    if (i < n && text.charCodeAt(i) === 0x2e) {
      integer = false;
      for (i++; i < n && isDigit(text.charCodeAt(i)); i++);
    }
    if (i < n && (text.charCodeAt(i) | 0x20) === 0x65) {
      integer = false;
      i++;
      if (i < n && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (!integer || end - start < 16) continue;
    const literal = text.slice(start, end);
    // Exactly a double (2^53 itself, 2^60) when the double is written back as the same literal.
    if (String(Number(literal)) === literal) continue;
    out += `${text.slice(from, start)}"${MARK_JSON}${literal}"`;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
