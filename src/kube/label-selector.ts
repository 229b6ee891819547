// Kubernetes label selectors: parse and print exactly as k8s.io/apimachinery/pkg/labels does.
import type { LabelRequirement } from './requirement.js';
import {
  aggregate, canonicalValues, compareGoStrings, goQuote, parseSelectorSyntax, sortedValues, valueCountProblems,
  type ParsedRequirement, type SyntaxHooks,
} from './selector-syntax.js';

export { SelectorError, isSelectorError } from './selector-syntax.js';

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/** Name part of a qualified name and label values, in bytes (Go's len). */
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
/** Bytes. */
const DNS1123_SUBDOMAIN_MAX = 253;

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** Kube's validation.RegexError: the message, examples and the regex, punctuation included. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
/** Bytes. */
const DNS1123_LABEL_MAX = 63;

/** validation.IsDNS1123Label's test (a namespace's name, a Service's): at most 63 bytes of the label format. */
export function isDns1123Label(value: string): boolean {
  return byteLength(value) <= DNS1123_LABEL_MAX && DNS1123_LABEL_RE.test(value);
}

/** validation.IsDNS1123Subdomain: kube's messages (empty when valid). */
export function dns1123SubdomainProblems(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** validation.IsQualifiedName: `[DNS-subdomain/]name`, name ≤ 63 bytes. Returns kube's messages (empty when valid). */
export function qualifiedNameProblems(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] as string;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** validation.IsValidLabelValue: empty, or ≤ 63 bytes of [A-Za-z0-9-_.] starting and ending alphanumeric. */
export function labelValueProblems(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > QUALIFIED_NAME_MAX) errs.push(maxLenError(QUALIFIED_NAME_MAX));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

const LABEL_HOOKS: SyntaxHooks = {
  // The parser validates keys with a nil field path, which kube prints as "<nil>".
  validateKey(key) {
    const errs = qualifiedNameProblems(key);
    return errs.length ? `<nil>: Invalid value: ${goQuote(key)}: ${errs.join('; ')}` : undefined;
  },
  validateRequirement(req) {
    const problems = valueCountProblems(req.operator, req.values);
    sortedValues(req.values).forEach((v, i) => {
      const errs = labelValueProblems(v);
      if (errs.length) problems.push(`values[${i}][${req.key}]: Invalid value: ${goQuote(v)}: ${errs.join('; ')}`);
    });
    return aggregate(problems);
  },
};

const toLabel = (r: ParsedRequirement, values: string[]): LabelRequirement => ({ key: r.key, operator: r.operator, values });

/**
 * Parses a Kubernetes label selector (`a=b,c in (d,e),!f,g>3`). The result is kube's canonical form:
 * requirements sorted by key (stable), values sorted and de-duplicated. With `sourceOrder`, requirements
 * and values keep the order they were written in (for search labels whose value order means something,
 * such as `search.clusterpedia.io/orderby in (name,created_at_desc)`). Throws SelectorError only, with
 * kube's messages (`unable to parse requirement: …`, `found '…', expected: …`).
 */
export function parseLabelSelector(s: string, options?: { sourceOrder?: boolean }): LabelRequirement[] {
  const parsed = parseSelectorSyntax(s, LABEL_HOOKS);
  if (options?.sourceOrder) return parsed.map((r) => toLabel(r, [...new Set(r.values)]));
  return parsed.map((r) => toLabel(r, canonicalValues(r.values))).sort((a, b) => compareGoStrings(a.key, b.key));
}

/**
 * One requirement as kube's Requirement.String() prints it: set values sorted. Duplicates are dropped too
 * (kube's values are a set; `x in (,,)` would not even parse back).
 */
export function formatRequirement(key: string, operator: LabelRequirement['operator'], values: readonly string[]): string {
  const joined = canonicalValues(values).join(',');
  switch (operator) {
    case 'exists': return key;
    case '!': return `!${key}`;
    case '=': return `${key}=${joined}`;
    case '==': return `${key}==${joined}`;
    case '!=': return `${key}!=${joined}`;
    case 'in': return `${key} in (${joined})`;
    case 'notin': return `${key} notin (${joined})`;
    case 'gt': return `${key}>${joined}`;
    case 'lt': return `${key}<${joined}`;
  }
}

/**
 * Prints requirements as kube does (`labels.Selector.String()` of a parsed selector): sorted by key
 * (stable), `in`/`notin` values sorted. parse(format(x)) equals x for any x that parse produced, and
 * format(parse(s)) is the canonical spelling of s.
 */
export function formatLabelSelector(reqs: readonly LabelRequirement[]): string {
  return [...reqs]
    .sort((a, b) => compareGoStrings(a.key, b.key))
    .map((r) => formatRequirement(r.key, r.operator, r.values))
    .join(',');
}
