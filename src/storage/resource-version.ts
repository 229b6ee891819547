// Ordering of member resourceVersions: the guard that keeps replays and out-of-order events from winning.

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * How member resourceVersion `a` relates to `b`. Decimal RVs (what kube-apiserver and etcd produce) compare
 * numerically by length then text, so no precision is lost past 2^53. Anything else can only be told
 * equal or different: 'unordered'.
 */
export function compareMemberRv(a: string, b: string): 'newer' | 'same' | 'older' | 'unordered' {
  if (a === b) return 'same';
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return 'unordered';
  if (a.length !== b.length) return a.length > b.length ? 'newer' : 'older';
  return a > b ? 'newer' : 'older';
}

/** An upsert with RV `incoming` replaces a stored row with RV `stored` only when it is newer; a different non-decimal RV counts as newer. */
export function upsertWins(incoming: string, stored: string): boolean {
  const c = compareMemberRv(incoming, stored);
  return c === 'newer' || c === 'unordered';
}

/** A delete carrying RV `deleteRv` removes a stored row unless the row is known to be newer (a re-creation that overtook the event). */
export function deleteWins(deleteRv: string | undefined, stored: string): boolean {
  if (deleteRv === undefined) return true;
  return compareMemberRv(stored, deleteRv) !== 'newer';
}
