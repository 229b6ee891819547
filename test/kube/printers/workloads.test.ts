// Deployments, ReplicaSets, StatefulSets, DaemonSets, ReplicationControllers and ControllerRevisions:
// kube's TestPrintDeployment, TestPrintDaemonSet, TestPrintReplicaSet, TestPrintStatefulSet-style cases.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

/** 1.9s in the future: within the clock-skew tolerance, so the age prints `0s` (as kube's tests do). */
const justCreated = ago(-1900);
const template = {
  spec: {
    containers: [
      { name: 'fake-container1', image: 'fake-image1' },
      { name: 'fake-container2', image: 'fake-image2' },
    ],
  },
};

describe('deployments', () => {
  it('have printDeployment’s columns', () => {
    expect(columnsOf('apps', 'deployments')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Up-to-date', 'string', '', 0],
      ['Available', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('print ready/desired, updated, available (TestPrintDeployment)', () => {
    const d: KubeObject = {
      metadata: { name: 'test1', creationTimestamp: justCreated },
      spec: { replicas: 5, template, selector: { matchLabels: { foo: 'bar' } } },
      status: { replicas: 10, updatedReplicas: 2, availableReplicas: 1, unavailableReplicas: 4 },
    };
    expect(cellsOf('apps', 'deployments', d)).toEqual([
      'test1', '0/5', 2, 1, '0s', 'fake-container1,fake-container2', 'fake-image1,fake-image2', 'foo=bar',
    ]);
  });

  it('print the selector as LabelSelectorAsSelector renders it', () => {
    const selector = {
      matchLabels: { tier: 'web', app: 'shop' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'zone', operator: 'Exists' },
        { key: 'os', operator: 'NotIn', values: ['windows'] },
      ],
    };
    const cell = (s: unknown) => cellsOf('apps', 'deployments', { metadata: { name: 'd' }, spec: { selector: s } })[7];
    expect(cell(selector)).toBe('app=shop,!canary,env in (dev,prod),os notin (windows),tier=web,zone');
    // printDeployment prints the selector's String(): empty when there is none, <invalid> when bad.
    expect(cell(undefined)).toBe('');
    expect(cell({})).toBe('');
    expect(cell({ matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] })).toBe('<invalid>');
  });
});

describe('replicasets and replicationcontrollers', () => {
  it('print desired, current, ready (TestPrintReplicaSet)', () => {
    const rs: KubeObject = {
      metadata: { name: 'test1', creationTimestamp: justCreated },
      spec: { replicas: 5, template, selector: { matchLabels: { foo: 'bar' } } },
      status: { replicas: 5, readyReplicas: 2 },
    };
    expect(columnsOf('apps', 'replicasets').map((c) => c[0])).toEqual(
      ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector'],
    );
    expect(columnsOf('apps', 'replicasets').slice(1, 4).map((c) => c[1])).toEqual(['integer', 'integer', 'integer']);
    expect(cellsOf('apps', 'replicasets', rs)).toEqual(
      ['test1', 5, 5, 2, '0s', 'fake-container1,fake-container2', 'fake-image1,fake-image2', 'foo=bar'],
    );
    // FormatLabelSelector: <none> for an empty selector, <error> for an invalid one.
    expect(cellsOf('apps', 'replicasets', { metadata: { name: 'x' }, spec: { selector: {} } })[7]).toBe('<none>');
    expect(cellsOf('apps', 'replicasets', { metadata: { name: 'x' }, spec: { selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } })[7])
      .toBe('<error>');
  });

  it('print a replication controller’s map selector', () => {
    const rc: KubeObject = {
      metadata: { name: 'rc1' },
      spec: { replicas: 3, selector: { b: '2', a: '1' }, template },
      status: { replicas: 3, readyReplicas: 3 },
    };
    expect(cellsOf('', 'replicationcontrollers', rc)).toEqual(
      ['rc1', 3, 3, 3, '<unknown>', 'fake-container1,fake-container2', 'fake-image1,fake-image2', 'a=1,b=2'],
    );
  });
});

describe('statefulsets', () => {
  it('print ready/desired (TestPrintStatefulSet)', () => {
    const ss: KubeObject = {
      metadata: { name: 'test1', creationTimestamp: justCreated },
      spec: { replicas: 5, template },
      status: { replicas: 5, readyReplicas: 2, updatedReplicas: 2 },
    };
    expect(columnsOf('apps', 'statefulsets')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
    ]);
    expect(cellsOf('apps', 'statefulsets', ss)).toEqual(['test1', '2/5', '0s', 'fake-container1,fake-container2', 'fake-image1,fake-image2']);
  });
});

describe('daemonsets', () => {
  it('print the scheduling counts and node selector (TestPrintDaemonSet)', () => {
    const ds: KubeObject = {
      metadata: { name: 'test1', creationTimestamp: justCreated },
      spec: { template, selector: { matchLabels: { foo: 'bar' } } },
      status: { currentNumberScheduled: 2, desiredNumberScheduled: 3, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 0 },
    };
    expect(columnsOf('apps', 'daemonsets').map((c) => `${c[0]}:${c[1]}:${c[3]}`)).toEqual([
      'Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Up-to-date:integer:0',
      'Available:integer:0', 'Node Selector:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1',
      'Selector:string:1',
    ]);
    expect(cellsOf('apps', 'daemonsets', ds)).toEqual(
      ['test1', 3, 2, 1, 2, 0, '<none>', '0s', 'fake-container1,fake-container2', 'fake-image1,fake-image2', 'foo=bar'],
    );
    const withNodeSelector = { ...ds, spec: { ...ds.spec as object, template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' } } } } };
    expect(cellsOf('apps', 'daemonsets', withNodeSelector)[6]).toBe('kubernetes.io/os=linux');
  });
});

describe('controllerrevisions (TestPrintControllerRevision)', () => {
  it('print the controller as kind.group/name', () => {
    const owned: KubeObject = {
      metadata: {
        name: 'test1',
        ownerReferences: [
          { controller: false, kind: 'Pod', name: 'other', apiVersion: 'v1' },
          { controller: true, apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'foo' },
        ],
      },
      revision: 1,
    };
    expect(cellsOf('apps', 'controllerrevisions', owned)).toEqual(['test1', 'daemonset.apps/foo', 1, '<unknown>']);
    expect(cellsOf('apps', 'controllerrevisions', { metadata: { name: 'test2' }, revision: 2 })).toEqual(['test2', '<none>', 2, '<unknown>']);
    expect(cellsOf('apps', 'controllerrevisions', {
      metadata: { name: 'test3', ownerReferences: [{ controller: true, apiVersion: 'v1', kind: 'Pod', name: 'p' }] },
      revision: 3,
    })).toEqual(['test3', 'pod/p', 3, '<unknown>']);
  });
});
