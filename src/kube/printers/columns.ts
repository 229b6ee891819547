// Building blocks shared by the printer families: column constructors and the cells most tables repeat.

import type { KubeObject } from '../types.js';
import { DOC } from './descriptions.js';
import { translateTimestampSince } from './duration.js';
import { objects, str } from './fields.js';
import type { TableColumnDefinition } from './types.js';

/** A column as kube declares it; format and priority default to Go's zero values. */
export function column(
  name: string,
  type: string,
  description: string,
  opts: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/** A priority-1 column: shown by kubectl only with `-o wide`. */
export function wide(name: string, type: string, description: string): TableColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

/** The `Name` column every kube printer starts with. */
export const NAME_COLUMN = column('Name', 'string', DOC.name, { format: 'name' });
/** The `Age` column: a string cell holding a human duration. */
export const AGE_COLUMN = column('Age', 'string', DOC.creationTimestamp);
export const CONTAINERS_COLUMN = wide('Containers', 'string', 'Names of each container in the template.');
export const IMAGES_COLUMN = wide('Images', 'string', 'Images referenced by each container in the template.');

export function nameOf(obj: KubeObject): string {
  return str(obj.metadata?.name);
}

/** The Age cell: translateTimestampSince(creationTimestamp). */
export function ageOf(obj: KubeObject, now: Date): string {
  return translateTimestampSince(obj.metadata?.creationTimestamp, now);
}

/** Port of layoutContainerCells: container names and images, comma-joined. */
export function containerCells(containers: unknown): [names: string, images: string] {
  const list = objects(containers);
  return [list.map((c) => str(c.name)).join(','), list.map((c) => str(c.image)).join(',')];
}

/** Port of printBoolPtr: `True`, `False`, or `<unset>` for a nil pointer. */
export function boolPtrCell(v: boolean | undefined): string {
  if (v === undefined) return '<unset>';
  return v ? 'True' : 'False';
}

/**
 * The loop kube's formatters (formatDiscoveryPorts, formatStorageVersions, …) run before listWithMoreString: the
 * first `max` of `items`, then how many more there were.
 */
export function firstWithMore(items: Iterable<string>, max = 3): string {
  const list: string[] = [];
  let count = 0;
  for (const item of items) {
    if (list.length < max) list.push(item);
    count++;
  }
  return listWithMore(list, count > max, count, max);
}

/** Port of listWithMoreString: the first `max` entries and how many were left out. */
export function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const joined = list.join(',');
  if (more) return `${joined} + ${count - max} more...`;
  return joined === '' ? '<unset>' : joined;
}
