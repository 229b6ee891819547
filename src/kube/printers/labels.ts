// Label maps and selectors rendered as kube's labels package and metav1 helpers render them.

import { isObject, objects, str, stringMap, strings, type JsonObject } from './fields.js';

/** Port of labels.Set.String: `k=v` pairs sorted by key, comma-joined ('' for none). */
export function labelSetString(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort(compareGo)
    .map((k) => `${k}=${labels[k] ?? ''}`)
    .join(',');
}

/** Port of labels.FormatLabels: labelSetString, `<none>` when empty. */
export function formatLabels(labels: Record<string, string>): string {
  const s = labelSetString(labels);
  return s === '' ? '<none>' : s;
}

interface Requirement {
  key: string;
  op: 'Equals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values: string[];
}

/**
 * Port of metav1.LabelSelectorAsSelector(...).String(). A nil selector (Nothing) and an empty one
 * (Everything) both print ''. Undefined where kube's conversion fails (a bad operator or value count).
 */
export function labelSelectorString(selector: unknown): string | undefined {
  if (!isObject(selector)) return '';
  const reqs: Requirement[] = [];
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  for (const [key, value] of Object.entries(matchLabels)) {
    reqs.push({ key, op: 'Equals', values: [str(value)] });
  }
  for (const expr of objects(selector.matchExpressions)) {
    const op = str(expr.operator);
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') {
      return undefined;
    }
    const values = strings(expr.values);
    // labels.NewRequirement: set operators need values, existence operators must have none.
    if ((op === 'In' || op === 'NotIn') && values.length === 0) return undefined;
    if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) return undefined;
    reqs.push({ key: str(expr.key), op, values });
  }
  // internalSelector.Add keeps requirements sorted by key.
  reqs.sort((a, b) => compareGo(a.key, b.key));
  return reqs.map(requirementString).join(',');
}

/** Port of labels.Requirement.String; set values print sorted. */
function requirementString(r: Requirement): string {
  switch (r.op) {
    case 'Equals':
      return `${r.key}=${r.values[0] ?? ''}`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'In':
    case 'NotIn': {
      const values = r.values.length === 1 ? r.values : [...r.values].sort(compareGo);
      return `${r.key} ${r.op === 'In' ? 'in' : 'notin'} (${values.join(',')})`;
    }
  }
}

/** The Selector cell of printDeployment: the selector string, `<invalid>` if it cannot convert. */
export function selectorOrInvalid(selector: unknown): string {
  return labelSelectorString(selector) ?? '<invalid>';
}

/** Port of metav1.FormatLabelSelector: `<none>` when it selects by nothing, `<error>` if invalid. */
export function formatLabelSelector(selector: unknown): string {
  const s = labelSelectorString(selector);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

/**
 * Port of the gogo-protobuf String() of a *metav1.LabelSelector (not the selector syntax): Go struct
 * notation, match labels sorted by key, each requirement's values as fmt's %v of a []string.
 */
export function labelSelectorStructString(selector: JsonObject): string {
  const labels = stringMap(selector.matchLabels);
  const pairs = Object.keys(labels)
    .sort(compareGo)
    .map((k) => `${k}: ${labels[k] ?? ''},`)
    .join('');
  const requirements = objects(selector.matchExpressions)
    .map((r) => `LabelSelectorRequirement{Key:${str(r.key)},Operator:${str(r.operator)},Values:[${strings(r.values).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${pairs}},MatchExpressions:[]LabelSelectorRequirement{${requirements}},}`;
}

/** Go's string ordering: by UTF-8 bytes, which for these ASCII keys is by code unit. */
export function compareGo(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
