// Nodes: port of printNode (STATUS with SchedulingDisabled, ROLES from labels, wide addresses and versions).

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf, wide } from './columns.js';
import { DOC } from './descriptions.js';
import { at, bool, obj, objects, str, stringMap } from './fields.js';
import { compareGo } from './labels.js';
import type { ResourcePrinter } from './types.js';

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** STATUS: Ready/NotReady from the last Ready condition, Unknown without one, then SchedulingDisabled. */
function nodeStatus(node: KubeObject): string {
  // kube builds a map by type, so a repeated condition type keeps its last entry.
  let ready: string | undefined;
  for (const c of objects(at(node, 'status', 'conditions'))) {
    if (c.type === 'Ready') ready = str(c.status);
  }
  const status: string[] = [];
  if (ready !== undefined) status.push(ready === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (bool(at(node, 'spec', 'unschedulable'))) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Port of findNodeRoles: `node-role.kubernetes.io/<role>` keys and `kubernetes.io/role=<role>`, sorted. */
function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(stringMap(node.metadata?.labels))) {
    if (k.startsWith(ROLE_LABEL_PREFIX)) {
      const role = k.slice(ROLE_LABEL_PREFIX.length);
      if (role !== '') roles.add(role);
    } else if (k === ROLE_LABEL && v !== '') {
      roles.add(v);
    }
  }
  const list = [...roles].sort(compareGo).join(',');
  return list === '' ? '<none>' : list;
}

/** The first address of a type, `<none>` when there is none. */
function address(node: KubeObject, type: string): string {
  const found = objects(at(node, 'status', 'addresses')).find((a) => a.type === type);
  return found === undefined ? '<none>' : str(found.address);
}

function orUnknown(s: string): string {
  return s === '' ? '<unknown>' : s;
}

export const nodePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE_COLUMN,
    column('Version', 'string', DOC.kubeletVersion),
    wide('Internal-IP', 'string', DOC.nodeAddresses),
    wide('External-IP', 'string', DOC.nodeAddresses),
    wide('OS-Image', 'string', DOC.osImage),
    wide('Kernel-Version', 'string', DOC.kernelVersion),
    wide('Container-Runtime', 'string', DOC.containerRuntimeVersion),
  ],
  cells(o, now) {
    const info = obj(at(o, 'status', 'nodeInfo'));
    return [
      nameOf(o),
      nodeStatus(o),
      nodeRoles(o),
      ageOf(o, now),
      str(info.kubeletVersion),
      address(o, 'InternalIP'),
      address(o, 'ExternalIP'),
      orUnknown(str(info.osImage)),
      orUnknown(str(info.kernelVersion)),
      orUnknown(str(info.containerRuntimeVersion)),
    ];
  },
};
