// Dynamic resource allocation (resource.k8s.io) as kube 1.32 prints it: ports of printDeviceClass,
// printResourceClaim, printResourceClaimTemplate and printResourceSlice.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf } from './columns.js';
import { DOC } from './descriptions.js';
import { arr, at, objAt, parseTime, str } from './fields.js';
import type { ResourcePrinter } from './types.js';

/** Device classes and claim templates print only what every object has. */
export const nameAgePrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), ageOf(o, now)];
  },
};

/**
 * Port of resourceClaimState: comma-joined `deleted`, then `pending` (unallocated, not being
 * deleted) or `allocated` and, when some consumer holds it, `reserved`.
 */
function claimState(o: KubeObject): string {
  const states: string[] = [];
  const deleted = parseTime(o.metadata?.deletionTimestamp) !== undefined;
  if (deleted) states.push('deleted');
  if (objAt(o, 'status', 'allocation') === undefined) {
    if (!deleted) states.push('pending');
  } else {
    states.push('allocated');
    if (arr(at(o, 'status', 'reservedFor')).length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceClaimPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('State', 'string', 'A summary of the current state (allocated, pending, reserved, etc.).'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), claimState(o), ageOf(o, now)];
  },
};

export const resourceSlicePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Node', 'string', DOC.resourceSliceNodeName),
    column('Driver', 'string', DOC.resourceSliceDriver),
    column('Pool', 'string', DOC.resourcePoolName),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [
      nameOf(o),
      str(at(o, 'spec', 'nodeName')),
      str(at(o, 'spec', 'driver')),
      str(at(o, 'spec', 'pool', 'name')),
      ageOf(o, now),
    ];
  },
};
