// Label selectors with kube's grammar (labels.Parse): =, ==, !=, in, notin, exists, !exists, >, <.

export type LabelOp = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Thrown for a selector kube would reject; the server answers 400 with its message. */
export class SelectorError extends Error {
  readonly code = 'SelectorError';
}

function validateKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const ok = name.length > 0 && name.length <= 63 && NAME.test(name) && (prefix === undefined || (prefix.length > 0 && prefix.length <= 253 && DNS1123.test(prefix)));
  if (!ok) throw new SelectorError(`unable to parse requirement: key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`);
}

const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64): the integer, or undefined where Go fails (not an integer, out of int64's range). */
function int64(s: string | undefined): bigint | undefined {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > INT64_MAX || n < -INT64_MAX - 1n ? undefined : n;
}

function validateValue(key: string, value: string, i: number): void {
  if (value.length > 63 || !VALUE.test(value)) {
    throw new SelectorError(`unable to parse requirement: values[${i}][${key}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`);
  }
}

type Token = { kind: 'id'; text: string } | { kind: 'op'; text: string };

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (/\s/.test(c)) { i++; continue; }
    const two = s.slice(i, i + 2);
    if (two === '==' || two === '!=') { out.push({ kind: 'op', text: two }); i += 2; continue; }
    if ('=!(),<>'.includes(c)) { out.push({ kind: 'op', text: c }); i++; continue; }
    let j = i;
    while (j < s.length && !/\s/.test(s[j] as string) && !'=!(),<>'.includes(s[j] as string)) j++;
    out.push({ kind: 'id', text: s.slice(i, j) });
    i = j;
  }
  return out;
}

/** Parses a labelSelector query value; "" selects everything. */
export function parseLabelSelector(input: string): LabelSelector {
  const toks = tokenize(input);
  const reqs: LabelRequirement[] = [];
  let p = 0;
  const peek = (): Token | undefined => toks[p];
  const expectId = (what: string): string => {
    const t = toks[p++];
    if (!t || t.kind !== 'id') throw new SelectorError(`found '${t?.text ?? ''}', expected: ${what}`);
    return t.text;
  };
  while (p < toks.length) {
    let negate = false;
    if (peek()?.text === '!' && peek()?.kind === 'op') { negate = true; p++; }
    const key = expectId('identifier');
    validateKey(key);
    const next = peek();
    if (negate || !next || next.text === ',') {
      reqs.push({ key, op: negate ? '!exists' : 'exists', values: [] });
    } else if (next.kind === 'op' && ['=', '==', '!='].includes(next.text)) {
      p++;
      const v = peek()?.kind === 'id' ? expectId('value') : '';
      validateValue(key, v, 0);
      reqs.push({ key, op: next.text === '!=' ? '!=' : '=', values: [v] });
    } else if (next.kind === 'op' && (next.text === '>' || next.text === '<')) {
      p++;
      const v = expectId('value');
      // strconv.ParseInt(v, 10, 64), then the label value rules as for every operator: "-2" is an integer but no label value.
      if (int64(v) === undefined) {
        throw new SelectorError(`unable to parse requirement: values[0]: Invalid value: "${v}": for 'Gt', 'Lt' operators, the value must be an integer`);
      }
      validateValue(key, v, 0);
      reqs.push({ key, op: next.text === '>' ? 'gt' : 'lt', values: [v] });
    } else if (next.kind === 'id' && (next.text === 'in' || next.text === 'notin')) {
      p++;
      if (toks[p++]?.text !== '(') throw new SelectorError(`found '${toks[p - 1]?.text ?? ''}', expected: '('`);
      const values: string[] = [];
      for (;;) {
        const t = toks[p];
        // "()" is the set of the empty value, as kube's parser reads it ("z notin ()" in its own examples).
        if (t?.text === ')') { p++; if (values.length === 0) values.push(''); break; }
        if (t?.text === ',') { values.push(''); p++; continue; }
        const v = expectId('value');
        validateValue(key, v, values.length);
        values.push(v);
        const sep = toks[p++];
        if (sep?.text === ')') break;
        if (sep?.text !== ',') throw new SelectorError(`found '${sep?.text ?? ''}', expected: ',' or ')'`);
      }
      reqs.push({ key, op: next.text === 'in' ? 'in' : 'notin', values });
    } else {
      throw new SelectorError(`found '${next.text}', expected: '=', '!=', '==', 'in', notin'`);
    }
    const sep = toks[p];
    if (sep === undefined) break;
    if (sep.text !== ',') throw new SelectorError(`found '${sep.text}', expected: ',' or 'end of string'`);
    p++;
    if (p >= toks.length) throw new SelectorError(`found '', expected: identifier after ','`);
  }
  return reqs;
}

export function matchLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of sel) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? (labels as Record<string, string>)[r.key] as string : undefined;
    switch (r.op) {
      case 'exists': if (!has) return false; break;
      case '!exists': if (has) return false; break;
      case '=': if (v !== r.values[0]) return false; break;
      case '!=': if (has && v === r.values[0]) return false; break;
      case 'in': if (!has || !r.values.includes(v as string)) return false; break;
      case 'notin': if (has && r.values.includes(v as string)) return false; break;
      case 'gt': { const n = int64(v); if (n === undefined || n <= BigInt(r.values[0] as string)) return false; break; }
      case 'lt': { const n = int64(v); if (n === undefined || n >= BigInt(r.values[0] as string)) return false; break; }
    }
  }
  return true;
}
