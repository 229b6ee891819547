// The `fields` column: the values of kube's field labels an object has, at the paths they have in the object, so that a
// field selector reads the same answer from it as from the object.
import { describe, expect, it } from 'vitest';
import { FIELD_LABEL_PATHS } from '../../src/kube/field-labels.js';
import { selectableFields } from '../../src/storage/object-columns.js';

describe('selectableFields', () => {
  it("keeps a pod's field-label values where the pod has them, and nothing else", () => {
    const pod = {
      metadata: { name: 'p', labels: { app: 'x' } },
      spec: { nodeName: 'n1', hostNetwork: true, containers: [{ name: 'c' }] },
      status: { phase: 'Running', podIP: '10.0.0.1', conditions: [] },
    };
    expect(JSON.parse(selectableFields(pod))).toEqual({ spec: { nodeName: 'n1', hostNetwork: true }, status: { phase: 'Running', podIP: '10.0.0.1' } });
  });

  it("keeps an Event's involved object and source component, a Job's succeeded count, a null as null", () => {
    const event = { involvedObject: { kind: 'Pod', name: 'p', uid: 'u' }, reason: 'Started', type: 'Normal', source: { component: 'kubelet', host: 'n1' } };
    expect(JSON.parse(selectableFields(event))).toEqual({ involvedObject: { kind: 'Pod', name: 'p', uid: 'u' }, reason: 'Started', type: 'Normal', source: { component: 'kubelet' } });
    expect(JSON.parse(selectableFields({ status: { succeeded: 2 } }))).toEqual({ status: { succeeded: 2 } });
    expect(JSON.parse(selectableFields({ spec: { nodeName: null } }))).toEqual({ spec: { nodeName: null } });
  });

  it('is "{}" for an object without any, and for values under a list or a scalar where an object was expected', () => {
    expect(selectableFields({ metadata: { name: 'cm' }, data: { a: 'b' } })).toBe('{}');
    expect(selectableFields({ spec: [{ nodeName: 'n1' }], status: 'Running' })).toBe('{}');
    expect(selectableFields(null)).toBe('{}');
  });

  it('gives the same text for the same values whatever order the object holds them in (the writer compares texts)', () => {
    const a = { status: { podIP: '10.0.0.1', phase: 'Running' }, spec: { schedulerName: 's', nodeName: 'n1' } };
    const b = { spec: { nodeName: 'n1', schedulerName: 's' }, status: { phase: 'Running', podIP: '10.0.0.1' } };
    expect(selectableFields(a)).toBe(selectableFields(b));
  });

  it('no path is a prefix of another: each value has a place of its own', () => {
    for (const p of FIELD_LABEL_PATHS) for (const q of FIELD_LABEL_PATHS) expect(q.startsWith(`${p}.`), `${p} / ${q}`).toBe(false);
  });
});
