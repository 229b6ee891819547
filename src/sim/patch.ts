// PATCH bodies: JSON merge patch (RFC 7386; strategic merge is approximated by it) and JSON patch (RFC 6902).
import { clone, deepEqual } from './deep-equal.js';
import { errors } from './status.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return clone(patch);
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw errors.badRequest(`invalid JSON pointer: ${path}`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: unknown, parts: string[]): [Record<string, unknown> | unknown[], string] {
  let cur: unknown = doc;
  for (const p of parts.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[Number(p)] : typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[p] : undefined;
    if (typeof cur !== 'object' || cur === null) throw errors.invalid('JSONPatch', '', parts.join('/'), 'doc is missing path');
  }
  return [cur as Record<string, unknown> | unknown[], parts[parts.length - 1] ?? ''];
}

function getAt(doc: unknown, parts: string[]): unknown {
  let cur: unknown = doc;
  for (const p of parts) cur = Array.isArray(cur) ? cur[Number(p)] : typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[p] : undefined;
  return cur;
}

export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw errors.badRequest('json patch must be an array of operations');
  let out = clone(doc);
  for (const raw of ops as JsonPatchOp[]) {
    const parts = pointer(raw.path);
    if (parts.length === 0) {
      if (raw.op === 'add' || raw.op === 'replace') out = clone(raw.value);
      continue;
    }
    const [parent, last] = parentOf(out, parts);
    const setAt = (value: unknown, insert: boolean): void => {
      if (Array.isArray(parent)) {
        const i = last === '-' ? parent.length : Number(last);
        if (insert) parent.splice(i, 0, value);
        else parent[i] = value;
      } else parent[last] = value;
    };
    const removeAt = (): void => {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else if (last in parent) delete parent[last];
      else throw errors.invalid('JSONPatch', '', raw.path, 'unable to remove nonexistent key');
    };
    switch (raw.op) {
      case 'add': setAt(clone(raw.value), true); break;
      case 'replace': setAt(clone(raw.value), false); break;
      case 'remove': removeAt(); break;
      case 'test': if (!deepEqual(getAt(out, parts), raw.value)) throw errors.invalid('JSONPatch', '', raw.path, 'testing value failed'); break;
      case 'copy': setAt(clone(getAt(out, pointer(raw.from ?? ''))), true); break;
      case 'move': { const v = getAt(out, pointer(raw.from ?? '')); out = jsonPatch(out, [{ op: 'remove', path: raw.from }]); out = jsonPatch(out, [{ op: 'add', path: raw.path, value: v }]); break; }
      default: throw errors.badRequest(`unexpected JSON patch operation "${raw.op}"`);
    }
  }
  return out;
}
