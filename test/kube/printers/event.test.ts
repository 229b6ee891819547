// Events: kube's TestPrintEvent cases (timestamps, series, singleton counts, reporting controller),
// and events.k8s.io Events printed through the same printer.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { DAY, MINUTE, ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

const deployment = { kind: 'Deployment', name: 'Deployment Name', fieldPath: 'spec.containers{foo}' };
const source = { component: 'kubelet', host: 'Node1' };

function event(name: string, body: Record<string, unknown>): KubeObject {
  return { metadata: { name }, reason: 'Event Reason', message: 'Message Data', ...body };
}

describe('events', () => {
  it('have printEvent’s columns, in kube 1.32’s order', () => {
    expect(columnsOf('', 'events')).toEqual([
      ['Last Seen', 'string', '', 0],
      ['Type', 'string', '', 0],
      ['Reason', 'string', '', 0],
      ['Object', 'string', '', 0],
      ['Subobject', 'string', '', 1],
      ['Source', 'string', '', 1],
      ['Message', 'string', '', 0],
      ['First Seen', 'string', '', 1],
      ['Count', 'string', '', 1],
      ['Name', 'string', 'name', 1],
    ]);
    expect(columnsOf('events.k8s.io', 'events')).toEqual(columnsOf('', 'events'));
  });

  it.each<[string, KubeObject, unknown[]]>([
    [
      'basic',
      event('event1', {
        source: { component: 'kubelet' },
        involvedObject: { kind: 'Pod', name: 'Pod Name', fieldPath: 'spec.containers{foo}' },
        firstTimestamp: ago(3 * DAY),
        lastTimestamp: ago(2 * DAY),
        count: 6,
        type: 'Normal',
      }),
      ['2d', 'Normal', 'Event Reason', 'pod/Pod Name', 'spec.containers{foo}', 'kubelet', 'Message Data', '3d', 6, 'event1'],
    ],
    [
      'with source host',
      event('event2', { source, involvedObject: deployment, firstTimestamp: ago(3 * DAY), lastTimestamp: ago(2 * DAY), count: 6, type: 'Warning' }),
      ['2d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, Node1', 'Message Data', '3d', 6, 'event2'],
    ],
    [
      'no firstTimestamp: eventTime stands in',
      event('event3', { source, involvedObject: deployment, eventTime: '2024-05-29T12:00:00.000000Z', lastTimestamp: ago(3 * DAY), count: 1, type: 'Warning' }),
      ['3d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, Node1', 'Message Data', '3d', 1, 'event3'],
    ],
    [
      'no lastTimestamp: first seen stands in',
      event('event4', { source, involvedObject: deployment, eventTime: ago(3 * DAY), firstTimestamp: ago(3 * DAY), count: 1, type: 'Warning' }),
      ['3d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, Node1', 'Message Data', '3d', 1, 'event4'],
    ],
    [
      'neither timestamp',
      event('event5', { source, involvedObject: deployment, eventTime: ago(3 * DAY), count: 1, type: 'Warning' }),
      ['3d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, Node1', 'Message Data', '3d', 1, 'event5'],
    ],
    [
      'a series: its last observation and count',
      event('event6', { source, involvedObject: deployment, series: { count: 2, lastObservedTime: ago(2 * DAY) }, eventTime: ago(3 * DAY), type: 'Warning' }),
      ['2d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, Node1', 'Message Data', '3d', 2, 'event6'],
    ],
    [
      'a singleton without count counts once',
      event('event7', { source, involvedObject: deployment, eventTime: ago(3 * DAY), type: 'Warning' }),
      ['3d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, Node1', 'Message Data', '3d', 1, 'event7'],
    ],
    [
      'empty source: reporting controller and instance',
      event('event2', { reportingComponent: 'kubelet', reportingInstance: 'test', involvedObject: deployment, firstTimestamp: ago(3 * DAY), lastTimestamp: ago(2 * DAY), count: 6, type: 'Warning' }),
      ['2d', 'Warning', 'Event Reason', 'deployment/Deployment Name', 'spec.containers{foo}', 'kubelet, test', 'Message Data', '3d', 6, 'event2'],
    ],
    [
      'no timestamps at all, a kind without name, a padded message',
      event('event8', { involvedObject: { kind: 'Node' }, message: '  Starting kubelet.\n' }),
      ['<unknown>', '', 'Event Reason', 'node', '', '', 'Starting kubelet.', '<unknown>', 1, 'event8'],
    ],
  ])('%s (TestPrintEvent)', (_name, e, want) => {
    expect(cellsOf('', 'events', e)).toEqual(want);
  });

  it('read events.k8s.io Events through the v1 → core conversion', () => {
    const e: KubeObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web.17a' },
      eventTime: ago(10 * MINUTE),
      series: { count: 4, lastObservedTime: ago(MINUTE) },
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-node1',
      action: 'Scheduling',
      reason: 'FailedScheduling',
      regarding: { kind: 'Pod', name: 'web-0', namespace: 'shop' },
      note: '0/3 nodes are available',
      type: 'Warning',
    };
    expect(cellsOf('events.k8s.io', 'events', e)).toEqual(
      ['60s', 'Warning', 'FailedScheduling', 'pod/web-0', '', 'default-scheduler, default-scheduler-node1', '0/3 nodes are available', '10m', 4, 'web.17a'],
    );
    const deprecated: KubeObject = {
      metadata: { name: 'old' },
      reason: 'Pulled',
      regarding: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{c}' },
      note: 'pulled',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'n1' },
      deprecatedFirstTimestamp: ago(2 * DAY),
      deprecatedLastTimestamp: ago(DAY),
      deprecatedCount: 7,
    };
    expect(cellsOf('events.k8s.io', 'events', deprecated)).toEqual(
      ['24h', 'Normal', 'Pulled', 'pod/p', 'spec.containers{c}', 'kubelet, n1', 'pulled', '2d', 7, 'old'],
    );
  });
});
