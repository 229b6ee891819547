// The status and scale subresources kube-apiserver has, and the Scale it makes of an object.
import { describe, expect, it } from 'vitest';
import { builtinSubresources, crdSubresources, scaleOf } from '../../src/kube/subresources.js';
import type { KubeObject } from '../../src/kube/types.js';

const meta = { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '42', creationTimestamp: '2024-01-01T00:00:00Z', generation: 3, labels: { a: 'b' } };

describe('which resources have status and scale', () => {
  it('knows the built-ins', () => {
    expect(builtinSubresources('apps', 'deployments')).toEqual({ status: true, scale: { kind: 'selector' } });
    expect(builtinSubresources('', 'replicationcontrollers')).toEqual({ status: true, scale: { kind: 'selectorMap' } });
    expect(builtinSubresources('', 'pods')).toEqual({ status: true });
    expect(builtinSubresources('apps', 'daemonsets')).toEqual({ status: true });
    expect(builtinSubresources('', 'configmaps')).toEqual({ status: false });
    expect(builtinSubresources('', 'deployments')).toEqual({ status: false });
  });

  it("reads a CRD version's subresources, and ignores a malformed scale", () => {
    expect(crdSubresources(undefined)).toEqual({ status: false });
    expect(crdSubresources({ status: {} })).toEqual({ status: true });
    expect(crdSubresources({ scale: { specReplicasPath: '.spec.n', statusReplicasPath: '.status.n', labelSelectorPath: '' } }))
      .toEqual({ status: false, scale: { kind: 'paths', paths: { specReplicasPath: '.spec.n', statusReplicasPath: '.status.n' } } });
    expect(crdSubresources({ status: {}, scale: { specReplicasPath: 7 } })).toEqual({ status: true });
    expect(crdSubresources({ status: null, scale: 'yes' })).toEqual({ status: false });
  });
});

describe('scaleOf', () => {
  it('copies the metadata kube copies and the cluster annotation, nothing else', () => {
    const d: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...meta, annotations: { 'shadow.clusterpedia.io/cluster-name': 'c1', other: 'x' } },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web', tier: 'fe' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }, { key: 'canary', operator: 'DoesNotExist' }] } },
      status: { replicas: 3 } };
    expect(scaleOf(d, { kind: 'selector' })).toEqual({
      kind: 'Scale', apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '42', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { 'shadow.clusterpedia.io/cluster-name': 'c1' } },
      spec: { replicas: 4 },
      // Sorted by key, set values sorted, as labels.Selector.String() prints them.
      status: { replicas: 3, selector: 'app=web,!canary,env in (dev,prod),tier=fe' },
    });
  });

  it('defaults spec.replicas to 1 and status.replicas to 0 on built-ins; zero replicas leave spec empty', () => {
    expect(scaleOf({ metadata: { name: 'a' }, spec: {} }, { kind: 'selector' })).toEqual({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'a' }, spec: { replicas: 1 }, status: { replicas: 0 } });
    expect(scaleOf({ metadata: { name: 'a' }, spec: { replicas: 0 }, status: { replicas: 2 } }, { kind: 'selector' }).spec).toEqual({});
  });

  it("a ReplicationController's selector is a label map", () => {
    const rc: KubeObject = { metadata: { name: 'rc' }, spec: { replicas: 2, selector: { z: '1', a: '2' } }, status: { replicas: 2 } };
    expect(scaleOf(rc, { kind: 'selectorMap' }).status).toEqual({ replicas: 2, selector: 'a=2,z=1' });
  });

  it("follows a CRD's paths; absent or non-integer replicas read 0, a non-string selector none", () => {
    const paths = { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready', labelSelectorPath: '.status.sel' };
    const cr: KubeObject = { metadata: { name: 'x' }, spec: { size: 5 }, status: { ready: 2, sel: 'app=x' } };
    expect(scaleOf(cr, { kind: 'paths', paths })).toMatchObject({ spec: { replicas: 5 }, status: { replicas: 2, selector: 'app=x' } });
    const odd: KubeObject = { metadata: { name: 'x' }, spec: { size: '5' }, status: { ready: 1.5, sel: { app: 'x' } } };
    expect(scaleOf(odd, { kind: 'paths', paths })).toMatchObject({ spec: {}, status: { replicas: 0 } });
    expect(scaleOf(odd, { kind: 'paths', paths }).status.selector).toBeUndefined();
  });
});
