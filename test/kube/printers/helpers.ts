// Shorthands for the printer tests: kube's cells and column shapes for a group/resource.

import { resourcePrinterFor } from '../../../src/kube/printers/index.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { NOW } from './clock.js';

/** kube's cells for an object of `group/resource`, without our Cluster column, printed at NOW. */
export function cellsOf(group: string, resource: string, obj: KubeObject): unknown[] {
  return resourcePrinterFor({ group, resource }).cells(obj, NOW);
}

/** [name, type, format, priority] of each of kube's columns for `group/resource`. */
export function columnsOf(group: string, resource: string): Array<[string, string, string, number]> {
  return resourcePrinterFor({ group, resource }).columns.map((c) => [c.name, c.type, c.format, c.priority]);
}
