// Pods: kube's TestPrintPod, TestPrintPodWithRestartableInitContainer, TestPrintPodwide and
// TestPrintPodConditions cases on v1 JSON, plus the init/exit-code reasons kube documents.

import { describe, expect, it } from 'vitest';
import { resourcePrinterFor } from '../../../src/kube/printers/index.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { DAY, MINUTE, NOW, SECOND, ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

const running = { running: { startedAt: ago(DAY) } };
const terminatedAgo = (ms: number) => ({ terminated: { exitCode: 0, finishedAt: ago(ms) } });

function pod(name: string, spec: Record<string, unknown>, status: Record<string, unknown>, meta = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec, status };
}

/** The five non-wide cells. */
function narrow(p: KubeObject): unknown[] {
  return cellsOf('', 'pods', p).slice(0, 5);
}

const two = { containers: [{}, {}] };

describe('pod columns', () => {
  it('are printPod’s, wide ones at priority 1', () => {
    expect(columnsOf('', 'pods')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ]);
  });
});

describe('printPod (TestPrintPod)', () => {
  const deleting = { deletionTimestamp: ago(10 * SECOND) };
  it.each<[string, KubeObject, unknown[]]>([
    [
      'name, containers, restarts, ready',
      pod('test1', two, { phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }] }),
      ['test1', '1/2', 'podPhase', '6', '<unknown>'],
    ],
    [
      'container error overwrites pod phase',
      pod('test2', two, {
        phase: 'podPhase',
        containerStatuses: [
          { ready: true, restartCount: 3, state: running },
          { state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 },
        ],
      }),
      ['test2', '1/2', 'ContainerWaitingReason', '6', '<unknown>'],
    ],
    [
      'the first container overwrites the rest',
      pod('test3', two, {
        phase: 'podPhase',
        containerStatuses: [
          { state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 },
          { state: { terminated: { reason: 'ContainerTerminatedReason' } }, restartCount: 3 },
        ],
      }),
      ['test3', '0/2', 'ContainerWaitingReason', '6', '<unknown>'],
    ],
    [
      'ready is not enough for reporting running',
      pod('test4', two, { phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { ready: true, restartCount: 3 }] }),
      ['test4', '1/2', 'podPhase', '6', '<unknown>'],
    ],
    [
      'pod reason wins over phase',
      pod('test5', two, { reason: 'podReason', phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { ready: true, restartCount: 3 }] }),
      ['test5', '1/2', 'podReason', '6', '<unknown>'],
    ],
    [
      'one running, one completed, no Ready condition',
      pod('test6', two, {
        phase: 'Running',
        containerStatuses: [
          { ready: true, restartCount: 3, state: { terminated: { reason: 'Completed', exitCode: 0 } } },
          { ready: true, restartCount: 3, state: running },
        ],
      }),
      ['test6', '1/2', 'NotReady', '6', '<unknown>'],
    ],
    [
      'one running, one completed, Ready condition',
      pod('test6', two, {
        phase: 'Running',
        containerStatuses: [
          { ready: true, restartCount: 3, state: { terminated: { reason: 'Completed', exitCode: 0 } } },
          { ready: true, restartCount: 3, state: running },
        ],
        conditions: [{ type: 'Ready', status: 'True' }],
      }),
      ['test6', '1/2', 'Running', '6', '<unknown>'],
    ],
    [
      'init container restarting, container not running',
      pod('test7', { initContainers: [{}], containers: [{}] }, {
        phase: 'podPhase',
        initContainerStatuses: [{ ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * SECOND) }],
        containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }],
      }),
      ['test7', '0/1', 'Init:0/1', '3 (10s ago)', '<unknown>'],
    ],
    [
      'two init containers, one restarting',
      pod('test8', { initContainers: [{}, {}], containers: [{}] }, {
        phase: 'podPhase',
        initContainerStatuses: [
          { ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * SECOND) },
          { ready: false, state: { waiting: {} } },
        ],
        containerStatuses: [{ ready: false, state: { waiting: {} } }],
      }),
      ['test8', '0/1', 'Init:0/2', '3 (10s ago)', '<unknown>'],
    ],
    [
      'first init container done without restarts, second restarting',
      pod('test9', { initContainers: [{}, {}], containers: [{}] }, {
        phase: 'podPhase',
        initContainerStatuses: [
          { ready: false, state: { terminated: {} } },
          { ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * SECOND) },
        ],
        containerStatuses: [{ ready: false, state: { waiting: {} } }],
      }),
      ['test9', '0/1', 'Init:1/2', '3 (10s ago)', '<unknown>'],
    ],
    [
      'first init container done with restarts, second restarting',
      pod('test10', { initContainers: [{}, {}], containers: [{}] }, {
        phase: 'podPhase',
        initContainerStatuses: [
          { ready: false, restartCount: 2, state: { terminated: {} }, lastState: terminatedAgo(2 * MINUTE) },
          { ready: false, restartCount: 3, state: running, lastState: terminatedAgo(10 * SECOND) },
        ],
        containerStatuses: [{ ready: false, state: { waiting: {} } }],
      }),
      ['test10', '0/1', 'Init:1/2', '5 (10s ago)', '<unknown>'],
    ],
    [
      'init container done with restarts, container restarting: only container restarts count',
      pod('test11', { initContainers: [{}], containers: [{}] }, {
        phase: 'Running',
        initContainerStatuses: [{ ready: false, restartCount: 2, state: { terminated: {} }, lastState: terminatedAgo(2 * MINUTE) }],
        containerStatuses: [{ ready: false, restartCount: 4, state: running, lastState: terminatedAgo(20 * SECOND) }],
      }),
      ['test11', '0/1', 'Running', '4 (20s ago)', '<unknown>'],
    ],
    [
      'restarted 5d ago',
      pod('test12', { containers: [{}] }, {
        phase: 'Running',
        containerStatuses: [{ ready: true, restartCount: 3, state: running, lastState: terminatedAgo(5 * DAY) }],
      }),
      ['test12', '1/1', 'Running', '3 (5d ago)', '<unknown>'],
    ],
    [
      'one never restarted, the other 10d ago',
      pod('test13', two, {
        phase: 'Running',
        containerStatuses: [
          { ready: true, restartCount: 0, state: running },
          { ready: true, restartCount: 3, state: running, lastState: terminatedAgo(10 * DAY) },
        ],
      }),
      ['test13', '2/2', 'Running', '3 (10d ago)', '<unknown>'],
    ],
    [
      'restarts 5d and 20d ago: the latest wins',
      pod('test14', two, {
        phase: 'Running',
        containerStatuses: [
          { ready: true, restartCount: 6, state: running, lastState: terminatedAgo(5 * DAY) },
          { ready: true, restartCount: 3, state: running, lastState: terminatedAgo(20 * DAY) },
        ],
      }),
      ['test14', '2/2', 'Running', '9 (5d ago)', '<unknown>'],
    ],
    [
      'PodScheduled with reason SchedulingGated',
      pod('test15', two, { phase: 'podPhase', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      ['test15', '0/2', 'SchedulingGated', '0', '<unknown>'],
    ],
    [
      'succeeded',
      pod('test16', { containers: [{}] }, {
        phase: 'Succeeded',
        containerStatuses: [{ ready: false, restartCount: 0, state: { terminated: { reason: 'Completed', exitCode: 0 } } }],
      }),
      ['test16', '0/1', 'Completed', '0', '<unknown>'],
    ],
    [
      'failed',
      pod('test17', { containers: [{}] }, {
        phase: 'Failed',
        containerStatuses: [{ ready: false, restartCount: 0, state: { terminated: { reason: 'Error', exitCode: 1 } } }],
      }),
      ['test17', '0/1', 'Error', '0', '<unknown>'],
    ],
    [
      'succeeded while being deleted stays Completed',
      pod('test18', { containers: [{}] }, {
        phase: 'Succeeded',
        containerStatuses: [{ ready: false, restartCount: 0, state: { terminated: { reason: 'Completed', exitCode: 0 } } }],
      }, deleting),
      ['test18', '0/1', 'Completed', '0', '<unknown>'],
    ],
    [
      'running while being deleted is Terminating',
      pod('test19', { containers: [{}] }, { phase: 'Running', containerStatuses: [{ ready: false, restartCount: 0, state: running }] }, deleting),
      ['test19', '0/1', 'Terminating', '0', '<unknown>'],
    ],
    [
      'pending while being deleted is Terminating',
      pod('test20', { containers: [{}] }, { phase: 'Pending' }, deleting),
      ['test20', '0/1', 'Terminating', '0', '<unknown>'],
    ],
  ])('%s', (_name, p, want) => {
    expect(narrow(p)).toEqual(want);
  });
});

