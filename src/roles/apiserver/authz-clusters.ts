// Per-cluster authorization (--authorization-per-cluster): which member clusters a user may read, as a clusters filter.
//
// Design (README "Per-cluster authorization"): reading member cluster <c> needs, besides the outer
// `resources`/`collectionresources` permission, a SubjectAccessReview allowing
//   resourceAttributes {group: clusterpedia.io, version: v1beta1, resource: clusters, name: <c>, verb: <request verb>}
// i.e. an RBAC rule `apiGroups: [clusterpedia.io], resources: [clusters], resourceNames: [<c>], verbs: [get, list, watch]`.
// A path naming a cluster (`…/resources/clusters/<c>/…`) is checked directly and answers 403 when denied.
// A list or watch across clusters (and collections) is narrowed instead: the allowed set is computed over the
// catalog's clusters (one cached review per user and cluster) and intersected with the query's `clusters`
// filter, so rows of other clusters are never read; a user allowed no cluster gets an empty list, not 403.
// Discovery across clusters is not narrowed: type names are not rows, and kubectl needs discovery to list at all.
import { forEachLimited } from '../../lib/pool.js';
import type { SetFilter } from '../../storage/types.js';
import type { UserInfo } from './authn.js';
import { clusterAttributes } from './authz-attributes.js';
import type { Authorizer } from './authz.js';

/** Reviews in flight at once while computing an allowed set (the first request of a user over a large fleet). */
const CONCURRENCY = 16;

/** Narrows a clusters filter to what one user may read with one verb. */
export interface ClusterScope {
  narrow(filter: SetFilter | undefined): Promise<SetFilter>;
}

export function clusterScope(authz: Authorizer, user: UserInfo, verb: string, clusters: () => Promise<Iterable<string>>): ClusterScope {
  return {
    async narrow(filter) {
      const allowed = await allowedClusters(authz, user, verb, [...await clusters()]);
      return intersectClusters(filter, allowed);
    },
  };
}

/** The subset of `clusters` the user may read. A review that fails (host unreachable) fails the request. */
export async function allowedClusters(authz: Authorizer, user: UserInfo, verb: string, clusters: string[]): Promise<Set<string>> {
  const allowed = new Set<string>();
  await forEachLimited(clusters, CONCURRENCY, async (c) => {
    if ((await authz.decide(user, clusterAttributes(c, verb))).allowed) allowed.add(c);
  });
  return allowed;
}

/**
 * The query's cluster filter intersected with the allowed set, always as an `in` filter:
 * none → in allowed; in V → in V∩allowed; notin V → in allowed∖V. An empty `in` matches nothing.
 */
export function intersectClusters(filter: SetFilter | undefined, allowed: ReadonlySet<string>): SetFilter {
  const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();
  if (!filter) return { op: 'in', values: sorted(allowed) };
  if (filter.op === 'in') return { op: 'in', values: sorted(filter.values.filter((c) => allowed.has(c))) };
  const excluded = new Set(filter.values);
  return { op: 'in', values: sorted([...allowed].filter((c) => !excluded.has(c))) };
}
