// The remembered key → RV map, the "newer" rule of reference §5.4, and the object shaping before storage.
import { describe, expect, it } from 'vitest';
import { prepareObject, objectKey, splitKey } from '../../../src/roles/synchro/prune.js';
import { isNewer, VersionMap } from '../../../src/roles/synchro/versions.js';

describe('VersionMap', () => {
  it('round-trips numeric and non-numeric RVs', () => {
    const m = VersionMap.from([['a', '12'], ['b', 'x-1'], ['c', '007'], ['d', '12345678901234567890']]);
    expect(m.get('a')).toBe('12');
    expect(m.get('b')).toBe('x-1');
    expect(m.get('c')).toBe('007');
    expect(m.get('d')).toBe('12345678901234567890');
    expect(m.size).toBe(4);
  });

  it('maxNumeric is the resume point, undefined when empty or any RV is not numeric', () => {
    expect(VersionMap.from([['a', '5'], ['b', '17'], ['c', '9']]).maxNumeric()).toBe('17');
    expect(new VersionMap().maxNumeric()).toBeUndefined();
    expect(VersionMap.from([['a', '5'], ['b', 'x']]).maxNumeric()).toBeUndefined();
  });

  it('absorb moves entries, the absorbed values winning', () => {
    const a = VersionMap.from([['x', '1'], ['y', '1']]);
    const b = VersionMap.from([['y', '2'], ['z', '2']]);
    a.absorb(b);
    expect([...a.keys()].sort()).toEqual(['x', 'y', 'z']);
    expect(a.get('y')).toBe('2');
    expect(b.size).toBe(0);
  });
});

describe('isNewer (reference §5.4)', () => {
  it('unknown → write; equal → no write; numerically greater → write; smaller → no write', () => {
    expect(isNewer('5', undefined)).toBe(true);
    expect(isNewer('5', '5')).toBe(false);
    expect(isNewer('10', '9')).toBe(true);
    expect(isNewer('9', '10')).toBe(false);
  });
  it('non-numeric RVs: any difference is newer', () => {
    expect(isNewer('b', 'a')).toBe(true);
    expect(isNewer('a', 'a')).toBe(false);
  });
});

describe('prepareObject', () => {
  const pod = () => ({
    metadata: {
      name: 'p', namespace: 'ns', resourceVersion: '3', managedFields: [{ manager: 'kubectl' }],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
    },
    spec: {},
  });

  it('prunes managedFields and last-applied, adds the cluster annotation, kind and apiVersion', () => {
    const o = prepareObject(pod(), 'c1', 'v1', 'Pod', { managedFields: true, lastAppliedConfiguration: true })!;
    expect(o.apiVersion).toBe('v1');
    expect(o.kind).toBe('Pod');
    expect(o.metadata.managedFields).toBeUndefined();
    expect(o.metadata.annotations).toEqual({ keep: 'me', 'shadow.clusterpedia.io/cluster-name': 'c1' });
  });

  it('keeps them when pruning is off', () => {
    const o = prepareObject(pod(), 'c1', 'apps/v1', 'Deployment', { managedFields: false, lastAppliedConfiguration: false })!;
    expect(o.metadata.managedFields).toHaveLength(1);
    expect(o.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBe('{}');
  });

  it('adds annotations to an object that had none; refuses an object without a name', () => {
    expect(prepareObject({ metadata: { name: 'n' } }, 'c', 'v1', 'Namespace', { managedFields: true, lastAppliedConfiguration: true })!.metadata.annotations)
      .toEqual({ 'shadow.clusterpedia.io/cluster-name': 'c' });
    expect(prepareObject({ metadata: {} }, 'c', 'v1', 'Pod', { managedFields: true, lastAppliedConfiguration: true })).toBeUndefined();
  });

  it('keys: ns/name or name; split back', () => {
    expect(objectKey({ metadata: { name: 'a', namespace: 'b' } })).toBe('b/a');
    expect(objectKey({ metadata: { name: 'a' } })).toBe('a');
    expect(splitKey('b/a')).toEqual({ namespace: 'b', name: 'a' });
    expect(splitKey('a')).toEqual({ namespace: '', name: 'a' });
  });
});