describe('printPod with restartable init containers (TestPrintPodWithRestartableInitContainer)', () => {
  const sidecars = {
    initContainers: [
      { name: 'restartable-init-1', restartPolicy: 'Always' },
      { name: 'restartable-init-2', restartPolicy: 'Always' },
    ],
    containers: [{}],
  };
  it.each<[string, KubeObject, unknown[]]>([
    [
      'first sidecar running but not started',
      pod('test1', sidecars, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'restartable-init-1', ready: false, restartCount: 3, state: running, started: false, lastState: terminatedAgo(10 * SECOND) },
          { name: 'restartable-init-2', ready: false, state: { waiting: {} }, started: false },
        ],
        containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }],
        conditions: [{ type: 'Initialized', status: 'False' }],
      }),
      ['test1', '0/3', 'Init:0/2', '3 (10s ago)', '<unknown>'],
    ],
    [
      'first sidecar started, second running but not started',
      pod('test1', sidecars, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'restartable-init-1', ready: false, restartCount: 3, state: running, started: true, lastState: terminatedAgo(10 * SECOND) },
          { name: 'restartable-init-2', ready: false, state: running, started: false },
        ],
        containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }],
        conditions: [{ type: 'Initialized', status: 'False' }],
      }),
      ['test1', '0/3', 'Init:1/2', '3 (10s ago)', '<unknown>'],
    ],
    [
      'both sidecars started, container running',
      pod('test2', sidecars, {
        phase: 'Running',
        initContainerStatuses: [
          { name: 'restartable-init-1', ready: false, restartCount: 3, state: running, started: true, lastState: terminatedAgo(10 * SECOND) },
          { name: 'restartable-init-2', ready: false, state: running, started: true },
        ],
        containerStatuses: [{ ready: true, restartCount: 4, state: running, lastState: terminatedAgo(20 * SECOND) }],
        conditions: [{ type: 'Initialized', status: 'True' }],
      }),
      ['test2', '1/3', 'Running', '7 (10s ago)', '<unknown>'],
    ],
    [
      'sidecars ended with errors, container completed',
      pod('test3', sidecars, {
        phase: 'Succeeded',
        initContainerStatuses: [
          { name: 'restartable-init-1', ready: false, restartCount: 3, state: { terminated: { reason: 'Error', exitCode: 137 } }, started: false, lastState: terminatedAgo(10 * SECOND) },
          { name: 'restartable-init-2', ready: false, state: { terminated: { reason: 'Error', exitCode: 137 } }, started: false },
        ],
        containerStatuses: [{ ready: false, restartCount: 4, state: { terminated: { reason: 'Completed', exitCode: 0 } }, lastState: terminatedAgo(20 * SECOND) }],
        conditions: [{ type: 'Initialized', status: 'True' }],
      }),
      ['test3', '0/3', 'Completed', '7 (10s ago)', '<unknown>'],
    ],
    [
      'statuses of containers that are not in the spec',
      pod('test4', {
        initContainers: [{ name: 'init1', image: 'initimage' }, { name: 'sidecar1', image: 'sidecarimage', restartPolicy: 'Always' }],
        containers: [{ name: 'container1', image: 'containerimage' }],
      }, {
        phase: 'Running',
        initContainerStatuses: [{ name: 'initinvalid' }, { name: 'init1' }, { name: 'sidecar1' }],
        containerStatuses: [{ name: 'containerinvalid' }, { name: 'container1' }],
      }),
      ['test4', '0/2', 'Init:0/2', '0', '<unknown>'],
    ],
    [
      'a ready started sidecar counts as ready while the next init container runs',
      pod('test5', {
        initContainers: [{ name: 'sidecar', restartPolicy: 'Always' }, { name: 'migrate' }],
        containers: [{ name: 'app' }],
      }, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'sidecar', ready: true, started: true, state: running },
          { name: 'migrate', ready: false, state: running },
        ],
        containerStatuses: [{ name: 'app', state: { waiting: { reason: 'PodInitializing' } } }],
      }),
      ['test5', '1/2', 'Init:1/2', '0', '<unknown>'],
    ],
  ])('%s', (_name, p, want) => {
    expect(narrow(p)).toEqual(want);
  });
});

