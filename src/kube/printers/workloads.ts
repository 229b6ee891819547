// Controllers of pods: ports of printDeployment, printReplicaSet, printStatefulSet, printDaemonSet,
// printReplicationController and printControllerRevision.

import type { KubeObject } from '../types.js';
import {
  AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, ageOf, column, containerCells, nameOf, wide,
} from './columns.js';
import { DOC } from './descriptions.js';
import { at, int, obj, objects, str, stringMap, type JsonObject } from './fields.js';
import { formatLabelSelector, formatLabels, selectorOrInvalid } from './labels.js';
import type { ResourcePrinter } from './types.js';

function templateContainers(o: KubeObject): [string, string] {
  return containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
}

export const deploymentPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', DOC.deployUpdated),
    column('Available', 'string', DOC.deployAvailable),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    wide('Selector', 'string', DOC.deploySelector),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    return [
      nameOf(o),
      `${int(status.readyReplicas)}/${int(spec.replicas)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      ageOf(o, now),
      ...templateContainers(o),
      // printDeployment uses the selector's String() directly: '' when empty, `<invalid>` if bad.
      selectorOrInvalid(spec.selector),
    ];
  },
};

/** printReplicaSet and printReplicationController: the same columns, told apart by their descriptions and selector. */
function replicasPrinter(doc: { desired: string; current: string; ready: string; selector: string }, selector: (spec: JsonObject) => string): ResourcePrinter {
  return {
    columns: [
      NAME_COLUMN,
      column('Desired', 'integer', doc.desired),
      column('Current', 'integer', doc.current),
      column('Ready', 'integer', doc.ready),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      wide('Selector', 'string', doc.selector),
    ],
    cells(o, now) {
      const spec = obj(o.spec);
      const status = obj(o.status);
      return [
        nameOf(o),
        int(spec.replicas),
        int(status.replicas),
        int(status.readyReplicas),
        ageOf(o, now),
        ...templateContainers(o),
        selector(spec),
      ];
    },
  };
}

export const replicaSetPrinter = replicasPrinter(
  { desired: DOC.rsSpecReplicas, current: DOC.rsStatusReplicas, ready: DOC.rsReadyReplicas, selector: DOC.rsSelector },
  (spec) => formatLabelSelector(spec.selector),
);

// A ReplicationController's selector is a plain label map.
export const replicationControllerPrinter = replicasPrinter(
  { desired: DOC.rcSpecReplicas, current: DOC.rcStatusReplicas, ready: DOC.rcReadyReplicas, selector: DOC.rcSelector },
  (spec) => formatLabels(stringMap(spec.selector)),
);

export const statefulSetPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
  ],
  cells(o, now) {
    return [
      nameOf(o),
      `${int(at(o, 'status', 'readyReplicas'))}/${int(at(o, 'spec', 'replicas'))}`,
      ageOf(o, now),
      ...templateContainers(o),
    ];
  },
};

export const daemonSetPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', DOC.dsDesired),
    column('Current', 'integer', DOC.dsCurrent),
    column('Ready', 'integer', DOC.dsReady),
    column('Up-to-date', 'integer', DOC.dsUpdated),
    column('Available', 'integer', DOC.dsAvailable),
    column('Node Selector', 'string', DOC.nodeSelector),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    wide('Selector', 'string', DOC.dsSelector),
  ],
  cells(o, now) {
    const status = obj(o.status);
    return [
      nameOf(o),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(stringMap(at(o, 'spec', 'template', 'spec', 'nodeSelector'))),
      ageOf(o, now),
      ...templateContainers(o),
      formatLabelSelector(at(o, 'spec', 'selector')),
    ];
  },
};

/** Port of printControllerRevision: the controlling owner as `kind.group/name`, lower-cased. */
export const controllerRevisionPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', DOC.controllerRevision),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const owner = objects(o.metadata?.ownerReferences).find((ref) => ref.controller === true);
    let controller = '<none>';
    if (owner !== undefined) {
      const apiVersion = str(owner.apiVersion);
      const slash = apiVersion.indexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      const kind = str(owner.kind);
      // formatResourceName: a GroupKind with neither part set prints the bare name.
      if (kind === '' && group === '') controller = str(owner.name);
      else controller = `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${str(owner.name)}`;
    }
    return [nameOf(o), controller, int(o.revision), ageOf(o, now)];
  },
};
