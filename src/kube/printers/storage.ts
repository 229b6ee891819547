// Storage: ports of printPersistentVolume, printPersistentVolumeClaim, printStorageClass,
// printVolumeAttributesClass, printCSIDriver, printCSINode, printVolumeAttachment and printCSIStorageCapacity.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf, wide } from './columns.js';
import { quantity } from './config.js';
import { DOC } from './descriptions.js';
import { at, bool, obj, objAt, objects, optBool, optStr, parseTime, str, stringMap, strings } from './fields.js';
import type { ResourcePrinter } from './types.js';

/** core.BetaStorageClassAnnotation: the pre-1.6 way to name a class; it still wins over the field. */
const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** Port of helper.GetAccessModesAsString: fixed order, duplicates once. */
function accessModes(modes: unknown): string {
  const set = new Set(strings(modes));
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

/** Ports of GetPersistentVolumeClass / GetPersistentVolumeClaimClass. */
function storageClass(o: KubeObject): string {
  const annotations = stringMap(o.metadata?.annotations);
  const beta = annotations[BETA_STORAGE_CLASS];
  if (beta !== undefined) return beta;
  return optStr(at(o, 'spec', 'storageClassName')) ?? '';
}

/** Both volume kinds show Terminating instead of their phase once deletion started. */
function phaseOf(o: KubeObject): string {
  return parseTime(o.metadata?.deletionTimestamp) !== undefined ? 'Terminating' : str(at(o, 'status', 'phase'));
}

export const persistentVolumePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Capacity', 'string', DOC.pvCapacity),
    column('Access Modes', 'string', DOC.pvAccessModes),
    column('Reclaim Policy', 'string', DOC.pvReclaimPolicy),
    column('Status', 'string', DOC.pvPhase),
    column('Claim', 'string', DOC.pvClaimRef),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string', DOC.pvReason),
    AGE_COLUMN,
    wide('VolumeMode', 'string', DOC.pvVolumeMode),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const claimRef = objAt(spec, 'claimRef');
    return [
      nameOf(o),
      quantity(at(spec, 'capacity', 'storage')),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      phaseOf(o),
      claimRef === undefined ? '' : `${str(claimRef.namespace)}/${str(claimRef.name)}`,
      storageClass(o),
      optStr(spec.volumeAttributesClassName) ?? '<unset>',
      str(at(o, 'status', 'reason')),
      ageOf(o, now),
      optStr(spec.volumeMode) ?? '<unset>',
    ];
  },
};

export const persistentVolumeClaimPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', DOC.pvcPhase),
    column('Volume', 'string', DOC.pvcVolumeName),
    column('Capacity', 'string', DOC.pvcCapacity),
    column('Access Modes', 'string', DOC.pvcAccessModes),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE_COLUMN,
    wide('VolumeMode', 'string', DOC.pvcVolumeMode),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const volumeName = str(spec.volumeName);
    // Capacity and access modes are the bound volume's: blank until the claim is bound.
    const bound = volumeName !== '';
    return [
      nameOf(o),
      phaseOf(o),
      volumeName,
      bound ? quantity(at(o, 'status', 'capacity', 'storage')) : '',
      bound ? accessModes(at(o, 'status', 'accessModes')) : '',
      storageClass(o),
      optStr(spec.volumeAttributesClassName) ?? '<unset>',
      ageOf(o, now),
      optStr(spec.volumeMode) ?? '<unset>',
    ];
  },
};

/** storageutil.IsDefaultAnnotation reads both, the GA one and the beta one. */
const DEFAULT_SC_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** The name, with ` (default)` when any of `annotations` is "true" (a class marked the cluster's default). */
function nameMarkedDefault(o: KubeObject, annotations: readonly string[]): string {
  const set = stringMap(o.metadata?.annotations);
  return annotations.some((a) => set[a] === 'true') ? `${nameOf(o)} (default)` : nameOf(o);
}

export const storageClassPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Provisioner', 'string', DOC.scProvisioner),
    column('ReclaimPolicy', 'string', DOC.scReclaimPolicy),
    column('VolumeBindingMode', 'string', DOC.scBindingMode),
    column('AllowVolumeExpansion', 'string', DOC.scAllowExpansion),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [
      nameMarkedDefault(o, DEFAULT_SC_ANNOTATIONS),
      str(o.provisioner),
      optStr(o.reclaimPolicy) ?? 'Delete',
      optStr(o.volumeBindingMode) ?? 'Immediate',
      // Column type is string but kube sends the bool.
      optBool(o.allowVolumeExpansion) ?? false,
      ageOf(o, now),
    ];
  },
};

/** storageutil.AlphaIsDefaultVolumeAttributesClassAnnotation, the only default marker kube 1.32 reads. */
const DEFAULT_VAC_ANNOTATIONS = ['volumeattributesclass.alpha.kubernetes.io/is-default-class'];

export const volumeAttributesClassPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('DriverName', 'string', DOC.vacDriverName), AGE_COLUMN],
  cells(o, now) {
    return [nameMarkedDefault(o, DEFAULT_VAC_ANNOTATIONS), str(o.driverName), ageOf(o, now)];
  },
};

export const csiDriverPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('AttachRequired', 'boolean', DOC.csiAttachRequired),
    column('PodInfoOnMount', 'boolean', DOC.csiPodInfoOnMount),
    column('StorageCapacity', 'boolean', DOC.csiStorageCapacity),
    column('TokenRequests', 'string', DOC.csiTokenRequests),
    column('RequiresRepublish', 'boolean', DOC.csiRequiresRepublish),
    column('Modes', 'string', DOC.csiModes),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const modes = strings(spec.volumeLifecycleModes).join(',');
    // A nil tokenRequests is `<unset>`; an empty list is ''.
    const tokenRequests = Array.isArray(spec.tokenRequests)
      ? objects(spec.tokenRequests).map((t) => str(t.audience)).join(',')
      : '<unset>';
    return [
      nameOf(o),
      optBool(spec.attachRequired) ?? true,
      optBool(spec.podInfoOnMount) ?? false,
      optBool(spec.storageCapacity) ?? false,
      tokenRequests,
      optBool(spec.requiresRepublish) ?? false,
      modes === '' ? '<none>' : modes,
      ageOf(o, now),
    ];
  },
};

export const csiNodePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), objects(at(o, 'spec', 'drivers')).length, ageOf(o, now)];
  },
};

export const volumeAttachmentPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Attacher', 'string', DOC.vaAttacher, { format: 'name' }),
    column('PV', 'string', DOC.vaPersistentVolumeName),
    column('Node', 'string', DOC.vaNodeName),
    column('Attached', 'boolean', DOC.vaAttached),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    return [
      nameOf(o),
      str(spec.attacher),
      str(at(spec, 'source', 'persistentVolumeName')),
      str(spec.nodeName),
      bool(at(o, 'status', 'attached')),
      ageOf(o, now),
    ];
  },
};

export const csiStorageCapacityPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('StorageClassName', 'string', DOC.cscStorageClassName),
    column('Capacity', 'string', DOC.cscCapacity),
  ],
  cells(o) {
    const capacity = o.capacity === undefined || o.capacity === null ? '<unset>' : quantity(o.capacity);
    return [nameOf(o), str(o.storageClassName), capacity];
  },
};