describe('printPod reasons for failing init and regular containers', () => {
  const one = { initContainers: [{ name: 'init' }], containers: [{ name: 'app' }] };
  it.each<[string, Record<string, unknown>, string]>([
    ['Init:CrashLoopBackOff', { initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'CrashLoopBackOff' } } }] }, 'Init:CrashLoopBackOff'],
    ['Init:Error from the terminated reason', { initContainerStatuses: [{ name: 'init', state: { terminated: { reason: 'Error', exitCode: 1 } } }] }, 'Init:Error'],
    ['Init:Signal', { initContainerStatuses: [{ name: 'init', state: { terminated: { signal: 9, exitCode: 137 } } }] }, 'Init:Signal:9'],
    ['Init:ExitCode', { initContainerStatuses: [{ name: 'init', state: { terminated: { exitCode: 2 } } }] }, 'Init:ExitCode:2'],
    ['PodInitializing is not a reason to show', { initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'PodInitializing' } } }] }, 'Init:0/1'],
    ['CrashLoopBackOff', { containerStatuses: [{ name: 'app', state: { waiting: { reason: 'CrashLoopBackOff' } } }] }, 'CrashLoopBackOff'],
    ['ContainerCreating', { containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ContainerCreating' } } }] }, 'ContainerCreating'],
    ['Signal', { containerStatuses: [{ name: 'app', state: { terminated: { signal: 15, exitCode: 143 } } }] }, 'Signal:15'],
    ['ExitCode', { containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 3 } } }] }, 'ExitCode:3'],
  ])('%s', (_name, status, want) => {
    const phase = 'initContainerStatuses' in status ? 'Pending' : 'Running';
    expect(narrow(pod('p', one, { phase, ...status }))[2]).toBe(want);
  });

  it('prints Unknown for a deleted pod whose node was lost', () => {
    const p = pod('p', { containers: [{}] }, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: ago(MINUTE) });
    expect(narrow(p)[2]).toBe('Unknown');
  });

  it('ages the pod from creationTimestamp', () => {
    const p = pod('p', { containers: [{}] }, { phase: 'Running' }, { creationTimestamp: ago(3 * DAY + 4 * 3600_000) });
    expect(narrow(p)[4]).toBe('3d4h');
  });
});

