// Namespaced configuration and accounts: ports of printConfigMap, printSecret, printServiceAccount,
// printNamespace and printResourceQuota.

import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf } from './columns.js';
import { DOC } from './descriptions.js';
import { arr, at, mapLen, obj, str } from './fields.js';
import { compareGo } from './labels.js';
import type { ResourcePrinter } from './types.js';

export const configMapPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Data', 'string', DOC.configMapData), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), mapLen(o.data) + mapLen(o.binaryData), ageOf(o, now)];
  },
};

export const secretPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', DOC.secretType),
    column('Data', 'string', DOC.secretData),
    AGE_COLUMN,
  ],
  cells(o, now) {
    // The v1→internal conversion folds write-only stringData into data; count the union of keys.
    const keys = new Set([...Object.keys(obj(o.data)), ...Object.keys(obj(o.stringData))]);
    return [nameOf(o), str(o.type), keys.size, ageOf(o, now)];
  },
};

export const serviceAccountPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Secrets', 'string', DOC.serviceAccountSecrets), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), arr(o.secrets).length, ageOf(o, now)];
  },
};

export const namespacePrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), str(at(o, 'status', 'phase')), ageOf(o, now)];
  },
};

/**
 * Port of printResourceQuota: `resource: used/hard` for every hard limit, sorted by name, split into
 * requests and `limits.*`. Quantities print as stored: kube serialised them in canonical form, which
 * is what Quantity.String() gives back; an absent used amount is the zero quantity, `0`.
 */
export const resourceQuotaPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const hard = obj(at(o, 'status', 'hard'));
    const used = obj(at(o, 'status', 'used'));
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort(compareGo)) {
      const pieces = resource.split('.');
      const target = pieces.length > 1 && pieces[0] === 'limits' ? limits : requests;
      target.push(`${resource}: ${quantity(used[resource])}/${quantity(hard[resource])}`);
    }
    return [nameOf(o), requests.join(', '), limits.join(', '), ageOf(o, now)];
  },
};

/** A stored resource.Quantity as its String(); missing is the zero quantity. */
export function quantity(v: unknown): string {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number') return String(v);
  return '0';
}
