// How objects leave the server: kind/apiVersion as kube-apiserver sends them, per requested version and context.
import { apiVersionOf, type ResourceDef, type SimObject } from './types.js';

/**
 * An object as served at `version`. Built-in list items carry no kind/apiVersion (kube's typed list encoding drops them);
 * single objects, watch events and every custom resource carry both, with the requested version.
 */
export function wireObject(obj: SimObject, def: ResourceDef, version: string, listItem: boolean): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, ...rest } = def.storedAs ? def.storedAs.read(obj) : obj;
  if (listItem && !def.custom) return rest;
  if (def.custom) return { apiVersion: apiVersionOf(def.group, version), kind: def.kind, ...rest };
  return { kind: def.kind, apiVersion: apiVersionOf(def.group, version), ...rest };
}

/** A list body, serialised item by item so a 500-item page is one string built once. */
export function listBody(def: ResourceDef, version: string, items: SimObject[], meta: { resourceVersion: string; continue?: string; remainingItemCount?: number }): string {
  const head = JSON.stringify({ kind: def.listKind, apiVersion: apiVersionOf(def.group, version), metadata: meta });
  const parts = items.map((o) => JSON.stringify(wireObject(o, def, version, true)));
  return `${head.slice(0, -1)},"items":[${parts.join(',')}]}`;
}
