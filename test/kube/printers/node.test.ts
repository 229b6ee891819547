// Nodes: kube's TestPrintNodeStatus, TestPrintNodeRole, TestPrintNodeOSImage/KernelVersion/
// ContainerRuntimeVersion, TestPrintNodeInternalIP and TestPrintNodeExternalIP cases.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { DAY, ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

function node(name: string, body: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name, ...meta }, ...body };
}

const narrow = (n: KubeObject) => cellsOf('', 'nodes', n).slice(0, 5);

describe('nodes', () => {
  it('have printNode’s columns', () => {
    expect(columnsOf('', 'nodes')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Status', 'string', '', 0],
      ['Roles', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Version', 'string', '', 0],
      ['Internal-IP', 'string', '', 1],
      ['External-IP', 'string', '', 1],
      ['OS-Image', 'string', '', 1],
      ['Kernel-Version', 'string', '', 1],
      ['Container-Runtime', 'string', '', 1],
    ]);
  });

  it.each<[string, KubeObject, string]>([
    ['ready', node('foo1', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }), 'Ready'],
    ['ready, unschedulable', node('foo2', { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }), 'Ready,SchedulingDisabled'],
    ['repeated Ready', node('foo3', { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Ready', status: 'True' }] } }), 'Ready'],
    ['not ready', node('foo4', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }), 'NotReady'],
    ['not ready, unschedulable', node('foo5', { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }), 'NotReady,SchedulingDisabled'],
    ['no conditions', node('foo6'), 'Unknown'],
    ['other conditions only', node('foo7', { status: { conditions: [{ type: 'InvalidValue', status: 'True' }] } }), 'Unknown'],
    ['unknown, unschedulable', node('foo8', { spec: { unschedulable: true }, status: { conditions: [{ type: 'InvalidValue', status: 'True' }] } }), 'Unknown,SchedulingDisabled'],
    ['Ready Unknown', node('foo9', { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }), 'NotReady'],
  ])('status: %s (TestPrintNodeStatus)', (_name, n, want) => {
    expect(narrow(n)).toEqual([n.metadata?.name, want, '<none>', '<unknown>', '']);
  });

  it.each<[Record<string, string>, string]>([
    [{}, '<none>'],
    [{ 'node-role.kubernetes.io/fed': '', 'node-role.kubernetes.io/experimental-master': '' }, 'experimental-master,fed'],
    [{ 'node-role.kubernetes.io/foo': '', 'node-role.kubernetes.io/bar': '', 'node-role.kubernetes.io/baz': '', 'kubernetes.io/role': 'node' }, 'bar,baz,foo,node'],
    [{ 'node-role.kubernetes.io/': '', 'kubernetes.io/role': '' }, '<none>'],
    [{ 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'control-plane' }, 'control-plane'],
  ])('roles from %j (TestPrintNodeRole)', (labels, want) => {
    expect(narrow(node('n', {}, { labels }))[2]).toBe(want);
  });

  it('print age and kubelet version', () => {
    const n = node('worker', { status: { nodeInfo: { kubeletVersion: 'v1.32.1' }, conditions: [{ type: 'Ready', status: 'True' }] } }, { creationTimestamp: ago(40 * DAY) });
    expect(narrow(n)).toEqual(['worker', 'Ready', '<none>', '40d', 'v1.32.1']);
  });

  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['OS image, kernel and runtime', { status: { nodeInfo: { osImage: 'fake-os-image', kernelVersion: 'fake-kernel-version', containerRuntimeVersion: 'foo://1.2.3' } } }, ['<none>', '<none>', 'fake-os-image', 'fake-kernel-version', 'foo://1.2.3']],
    ['nothing reported', {}, ['<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']],
    ['internal IP only', { status: { addresses: [{ type: 'InternalIP', address: '1.1.1.1' }] } }, ['1.1.1.1', '<none>', '<unknown>', '<unknown>', '<unknown>']],
    ['external IP only', { status: { addresses: [{ type: 'ExternalIP', address: '1.1.1.1' }] } }, ['<none>', '1.1.1.1', '<unknown>', '<unknown>', '<unknown>']],
    [
      'the first of each type',
      { status: { addresses: [{ type: 'InternalIP', address: '2.2.2.2' }, { type: 'ExternalIP', address: '3.3.3.3' }, { type: 'InternalIP', address: '4.4.4.4' }] } },
      ['2.2.2.2', '3.3.3.3', '<unknown>', '<unknown>', '<unknown>'],
    ],
  ])('wide: %s', (_name, body, want) => {
    expect(cellsOf('', 'nodes', node('foo1', body)).slice(5)).toEqual(want);
  });
});
