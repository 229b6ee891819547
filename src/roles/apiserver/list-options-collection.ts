// The `groups` / `resources` query of the `any` collection resource (reference §1.6), as a TypeFilter.
import { badRequest } from '../../kube/status.js';
import type { TypeFilter } from '../../storage/types.js';

type Entry = { group: string; version?: string; resource?: string };

function entry(group: string, version: string, resource: string): Entry {
  const e: Entry = { group };
  if (version !== '') e.version = version;
  if (resource !== '') e.resource = resource;
  return e;
}

/** `apps`, `apps/v1`, `` or `/` (core group), `/v1`. */
function parseGroupVersion(raw: string): Entry {
  const gv = raw.replaceAll(' ', '');
  if (gv === '' || gv === '/') return { group: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return entry(parts[0] as string, '', '');
  if (parts.length === 2) return entry(parts[0] as string, parts[1] as string, '');
  throw badRequest(`groups query: unexpected GroupVersion string: ${gv}, expect <group> or <group>/<version>`);
}

/** `apps/deployments`, `/pods` (core), `apps/v1/deployments`, `//pods`. */
function parseGroupVersionResource(raw: string): Entry {
  const gvr = raw.replaceAll(' ', '');
  const parts = gvr.split('/');
  if (parts.length === 2 && parts[1] !== '') return entry(parts[0] as string, '', parts[1] as string);
  if (parts.length === 3 && parts[2] !== '') return entry(parts[0] as string, parts[1] as string, parts[2] as string);
  throw badRequest(`resources query: unexpected GroupVersionResource string: ${gvr}, expect <group>/<resource> or <group>/<version>/<resource>`);
}

/**
 * Resolves the types of the `any` collection: `groups=apps/v1,,batch` and/or `resources=apps/deployments,/pods`
 * (first occurrence of each key; spaces removed). A `*` group means every stored type. Neither given → 400
 * with Clusterpedia's message. Entries are ORed; duplicates are dropped.
 */
export function parseAnyCollectionTypes(query: URLSearchParams): TypeFilter {
  const entries: Entry[] = [];
  const groups = query.get('groups');
  if (groups !== null) {
    for (const g of groups.split(',')) {
      if (g.replaceAll(' ', '') === '*') return { kind: 'all' };
      entries.push(parseGroupVersion(g));
    }
  }
  const resources = query.get('resources');
  if (resources !== null) {
    for (const r of resources.split(',')) entries.push(parseGroupVersionResource(r));
  }
  if (entries.length === 0) throw badRequest('url query - `groups` or `resources` is required');
  // `groups=a,a,a,…` must cost one entry, not one OR term each.
  const unique = new Map(entries.map((e) => [JSON.stringify(e), e]));
  return { kind: 'many', entries: [...unique.values()] };
}
