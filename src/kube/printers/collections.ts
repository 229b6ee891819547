// Tables for Clusterpedia's collection resources: port of collectionresources/rest.go ConvertToTable.

import { CLUSTER_ANNOTATION, parseGroupVersion, type KubeObject, type ListMeta } from '../types.js';
import { humanDuration } from './duration.js';
import { arr, isObject, parseTime, str } from './fields.js';
import { rowObject, tableMetadata, type TableOptions } from './table.js';
import type { Table, TableColumnDefinition } from './types.js';

/** Clusterpedia declares these columns with a name and type only; the rest are Go zero values. */
function bare(name: string, format = ''): TableColumnDefinition {
  return { name, type: 'string', format, description: '', priority: 0 };
}

export const COLLECTION_COLUMNS: readonly TableColumnDefinition[] = [
  bare('Cluster'),
  bare('Group'),
  bare('Version'),
  bare('Kind'),
  bare('Namespace'),
  bare('Name', 'name'),
  bare('Age'),
];

export const COLLECTION_LIST_COLUMNS: readonly TableColumnDefinition[] = [bare('Name'), bare('Resources')];

/** One collection's items, whatever their kinds: Cluster, Group, Version, Kind, Namespace, Name, Age. */
export function collectionTable(items: Iterable<KubeObject>, listMeta: ListMeta, opts: TableOptions): Table {
  const rows = [];
  for (const item of items) {
    const { group, version } = parseGroupVersion(str(item.apiVersion));
    const created = parseTime(item.metadata?.creationTimestamp);
    rows.push({
      cells: [
        item.metadata?.annotations?.[CLUSTER_ANNOTATION] ?? '',
        group,
        version,
        str(item.kind),
        str(item.metadata?.namespace),
        str(item.metadata?.name),
        created === undefined ? '<unknown>' : humanDuration(opts.now.getTime() - created),
      ],
      object: rowObject(item, opts.includeObject),
    });
  }
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: tableMetadata(listMeta),
    columnDefinitions: opts.noHeaders === true ? null : [...COLLECTION_COLUMNS],
    rows,
  };
}

/**
 * The list of collections: Name and Resources, `group.resource` per type joined by commas (`*` for
 * a whole group, `*` alone when a collection has no fixed types, such as `any`).
 */
export function collectionListTable(collections: Iterable<KubeObject>, opts: Omit<TableOptions, 'now'>): Table {
  const rows = [];
  for (const c of collections) {
    const types = arr(c.resourceTypes).filter(isObject);
    const resources =
      types.length === 0 ? '*' : types.map((t) => `${str(t.group)}.${str(t.resource) || '*'}`).join(',');
    rows.push({ cells: [str(c.metadata?.name), resources], object: rowObject(c, opts.includeObject) });
  }
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: opts.noHeaders === true ? null : [...COLLECTION_LIST_COLUMNS],
    rows,
  };
}
