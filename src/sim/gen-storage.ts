// The StatefulSets' storage, as on an EKS cluster with the EBS CSI driver: each ordinal's claim from the
// StatefulSet's volumeClaimTemplates (`<template>-<sts>-<ordinal>`), bound to a volume the driver provisioned for it
// (`pvc-<claim uid>`, in the zone of the node the ordinal first ran on). Claims are kept when a StatefulSet scales down
// or goes (persistentVolumeClaimRetentionPolicy Retain, the default), and carry no owner. Both carry their in-use
// protection finalizer (volume-protection.ts).
import { iso } from './gen-meta.js';
import { genUid, podCreatedMs, podNode } from './gen-pods.js';
import { hexFor } from './prng.js';
import { CLAIM_PROTECTION, VOLUME_PROTECTION } from './volume-protection.js';
import type { Topology, Workload } from './topology.js';
import { rec, recs, type Rec, type SimObject } from './types.js';

export const STORAGE_CLASS = 'gp3';
const PROVISIONER = 'ebs.csi.aws.com';
/** The zone label of EBS volumes' node affinity. */
const ZONE_KEY = 'topology.ebs.csi.aws.com/zone';

/** The claim a StatefulSet's ordinal gets from one of its volumeClaimTemplates (kube's getPersistentVolumeClaimName). */
export const claimName = (template: string, sts: string, ordinal: number): string => `${template}-${sts}-${ordinal}`;

/** The volume bound to the claim with `uid` (the external provisioner's name for it). */
export const volumeNameFor = (claimUid: string): string => `pvc-${claimUid}`;

/** The annotations the PV controller and the provisioner leave on a claim they bound. */
function boundClaimAnnotations(): Record<string, string> {
  return { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.beta.kubernetes.io/storage-provisioner': PROVISIONER, 'volume.kubernetes.io/storage-provisioner': PROVISIONER };
}

/**
 * A StatefulSet's claim for `ordinal` from its `template` (one of spec.volumeClaimTemplates): its labels the
 * StatefulSet's selector's, as kube's controller sets them; Pending, not yet bound.
 */
export function newClaim(sts: SimObject, template: Rec, ordinal: number): SimObject {
  const meta = rec(template.metadata);
  const spec = rec(template.spec);
  return {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimName(String(meta.name ?? ''), sts.metadata.name ?? '', ordinal), namespace: sts.metadata.namespace,
      labels: { ...(rec(meta.labels) as Record<string, string>), ...(rec(rec(rec(sts.spec).selector).matchLabels) as Record<string, string>) },
      finalizers: [CLAIM_PROTECTION],
    },
    spec: { accessModes: spec.accessModes ?? ['ReadWriteOnce'], resources: rec(spec.resources), storageClassName: spec.storageClassName ?? STORAGE_CLASS, volumeMode: spec.volumeMode ?? 'Filesystem' },
    status: { phase: 'Pending' },
  };
}

/** The volume provisioned for `claim` (stored, with its uid) in `zone`, bound to it, created at `at`. */
export function volumeFor(claim: SimObject, zone: string, at: string, handle: string): SimObject {
  const spec = rec(claim.spec);
  return {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: { name: volumeNameFor(claim.metadata.uid ?? ''), creationTimestamp: at, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER, 'volume.kubernetes.io/provisioner-deletion-secret-name': '', 'volume.kubernetes.io/provisioner-deletion-secret-namespace': '' }, finalizers: [VOLUME_PROTECTION] },
    spec: {
      accessModes: spec.accessModes, capacity: { storage: rec(rec(spec.resources).requests).storage ?? '10Gi' },
      claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: claim.metadata.name, namespace: claim.metadata.namespace, uid: claim.metadata.uid, ...(claim.metadata.resourceVersion ? { resourceVersion: claim.metadata.resourceVersion } : {}) },
      csi: { driver: PROVISIONER, fsType: 'ext4', volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': `1733000000000-1234-${PROVISIONER}` }, volumeHandle: handle },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }] } },
      persistentVolumeReclaimPolicy: 'Delete', storageClassName: spec.storageClassName, volumeMode: spec.volumeMode,
    },
    status: { phase: 'Bound', lastPhaseTransitionTime: at },
  };
}

/** `claim` bound to `volume`: the binder's annotations, its volume's name, capacity and access modes. */
export function boundClaim(claim: SimObject, volume: SimObject): SimObject {
  const vspec = rec(volume.spec);
  return {
    ...claim,
    metadata: { ...claim.metadata, annotations: { ...(claim.metadata.annotations ?? {}), ...boundClaimAnnotations() } },
    spec: { ...rec(claim.spec), volumeName: volume.metadata.name },
    status: { phase: 'Bound', accessModes: vspec.accessModes, capacity: vspec.capacity },
  };
}

/** The generated claims' refs: workload index × 4096 + ordinal, for each StatefulSet's replicas (one template each). */
export function claimRefs(t: Topology): number[] {
  const out: number[] = [];
  for (const w of t.workloads) if (w.kind === 'StatefulSet') for (let r = 0; r < w.replicas; r++) out.push(w.index * 4096 + r);
  return out;
}

function generated(t: Topology, ref: number): { w: Workload; r: number; name: string; uid: string; at: string; zone: string } {
  const w = t.workloads[Math.floor(ref / 4096)] as Workload;
  const r = ref % 4096;
  const name = claimName('data', w.name, r);
  // Made just before the ordinal's first pod; in the zone of the node it runs on.
  const at = iso(Math.max(w.createdMs, podCreatedMs(t, w, r) - 2_000));
  return { w, r, name, uid: genUid(t, 'persistentvolumeclaims', `${w.namespace}/${name}`), at, zone: podNode(t, w, r)?.zone ?? 'us-east-1a' };
}

const template = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, volumeMode: 'Filesystem' } };

/** The key of a generated claim ("namespace/name"). */
export function claimKey(t: Topology, ref: number): string {
  const g = generated(t, ref);
  return `${g.w.namespace}/${g.name}`;
}

/** A generated StatefulSet ordinal's claim, bound. */
export function buildClaim(t: Topology, ref: number): SimObject {
  const g = generated(t, ref);
  const claim = newClaim({ metadata: { name: g.w.name, namespace: g.w.namespace }, spec: { selector: { matchLabels: { app: g.w.app } } } }, template, g.r);
  claim.metadata = { ...claim.metadata, uid: g.uid, creationTimestamp: g.at };
  return boundClaim(claim, buildVolume(t, ref));
}

/** The volume of a generated claim. */
export function buildVolume(t: Topology, ref: number): SimObject {
  const g = generated(t, ref);
  const claim = newClaim({ metadata: { name: g.w.name, namespace: g.w.namespace }, spec: {} }, template, g.r);
  claim.metadata.uid = g.uid;
  const volume = volumeFor(claim, g.zone, g.at, `vol-0${hexFor(16, 'ebs', g.uid)}`);
  volume.metadata.uid = genUid(t, 'persistentvolumes', volumeNameFor(g.uid));
  return volume;
}

/** The volume names of the generated claims, sorted with them by ref. */
export function volumeKey(t: Topology, ref: number): string {
  return volumeNameFor(generated(t, ref).uid);
}

/** What the templates of a StatefulSet ask for, by claim template (its volumeClaimTemplates). */
export function claimTemplates(sts: SimObject): Rec[] {
  return recs(rec(sts.spec).volumeClaimTemplates);
}