describe('printPod wide (TestPrintPodwide)', () => {
  const gates = { containers: [{}, {}], nodeName: 'test1', readinessGates: [{ conditionType: 'condition1' }, { conditionType: 'condition2' }, { conditionType: 'condition3' }] };
  const conditions = [{ type: 'condition1', status: 'False' }, { type: 'condition2', status: 'True' }];
  const statuses = [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }];
  it.each<[string, KubeObject, unknown[]]>([
    [
      'node name and pod IP set',
      pod('test1', gates, { conditions, phase: 'podPhase', podIPs: [{ ip: '1.1.1.1' }], containerStatuses: statuses, nominatedNodeName: 'node1' }),
      ['test1', '1/2', 'podPhase', '6', '<unknown>', '1.1.1.1', 'test1', 'node1', '1/3'],
    ],
    [
      'dual-stack: the first IP',
      pod('test1', gates, { conditions, phase: 'podPhase', podIPs: [{ ip: '1.1.1.1' }, { ip: '2001:db8::' }], containerStatuses: statuses, nominatedNodeName: 'node1' }),
      ['test1', '1/2', 'podPhase', '6', '<unknown>', '1.1.1.1', 'test1', 'node1', '1/3'],
    ],
    [
      'node name and pod IP unset',
      pod('test2', { containers: [{}, {}], nodeName: '' }, {
        phase: 'podPhase',
        containerStatuses: [{ ready: true, restartCount: 3, state: running }, { state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 }],
      }),
      ['test2', '1/2', 'ContainerWaitingReason', '6', '<unknown>', '<none>', '<none>', '<none>', '<none>'],
    ],
  ])('%s', (_name, p, want) => {
    expect(cellsOf('', 'pods', p)).toEqual(want);
  });
});

