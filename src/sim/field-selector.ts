// Field selectors with kube's grammar (a=b, a==b, a!=b; backslash escapes) and per-resource supported fields.
import { SelectorError } from './label-selector.js';
import type { ResourceDef, SimObject } from './types.js';

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** Splits on unescaped commas and parses each term; "" selects everything. */
export function parseFieldSelector(input: string): FieldRequirement[] {
  if (input.trim() === '') return [];
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i] as string;
    if (c === '\\' && i + 1 < input.length) { cur += c + (input[i + 1] as string); i++; continue; }
    if (c === ',') { terms.push(cur); cur = ''; continue; }
    cur += c;
  }
  terms.push(cur);
  return terms.map((term) => {
    for (const op of ['!=', '==', '='] as const) {
      const at = findUnescaped(term, op);
      if (at >= 0) {
        const field = term.slice(0, at).trim();
        if (!field) break;
        return { field, op: op === '!=' ? '!=' : '=', value: unescape(term.slice(at + op.length)) };
      }
    }
    throw new SelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
  });
}

function findUnescaped(s: string, op: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') { i++; continue; }
    if (s.startsWith(op, i)) return i;
  }
  return -1;
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** Rejects fields the resource does not support, with kube's messages (built-ins and CRDs word it differently). */
export function checkFieldSelector(def: ResourceDef, reqs: FieldRequirement[]): void {
  for (const r of reqs) {
    if (r.field === 'metadata.name' || r.field === 'metadata.namespace' || r.field in def.selectableFields) continue;
    if (Object.keys(def.selectableFields).length > 0) throw new SelectorError(`field label not supported: ${r.field}`);
    throw new SelectorError(`"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
}

export function matchFields(def: ResourceDef, reqs: FieldRequirement[], o: SimObject): boolean {
  for (const r of reqs) {
    const get = def.selectableFields[r.field];
    const v = r.field === 'metadata.name' ? o.metadata.name ?? '' : r.field === 'metadata.namespace' ? o.metadata.namespace ?? '' : get ? get(o) : '';
    if ((v === r.value) !== (r.op === '=')) return false;
  }
  return true;
}
