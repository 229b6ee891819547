// `orderby` (reference §2.6) restricted to known columns or a JSON field path: never SQL text.
import { badRequest, type StatusError } from '../../kube/status.js';
import { parseFieldPath } from '../../kube/field-selector.js';
import { isSelectorError } from '../../kube/selector-syntax.js';
import { ORDER_COLUMNS, type OrderColumn, type OrderTerm } from '../../storage/types.js';

const ALLOWED = `one of ${ORDER_COLUMNS.join(', ')}, or a field path starting with '.' such as .status.phase (URL form only)`;

const invalid = (item: string, why: string): StatusError => badRequest(`Invalid Query OrderBy(${item}): ${why}`);

function term(item: string, field: string, desc: boolean): OrderTerm {
  if ((ORDER_COLUMNS as readonly string[]).includes(field)) return { column: field as OrderColumn, desc };
  if (!field.startsWith('.')) throw invalid(item, `unknown field ${JSON.stringify(field)}; use ${ALLOWED}`);
  try {
    const path = parseFieldPath(field);
    // One row, one sort key: a list segment would give a row several keys.
    if (path.some((s) => s.list || s.index !== undefined)) throw invalid(item, 'a field path to order by may not contain [] or [N]');
    return { path, desc };
  } catch (e: unknown) {
    if (isSelectorError(e)) throw invalid(item, e.message);
    throw e;
  }
}

/**
 * URL form: `orderby=name desc,created_at,.status.phase desc`. Items are split on ','; each is a field
 * optionally followed by one space and `desc`. Anything else (`a b`, an empty item) is a 400 starting
 * `Invalid Query OrderBy`, as in Clusterpedia.
 */
export function parseOrderByParam(value: string): OrderTerm[] {
  return value.trim().split(',').map((raw) => {
    const item = raw.trim();
    const parts = item.split(' ');
    const desc = parts.length > 1 && parts[parts.length - 1] === 'desc';
    if (desc) parts.pop();
    if (parts.length !== 1) throw invalid(item, "expected '<field>' or '<field> desc'");
    const field = parts[0] as string;
    if (field === '') throw invalid(item, `empty field; use ${ALLOWED}`);
    return term(item, field, desc);
  });
}

/**
 * Label form: values such as `name`, `name_desc`, `resource_version_desc` (a label value cannot hold a
 * space or start with '.', hence `_desc` and columns only). Split on '_': a trailing `desc` means descending.
 */
export function parseOrderByLabel(values: readonly string[]): OrderTerm[] {
  return values.map((item) => {
    const parts = item.trim().split('_');
    const desc = parts.length > 1 && parts[parts.length - 1] === 'desc';
    if (desc) parts.pop();
    return term(item, parts.join('_'), desc);
  });
}
