// PATCH bodies: JSON merge patch (RFC 7386), kube's strategic merge patch (lists of the built-in types merged by their
// keys, with its directives) and JSON patch (RFC 6902).
import { clone, deepEqual } from './deep-equal.js';
import { errors } from './status.js';

/**
 * The lists a strategic merge patch merges element by element, by field name, with their merge keys (k8s.io/api's
 * patchMergeKey tags). Where one name serves two types (a container's ports by containerPort, a Service's by port) the
 * first key the patch's elements carry is taken. Other lists are replaced whole, as in a merge patch.
 */
const MERGE_KEYS: Record<string, string[]> = {
  containers: ['name'], initContainers: ['name'], ephemeralContainers: ['name'], env: ['name'], volumes: ['name'],
  volumeMounts: ['mountPath'], volumeDevices: ['devicePath'], imagePullSecrets: ['name'], hostAliases: ['ip'],
  ports: ['containerPort', 'port'], conditions: ['type'], ownerReferences: ['uid'], topologySpreadConstraints: ['topologyKey'],
  resourceClaims: ['name'], schedulingGates: ['name'], addresses: ['type'],
};
/** Lists of strings a strategic merge patch merges as sets (patchStrategy merge, no key). */
const MERGE_SETS = new Set(['finalizers']);

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * kube's strategic merge patch of a built-in object: a merge patch, but the lists above are merged by key, and its
 * directives are followed: `$patch: replace | delete` (a map, or an element of a keyed list), `$retainKeys`,
 * `$setElementOrder/<list>` (what kubectl set image, edit and apply send) and `$deleteFromPrimitiveList/<list>`.
 */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  return mergeMap(target, patch) ?? {};
}

/** A map patched; undefined when the patch deletes it. */
function mergeMap(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return clone(patch);
  if (patch.$patch === 'delete') return undefined;
  if (patch.$patch === 'replace') return withoutDirectives(patch);
  const out: Json = isMap(target) ? { ...target } : {};
  const orders: Json = {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) orders[k.slice('$setElementOrder/'.length)] = v;
    else if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const gone = Array.isArray(v) ? v : [];
      if (Array.isArray(out[field])) out[field] = (out[field] as unknown[]).filter((x) => !gone.some((g) => deepEqual(g, x)));
    } else if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = mergeList(k, out[k], v);
    else {
      const merged = isMap(v) ? mergeMap(out[k], v) : clone(v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
  }
  for (const [field, order] of Object.entries(orders)) if (Array.isArray(out[field]) && Array.isArray(order)) out[field] = reorder(out[field] as unknown[], order, field);
  if (Array.isArray(patch.$retainKeys)) for (const k of Object.keys(out)) if (!(patch.$retainKeys as unknown[]).includes(k)) delete out[k];
  return out;
}

function mergeList(field: string, current: unknown, patch: unknown[]): unknown[] {
  if (patch.some((e) => isMap(e) && e.$patch === 'replace')) return patch.filter((e) => !(isMap(e) && e.$patch === 'replace')).map(withoutDirectives);
  const have = Array.isArray(current) ? current : [];
  if (MERGE_SETS.has(field)) return [...have.map(clone), ...patch.filter((p) => !have.some((h) => deepEqual(h, p))).map(clone)];
  const key = MERGE_KEYS[field]?.find((k) => patch.some((e) => isMap(e) && k in e));
  if (key === undefined || !Array.isArray(current)) return patch.filter((e) => !(isMap(e) && e.$patch === 'delete')).map(withoutDirectives);
  const out = have.map(clone);
  for (const e of patch) {
    if (!isMap(e)) continue;
    const at = out.findIndex((o) => isMap(o) && deepEqual(o[key], e[key]));
    if (e.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = mergeMap(out[at], e);
    else out.push(mergeMap({}, e));
  }
  return out;
}

/** The list ordered as `$setElementOrder` gives it (by merge key, or by value); elements it does not name go last. */
function reorder(list: unknown[], order: unknown[], field: string): unknown[] {
  const key = MERGE_KEYS[field]?.find((k) => order.some((o) => isMap(o) && k in o));
  const id = (v: unknown): unknown => (key !== undefined && isMap(v) ? v[key] : v);
  const rank = (v: unknown): number => {
    const i = order.findIndex((o) => deepEqual(id(o), id(v)));
    return i < 0 ? order.length : i;
  };
  return list.map((v, i) => ({ v, i, r: rank(v) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.v);
}

/** A patch value with its directives taken out, at every depth. */
function withoutDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDirectives);
  if (!isMap(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = withoutDirectives(x);
  return out;
}

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
