// Tables for custom resources and unprinted built-ins: ports of apiextensions-apiserver's
// tableconvertor (CRD additionalPrinterColumns) and apiserver's defaultTableConvertor.

import type { KubeObject } from '../types.js';
import { NAME_COLUMN, column, nameOf } from './columns.js';
import { DOC } from './descriptions.js';
import { humanDuration } from './duration.js';
import { parseTime } from './fields.js';
import { goJson, goScalar } from './go-format.js';
import { exactLiteral, restoreIntegers } from '../exact-json.js';
import { findResults, parseJsonPath, type JsonPath } from './jsonpath.js';
import type { PrinterColumn, ResourcePrinter, TableColumnDefinition } from './types.js';

/** The Age column the CRD handler serves when a version declares no printer columns (serveDefaultColumnsIfEmpty). */
const DEFAULT_CRD_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Age', type: 'date', description: DOC.creationTimestamp, jsonPath: '.metadata.creationTimestamp' },
];

/**
 * apiserver's defaultTableConvertor: Name and `Created At` (type date, the RFC 3339 creation time).
 * kube-apiserver uses it for built-in resources without a printer (roles, limitranges, CRDs, …).
 */
export const defaultPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Created At', 'date', DOC.creationTimestamp)],
  cells(o) {
    return [nameOf(o), rfc3339(parseTime(o.metadata?.creationTimestamp))];
  },
};

/** Go's Time.UTC().Format(time.RFC3339): whole seconds; the zero time for an unset timestamp. */
function rfc3339(ms: number | undefined): string {
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return `${new Date(ms - (ms % 1000 + 1000) % 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * The cell for a value a column's path found, by the column's type (tableconvertor cellForJSONValue).
 * A `string` column prints the value as jsonpath does: objects and arrays as JSON, null as `<no value>`.
 */
function cellFor(type: string, value: unknown, now: Date): unknown {
  const literal = exactLiteral(value);
  if (literal !== undefined) {
    // An int64 past what a double holds: whole as an integer cell (the marked string becomes the literal when the row is
    // written, restoreIntegers), as its digits in a string one; a float64 rounds it, as kube's would.
    if (type === 'string') return literal;
    if (type === 'integer') return value;
    return type === 'number' ? Number(literal) : null;
  }
  if (type === 'string') {
    if (value === null || value === undefined) return '<no value>';
    if (typeof value === 'object') return restoreIntegers(goJson(value));
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return goScalar(value);
    return null;
  }
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      // float64 values are truncated by the int64 conversion.
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      // metav1.Time.UnmarshalQueryParameter: '' and "null" are the zero time, anything else RFC 3339.
      if (value === '' || value === 'null') return '<unknown>';
      const t = parseTime(value);
      return t === undefined ? '<invalid>' : humanDuration(now.getTime() - t);
    }
    default:
      return null;
  }
}

interface ParsedColumn {
  definition: TableColumnDefinition;
  path: JsonPath;
}

/**
 * A printer for a CRD version's printer columns: Name first, then each column (the Age default when
 * the list is empty). An unparsable JSONPath — the CRD's validation would have refused it — falls
 * back to defaultPrinter, as tableconvertor.New's caller does.
 */
export function customResourcePrinter(columns: readonly PrinterColumn[]): ResourcePrinter {
  const parsed: ParsedColumn[] = [];
  for (const c of columns.length > 0 ? columns : DEFAULT_CRD_COLUMNS) {
    const result = parseJsonPath(c.jsonPath);
    if (!result.ok) return defaultPrinter;
    const description =
      c.description !== undefined && c.description !== ''
        ? c.description
        : `Custom resource definition column (in JSONPath format): ${c.jsonPath}`;
    parsed.push({
      definition: column(c.name, c.type, description, { format: c.format ?? '', priority: c.priority ?? 0 }),
      path: result.path,
    });
  }
  return {
    columns: [NAME_COLUMN, ...parsed.map((p) => p.definition)],
    exactIntegers: true,
    cells(o: KubeObject, now: Date) {
      const cells: unknown[] = [nameOf(o)];
      for (const { definition, path } of parsed) {
        const results = findResults(path, o);
        // Missing keys and evaluation errors both leave the cell empty (null); only the first result counts.
        cells.push(results === undefined || results.length === 0 ? null : cellFor(definition.type, results[0], now));
      }
      return cells;
    },
  };
}