describe('printPod row conditions (TestPrintPodConditions)', () => {
  const printer = resourcePrinterFor({ group: '', resource: 'pods' });
  const statuses = [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }];
  it('marks Succeeded and Failed pods Completed, and nothing else', () => {
    expect(printer.conditions?.(pod('a', two, { phase: 'Running', containerStatuses: statuses }))).toBeUndefined();
    expect(printer.conditions?.(pod('a', two, { phase: 'Succeeded', containerStatuses: statuses }))).toEqual([
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    expect(printer.conditions?.(pod('b', two, { phase: 'Failed', containerStatuses: statuses }))).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    expect(narrow(pod('a', two, { phase: 'Succeeded', containerStatuses: statuses }))).toEqual(['a', '1/2', 'Succeeded', '6', '<unknown>']);
  });

  it('survives a pod with no spec or status at all', () => {
    expect(cellsOf('', 'pods', { metadata: { name: 'bare' } })).toEqual(
      ['bare', '0/0', '', '0', '<unknown>', '<none>', '<none>', '<none>', '<none>'],
    );
  });

  it('falls back to status.podIP for pods without podIPs', () => {
    expect(cellsOf('', 'pods', pod('old', { containers: [{}] }, { phase: 'Running', podIP: '10.1.2.3' }))[5]).toBe('10.1.2.3');
  });

  it('uses the injected clock', () => {
    const p = pod('p', { containers: [{}] }, { phase: 'Running' }, { creationTimestamp: NOW.toISOString() });
    expect(narrow(p)[4]).toBe('0s');
  });
});

describe('pod templates (TestPrintPodTemplate)', () => {
  it('prints containers, images and the template labels', () => {
    expect(cellsOf('', 'podtemplates', { metadata: { name: 'pod-template-1' }, template: { metadata: { name: 'x' }, spec: { containers: [] } } }))
      .toEqual(['pod-template-1', '', '', '<none>']);
    expect(cellsOf('', 'podtemplates', {
      metadata: { name: 'pod-template-2' },
      template: { metadata: { labels: { foo: 'bar', a: 'b' } }, spec: { containers: [{ name: 'fake-container1', image: 'fake-image1' }, { name: 'fake-container2', image: 'fake-image2' }] } },
    })).toEqual(['pod-template-2', 'fake-container1,fake-container2', 'fake-image1,fake-image2', 'a=b,foo=bar']);
  });
});
