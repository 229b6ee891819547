// Clusterpedia's collection resources as Tables (collectionresources/rest.go ConvertToTable).

import { describe, expect, it } from 'vitest';
import { COLLECTION_COLUMNS, collectionListTable, collectionTable } from '../../../src/kube/printers/index.js';
import { CLUSTER_ANNOTATION } from '../../../src/kube/types.js';
import { HOUR, NOW, ago } from './clock.js';

describe('a collection', () => {
  it('has Clusterpedia’s columns, described by name and type only', () => {
    expect(COLLECTION_COLUMNS.map((c) => [c.name, c.type, c.format, c.description, c.priority])).toEqual([
      ['Cluster', 'string', '', '', 0],
      ['Group', 'string', '', '', 0],
      ['Version', 'string', '', '', 0],
      ['Kind', 'string', '', '', 0],
      ['Namespace', 'string', '', '', 0],
      ['Name', 'string', 'name', '', 0],
      ['Age', 'string', '', '', 0],
    ]);
  });

  it('prints each item’s cluster, group/version/kind, namespace, name and age', () => {
    const items = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop', creationTimestamp: ago(5 * HOUR), annotations: { [CLUSTER_ANNOTATION]: 'c1' } },
      },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    ];
    const table = collectionTable(items, { continue: 'abc' }, { now: NOW });
    expect(table.metadata).toEqual({ continue: 'abc' });
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['c1', 'apps', 'v1', 'Deployment', 'shop', 'web', '5h'],
      ['', '', 'v1', 'Namespace', '', 'shop', '<unknown>'],
    ]);
    expect(table.rows[0]?.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: items[0]?.metadata });
    expect(collectionTable(items, {}, { now: NOW, noHeaders: true }).columnDefinitions).toBeNull();
  });
});

describe('the collection list', () => {
  it('prints Name and the group.resource of each type', () => {
    const table = collectionListTable([
      { metadata: { name: 'any' } },
      { metadata: { name: 'workloads' }, resourceTypes: [{ group: 'apps', version: 'v1', resource: 'deployments' }, { group: 'apps', version: 'v1', resource: 'daemonsets' }] },
      { metadata: { name: 'kuberesources' }, resourceTypes: [{ group: '' }, { group: 'apps' }] },
    ], {});
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Resources']);
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['any', '*'],
      ['workloads', 'apps.deployments,apps.daemonsets'],
      ['kuberesources', '.*,apps.*'],
    ]);
  });
});
