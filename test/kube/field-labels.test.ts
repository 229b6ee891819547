// Kubernetes' field labels keep kube's meaning for the one resource asked for: renamed labels read their field, and
// an absent field has the value kube renders for it. Other paths stay JSON paths.
import { describe, expect, it } from 'vitest';
import { FIELD_LABEL_PATHS, withFieldLabels } from '../../src/kube/field-labels.js';
import { parseFieldSelector } from '../../src/kube/field-selector.js';
import { matchesFields } from '../../src/kube/match.js';

const labels = (group: string, resource: string, selector: string) => withFieldLabels(group, resource, parseFieldSelector(selector));
const matches = (group: string, resource: string, selector: string, obj: unknown): boolean => matchesFields(obj, labels(group, resource, selector));

describe('withFieldLabels', () => {
  it('gives a label the value kube renders for an absent field, and reads a renamed label from its field', () => {
    expect(labels('', 'nodes', 'spec.unschedulable=false')).toEqual([{ path: [{ name: 'spec' }, { name: 'unschedulable' }], operator: '=', values: ['false'], absentAs: 'false' }]);
    expect(labels('batch', 'jobs', 'status.successful=1')).toEqual([{ path: [{ name: 'status' }, { name: 'succeeded' }], operator: '=', values: ['1'], absentAs: '0' }]);
    expect(labels('', 'events', 'source=kubelet,reportingComponent=kubelet').map((r) => r.path.map((s) => s.name).join('.'))).toEqual(['reportingComponent', 'source.component']);
    expect(labels('apps', 'deployments', 'metadata.namespace=')[0]?.absentAs).toBe('');
  });

  it('events: reportingComponent reads the core/v1 field of that JSON name (the Go field ReportingController)', () => {
    const byKubelet = { reason: 'Pulled', reportingComponent: 'kubelet', source: { component: 'kubelet' } };
    const legacy = { reason: 'Pulled', source: { component: 'kubelet' } };
    expect(matches('', 'events', 'reportingComponent=kubelet', byKubelet)).toBe(true);
    expect(matches('', 'events', 'reportingComponent=kubelet', legacy)).toBe(false);
    expect(matches('', 'events', 'reportingComponent=', legacy)).toBe(true);
    expect(matches('', 'events', 'reportingComponent=', byKubelet)).toBe(false);
    expect(matches('', 'events', 'source=kubelet', legacy)).toBe(true);
  });

  it('events: source is the source\'s component, or the reporting component of an Event that has none (the scheduler\'s)', () => {
    const scheduled = { reason: 'Scheduled', source: {}, reportingComponent: 'default-scheduler' };
    const pulled = { reason: 'Pulled', source: { component: 'kubelet', host: 'n1' }, reportingComponent: 'kubelet' };
    const bare = { reason: 'Custom', source: { component: '' }, reportingComponent: '' };
    const all = [scheduled, pulled, bare];
    expect(all.map((e) => matches('', 'events', 'source=default-scheduler', e))).toEqual([true, false, false]);
    expect(all.map((e) => matches('', 'events', 'source=kubelet', e))).toEqual([false, true, false]);
    expect(all.map((e) => matches('', 'events', 'source=', e))).toEqual([false, false, true]);
    expect(all.map((e) => matches('', 'events', 'source!=default-scheduler', e))).toEqual([false, true, true]);
    expect(all.map((e) => matches('', 'events', 'source in (kubelet,default-scheduler)', e))).toEqual([true, true, false]);
    // Only Events have it: elsewhere `source` is a JSON path.
    expect(labels('apps', 'deployments', 'source=x')[0]).not.toHaveProperty('orPath');
  });

  it('events.k8s.io Events: the same labels under that version\'s names, read from the object', () => {
    const scheduled = { reason: 'Scheduled', deprecatedSource: {}, reportingController: 'default-scheduler', regarding: { kind: 'Pod', name: 'p' } };
    const pulled = { reason: 'Pulled', deprecatedSource: { component: 'kubelet' }, reportingController: 'kubelet', regarding: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{app}' } };
    const all = [scheduled, pulled];
    expect(all.map((e) => matches('events.k8s.io', 'events', 'source=default-scheduler', e))).toEqual([true, false]);
    expect(all.map((e) => matches('events.k8s.io', 'events', 'source=kubelet', e))).toEqual([false, true]);
    // An absent string is "": the scheduler's event is about the Pod, not one of its containers.
    expect(all.map((e) => matches('events.k8s.io', 'events', 'regarding.fieldPath=', e))).toEqual([true, false]);
    expect(all.map((e) => matches('events.k8s.io', 'events', 'reportingController=kubelet', e))).toEqual([false, true]);
    // Rows' fields documents were written without these paths: the labels must not be read from them.
    for (const p of ['regarding.kind', 'regarding.fieldPath', 'reportingController', 'deprecatedSource.component']) expect(FIELD_LABEL_PATHS).not.toContain(p);
  });

  it('leaves JSON paths alone: other resources, list paths, unknown names, prototype keys', () => {
    for (const [g, r, s] of [['apps', 'deployments', 'spec.nodeName='], ['', 'pods', 'spec.containers[].image=nginx'], ['', 'pods', 'spec.nodeName.x=1'], ['', 'pods', 'constructor=x'], ['', 'pods', 'toString=x']] as const) {
      expect(labels(g, r, s), s).toEqual(parseFieldSelector(s));
    }
  });
});

describe('matching with field labels, as kube-apiserver answers', () => {
  const schedulable = { metadata: { name: 'n1' }, spec: {} };
  const cordoned = { metadata: { name: 'n2' }, spec: { unschedulable: true } };
  it('nodes: spec.unschedulable is false when absent', () => {
    expect([schedulable, cordoned].map((n) => matches('', 'nodes', 'spec.unschedulable=false', n))).toEqual([true, false]);
    expect([schedulable, cordoned].map((n) => matches('', 'nodes', 'spec.unschedulable!=true', n))).toEqual([true, false]);
    expect([schedulable, cordoned].map((n) => matches('', 'nodes', 'spec.unschedulable!=false', n))).toEqual([false, true]);
    expect([schedulable, cordoned].map((n) => matches('', 'nodes', 'spec.unschedulable in (false)', n))).toEqual([true, false]);
    // exists keeps its meaning: the field is there or not.
    expect([schedulable, cordoned].map((n) => matches('', 'nodes', 'spec.unschedulable', n))).toEqual([false, true]);
  });

  it('jobs: status.successful is status.succeeded, 0 when absent; pods: an unscheduled pod has spec.nodeName ""', () => {
    expect(matches('batch', 'jobs', 'status.successful=1', { status: { succeeded: 1 } })).toBe(true);
    expect(matches('batch', 'jobs', 'status.successful=0', { status: {} })).toBe(true);
    expect(matches('batch', 'jobs', 'status.successful=0', { status: { succeeded: 2 } })).toBe(false);
    expect(matches('', 'pods', 'spec.nodeName=', { spec: {} })).toBe(true);
    expect(matches('', 'pods', 'spec.nodeName=', { spec: { nodeName: 'n1' } })).toBe(false);
    expect(matches('', 'pods', 'spec.nodeName!=', { spec: { nodeName: 'n1' } })).toBe(true);
  });
});
