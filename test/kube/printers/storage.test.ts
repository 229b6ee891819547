// PersistentVolumes, PersistentVolumeClaims, StorageClasses and the CSI kinds: kube's
// TestPrintPersistentVolume, TestPrintPersistentVolumeClaim, TestPrintStorageClass and
// TestPrintCSIDriver/CSINode/VolumeAttachment-style cases.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

describe('persistentvolumes (TestPrintPersistentVolume)', () => {
  it('have printPersistentVolume’s columns', () => {
    expect(columnsOf('', 'persistentvolumes').map((c) => `${c[0]}:${c[3]}`)).toEqual([
      'Name:0', 'Capacity:0', 'Access Modes:0', 'Reclaim Policy:0', 'Status:0', 'Claim:0', 'StorageClass:0',
      'VolumeAttributesClass:0', 'Reason:0', 'Age:0', 'VolumeMode:1',
    ]);
  });

  const claimRef = { namespace: 'default', name: 'test' };
  it.each<[string, Record<string, unknown>, Record<string, unknown>, unknown[]]>([
    [
      'bound',
      { claimRef, capacity: { storage: '4Gi' }, accessModes: ['ReadOnlyMany'], persistentVolumeReclaimPolicy: 'Retain' },
      { phase: 'Bound' },
      ['test1', '4Gi', 'ROX', 'Retain', 'Bound', 'default/test', '', '<unset>', '', '<unknown>', '<unset>'],
    ],
    [
      'failed, with a reason',
      { claimRef, capacity: { storage: '4Gi' }, accessModes: ['ReadOnlyMany'] },
      { phase: 'Failed', reason: 'failed' },
      ['test1', '4Gi', 'ROX', '', 'Failed', 'default/test', '', '<unset>', 'failed', '<unknown>', '<unset>'],
    ],
    [
      'available, block mode, every access mode once and in kube’s order',
      { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOncePod', 'ReadWriteMany', 'ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteOnce'], volumeMode: 'Block', storageClassName: 'fast', volumeAttributesClassName: 'gold' },
      { phase: 'Available' },
      ['test1', '10Gi', 'RWO,ROX,RWX,RWOP', '', 'Available', '', 'fast', 'gold', '', '<unknown>', 'Block'],
    ],
    [
      'no capacity prints the zero quantity; the beta annotation wins over the class field',
      { storageClassName: 'ignored' },
      {},
      ['test1', '0', '', '', '', '', 'slow', '<unset>', '', '<unknown>', '<unset>'],
    ],
  ])('%s', (name, spec, status, want) => {
    const annotations: Record<string, string> = name.includes('beta annotation') ? { 'volume.beta.kubernetes.io/storage-class': 'slow' } : {};
    expect(cellsOf('', 'persistentvolumes', { metadata: { name: 'test1', annotations }, spec, status })).toEqual(want);
  });

  it('print Terminating once deletion started', () => {
    const pv: KubeObject = { metadata: { name: 'pv', deletionTimestamp: ago(1000) }, spec: {}, status: { phase: 'Released' } };
    expect(cellsOf('', 'persistentvolumes', pv)[4]).toBe('Terminating');
  });
});

describe('persistentvolumeclaims (TestPrintPersistentVolumeClaim)', () => {
  it('have printPersistentVolumeClaim’s columns', () => {
    expect(columnsOf('', 'persistentvolumeclaims').map((c) => `${c[0]}:${c[3]}`)).toEqual([
      'Name:0', 'Status:0', 'Volume:0', 'Capacity:0', 'Access Modes:0', 'StorageClass:0', 'VolumeAttributesClass:0',
      'Age:0', 'VolumeMode:1',
    ]);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, unknown[]]>([
    [
      'bound, filesystem',
      { volumeName: 'my-volume', volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } } },
      { phase: 'Bound', accessModes: ['ReadOnlyMany'], capacity: { storage: '4Gi' } },
      ['test1', 'Bound', 'my-volume', '4Gi', 'ROX', '', '<unset>', '<unknown>', 'Filesystem'],
    ],
    [
      'pending: no volume, so capacity and modes stay blank',
      { volumeMode: 'Block', storageClassName: 'standard', resources: { requests: { storage: '1Gi' } }, accessModes: ['ReadWriteOnce'] },
      { phase: 'Pending', accessModes: ['ReadOnlyMany'], capacity: { storage: '4Gi' } },
      ['test1', 'Pending', '', '', '', 'standard', '<unset>', '<unknown>', 'Block'],
    ],
    [
      'volume mode unset, a volume attributes class',
      { volumeName: 'my-volume', volumeAttributesClassName: 'gold' },
      { phase: 'Bound', accessModes: ['ReadWriteOncePod'], capacity: { storage: '10Gi' } },
      ['test1', 'Bound', 'my-volume', '10Gi', 'RWOP', '', 'gold', '<unknown>', '<unset>'],
    ],
    [
      'bound without reported capacity',
      { volumeName: 'v' },
      { phase: 'Bound' },
      ['test1', 'Bound', 'v', '0', '', '', '<unset>', '<unknown>', '<unset>'],
    ],
  ])('%s', (_name, spec, status, want) => {
    expect(cellsOf('', 'persistentvolumeclaims', { metadata: { name: 'test1' }, spec, status })).toEqual(want);
  });

  it('prefer the beta storage-class annotation and print Terminating when deleting', () => {
    const pvc: KubeObject = {
      metadata: { name: 'c', deletionTimestamp: ago(1000), annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' } },
      spec: { storageClassName: 'modern' },
      status: { phase: 'Bound' },
    };
    expect(cellsOf('', 'persistentvolumeclaims', pvc).slice(0, 6)).toEqual(['c', 'Terminating', '', '', '', 'legacy']);
  });
});

describe('storageclasses (TestPrintStorageClass)', () => {
  it('print defaults for unset policies and mark the default class', () => {
    expect(columnsOf('storage.k8s.io', 'storageclasses').map((c) => c[0])).toEqual(
      ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
    );
    expect(cellsOf('storage.k8s.io', 'storageclasses', { metadata: { name: 'sc1' }, provisioner: 'kubernetes.io/glusterfs' }))
      .toEqual(['sc1', 'kubernetes.io/glusterfs', 'Delete', 'Immediate', false, '<unknown>']);
    expect(cellsOf('storage.k8s.io', 'storageclasses', {
      metadata: { name: 'sc2', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'kubernetes.io/nfs',
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: true,
    })).toEqual(['sc2 (default)', 'kubernetes.io/nfs', 'Retain', 'WaitForFirstConsumer', true, '<unknown>']);
    expect(cellsOf('storage.k8s.io', 'storageclasses', {
      metadata: { name: 'sc3', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } },
    })[0]).toBe('sc3 (default)');
  });
});

describe('CSI kinds', () => {
  it('print CSIDrivers with kube’s defaults for unset fields (TestPrintCSIDriver)', () => {
    expect(cellsOf('storage.k8s.io', 'csidrivers', { metadata: { name: 'driver1' }, spec: {} }))
      .toEqual(['driver1', true, false, false, '<unset>', false, '<none>', '<unknown>']);
    expect(cellsOf('storage.k8s.io', 'csidrivers', {
      metadata: { name: 'driver2' },
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        storageCapacity: true,
        tokenRequests: [{ audience: 'vault' }, { audience: 'gcp', expirationSeconds: 3600 }],
        requiresRepublish: true,
        volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      },
    })).toEqual(['driver2', false, true, true, 'vault,gcp', true, 'Persistent,Ephemeral', '<unknown>']);
    expect(cellsOf('storage.k8s.io', 'csidrivers', { metadata: { name: 'd3' }, spec: { tokenRequests: [] } })[4]).toBe('');
  });

  it('count a CSINode’s drivers and print VolumeAttachments and CSIStorageCapacities', () => {
    expect(cellsOf('storage.k8s.io', 'csinodes', { metadata: { name: 'n1' }, spec: { drivers: [{ name: 'a' }, { name: 'b' }] } }))
      .toEqual(['n1', 2, '<unknown>']);
    expect(columnsOf('storage.k8s.io', 'volumeattachments')[1]).toEqual(['Attacher', 'string', 'name', 0]);
    expect(cellsOf('storage.k8s.io', 'volumeattachments', {
      metadata: { name: 'va1' },
      spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'node1' },
      status: { attached: true },
    })).toEqual(['va1', 'csi.example.com', 'pv1', 'node1', true, '<unknown>']);
    expect(cellsOf('storage.k8s.io', 'csistoragecapacities', { metadata: { name: 'c1' }, storageClassName: 'fast', capacity: '100Gi' }))
      .toEqual(['c1', 'fast', '100Gi']);
    expect(cellsOf('storage.k8s.io', 'csistoragecapacities', { metadata: { name: 'c2' }, storageClassName: 'fast' })).toEqual(['c2', 'fast', '<unset>']);
  });
});
