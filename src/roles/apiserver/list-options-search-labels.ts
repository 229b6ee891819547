// Splits a labelSelector into Clusterpedia's search labels (search.clusterpedia.io/*) and real label requirements.
import { badRequest } from '../../kube/status.js';
import type { LabelRequirement } from '../../kube/requirement.js';
import { formatRequirement } from '../../kube/label-selector.js';
import { canonicalValues, compareGoStrings } from '../../kube/selector-syntax.js';
import type { SetFilter } from '../../storage/types.js';

const SEARCH = 'search.clusterpedia.io/';
const INTERNAL = 'internalstorage.clusterpedia.io/';
export const FUZZY_NAME_LABEL = `${INTERNAL}fuzzy-name`;
export const FORWARD_LABEL = `${SEARCH}forward`;

/** Search labels taking a set: `=`/`==`/`in` select, `!=`/`notin` exclude (Clusterpedia ignores the operator). */
const SET_KEYS = ['clusters', 'namespaces', 'names'] as const;
/** Search labels taking a list of values that only makes sense positively. */
const LIST_KEYS = ['orderby'] as const;
/** Search labels taking exactly one value. */
const SCALAR_KEYS = [
  'owner-uid', 'owner-name', 'owner-gr', 'owner-seniority', 'since', 'before', 'limit', 'offset',
  'with-continue', 'with-remaining-count', 'inject-events',
] as const;

type SetKey = (typeof SET_KEYS)[number];
type ScalarKey = (typeof SCALAR_KEYS)[number];

/** What a labelSelector carried besides real label requirements; raw values, decoded by the caller. */
export interface SearchLabels {
  sets: Partial<Record<SetKey, SetFilter>>;
  /** `search.clusterpedia.io/orderby` values in the order written (e.g. `name_desc`). */
  orderby?: string[];
  scalars: Partial<Record<ScalarKey, string>>;
  /** `internalstorage.clusterpedia.io/fuzzy-name` values: every one must occur in the name. */
  fuzzyNames?: string[];
  /** The remaining requirements, in kube's canonical form (sorted by key, values sorted). */
  labels: LabelRequirement[];
}

const isIn = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

function shown(req: LabelRequirement): string {
  return formatRequirement(req.key, req.operator, req.values);
}

function unsupported(req: LabelRequirement, allowed: string): never {
  throw badRequest(`labelSelector: search label requirement "${shown(req)}" uses an operator not supported for ${req.key}; use ${allowed}`);
}

/** Two requirements on one set key are ANDed, as any two label requirements are. */
function intersect(a: SetFilter, b: SetFilter): SetFilter {
  if (a.op === 'in' && b.op === 'in') return { op: 'in', values: a.values.filter((v) => b.values.includes(v)) };
  if (a.op === 'notin' && b.op === 'notin') return { op: 'notin', values: [...new Set([...a.values, ...b.values])] };
  const [pos, neg] = a.op === 'in' ? [a, b] : [b, a];
  return { op: 'in', values: pos.values.filter((v) => !neg.values.includes(v)) };
}

const isPositive = (r: LabelRequirement): boolean => r.operator === '=' || r.operator === '==' || r.operator === 'in';

/**
 * Consumes the search labels of a parsed (source-order) selector. Differences from Clusterpedia, on purpose:
 * operators are honoured (`namespaces notin (kube-system)` excludes) and an operator that means nothing for a
 * key is a 400 instead of being ignored; a scalar key with several values or given twice is a 400; other keys
 * that merely contain `clusterpedia.io` (`app.clusterpedia.io/x`) are ordinary labels; unknown keys under
 * the reserved `search.clusterpedia.io/` and `internalstorage.clusterpedia.io/` prefixes are a 400 (a typo
 * would otherwise silently match nothing); `search.clusterpedia.io/forward` is a 400 (no forwarding here).
 */
export function splitSearchLabels(reqs: readonly LabelRequirement[]): SearchLabels {
  const out: SearchLabels = { sets: {}, scalars: {}, labels: [] };
  for (const req of reqs) {
    const key = req.key;
    if (key === FORWARD_LABEL) throw badRequest(`labelSelector: ${FORWARD_LABEL}: forwarding to member clusters is not supported`);
    if (key === FUZZY_NAME_LABEL) {
      if (!isPositive(req)) unsupported(req, '=, == or in');
      out.fuzzyNames = [...(out.fuzzyNames ?? []), ...req.values.map((v) => v.trim())];
      continue;
    }
    if (!key.startsWith(SEARCH)) {
      if (key.startsWith(INTERNAL)) throw badRequest(`labelSelector: unknown search label ${key}; the only one under ${INTERNAL} is ${FUZZY_NAME_LABEL}`);
      out.labels.push({ key, operator: req.operator, values: canonicalValues(req.values) });
      continue;
    }
    const name = key.slice(SEARCH.length);
    if (isIn(SET_KEYS, name)) {
      let filter: SetFilter;
      if (isPositive(req)) filter = { op: 'in', values: req.values };
      else if (req.operator === '!=' || req.operator === 'notin') filter = { op: 'notin', values: req.values };
      else return unsupported(req, '=, ==, in, != or notin');
      const prev = out.sets[name];
      out.sets[name] = prev ? intersect(prev, filter) : filter;
    } else if (isIn(LIST_KEYS, name)) {
      if (!isPositive(req)) unsupported(req, '=, == or in');
      if (out.orderby) throw badRequest(`labelSelector: ${key} given more than once; list every order in one requirement: ${key} in (a,b_desc)`);
      out.orderby = req.values;
    } else if (isIn(SCALAR_KEYS, name)) {
      if (!isPositive(req)) unsupported(req, '= or ==');
      if (req.values.length !== 1) throw badRequest(`labelSelector: ${key} takes exactly one value, got "${shown(req)}"`);
      if (out.scalars[name] !== undefined) throw badRequest(`labelSelector: ${key} given more than once`);
      out.scalars[name] = req.values[0] as string;
    } else {
      const known = [...SET_KEYS, ...LIST_KEYS, ...SCALAR_KEYS].join(', ');
      throw badRequest(`labelSelector: unknown search label ${key}; known under ${SEARCH}: ${known}`);
    }
  }
  out.labels.sort((a, b) => compareGoStrings(a.key, b.key));
  return out;
}
