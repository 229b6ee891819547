// The control plane's own bookkeeping: ports of printComponentStatus, printStorageVersion,
// printStorageVersionMigration and printLeaseCandidate.

import { AGE_COLUMN, NAME_COLUMN, ageOf, column, firstWithMore, nameOf } from './columns.js';
import { DOC } from './descriptions.js';
import { at, objects, optStr, str } from './fields.js';
import type { ResourcePrinter } from './types.js';

/** ComponentStatus has no Age column: kube-apiserver builds these objects on each request. */
export const componentStatusPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  cells(o) {
    // The first Healthy condition decides; without one the component is Unknown.
    const healthy = objects(o.conditions).find((c) => c.type === 'Healthy');
    if (healthy === undefined) return [nameOf(o), 'Unknown', '', ''];
    return [nameOf(o), healthy.status === 'True' ? 'Healthy' : 'Unhealthy', str(healthy.message), str(healthy.error)];
  },
};

/** Port of formatStorageVersions: up to three `apiServerID=encodingVersion`, `<unset>` for none. */
function storageVersions(list: unknown): string {
  return firstWithMore(objects(list).map((sv) => `${str(sv.apiServerID)}=${str(sv.encodingVersion)}`));
}

export const storageVersionPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('CommonEncodingVersion', 'string', DOC.svCommonEncodingVersion),
    column('StorageVersions', 'string', DOC.svStorageVersions),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [
      nameOf(o),
      optStr(at(o, 'status', 'commonEncodingVersion')) ?? '<unset>',
      storageVersions(at(o, 'status', 'storageVersions')),
      ageOf(o, now),
    ];
  },
};

/** kube declares this Name column, unlike its others, without the `name` format; and no Age column. */
export const storageVersionMigrationPrinter: ResourcePrinter = {
  columns: [column('Name', 'string', DOC.name), column('Resource', 'string', 'Fully qualified resource to migrate')],
  cells(o) {
    const gvr = (field: string): string => str(at(o, 'spec', 'resource', field));
    return [nameOf(o), `${gvr('resource')}.${gvr('version')}.${gvr('group')}`];
  },
};

export const leaseCandidatePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('LeaseName', 'string', DOC.leaseCandidateLeaseName),
    // kube looks these two up in ObjectMeta's docs, which have no such fields: they are empty.
    column('BinaryVersion', 'string', ''),
    column('EmulationVersion', 'string', ''),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = (field: string): string => str(at(o, 'spec', field));
    return [nameOf(o), spec('leaseName'), spec('binaryVersion'), spec('emulationVersion'), ageOf(o, now)];
  },
};
