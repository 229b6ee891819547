// The JSONPath subset CRD printer columns use: selection, filters, missing keys and kube's errors.

import { describe, expect, it } from 'vitest';
import { findResults, parseJsonPath } from '../../../src/kube/printers/jsonpath.js';

const obj = {
  metadata: { name: 'db-0', labels: { 'app.kubernetes.io/name': 'postgres', tier: 'data' } },
  spec: {
    replicas: 3,
    ratio: 0.5,
    paused: false,
    nothing: null,
    containers: [
      { name: 'pg', image: 'postgres:16', ports: [{ containerPort: 5432 }] },
      { name: 'exporter', image: 'exporter:1', ports: [{ containerPort: 9187 }] },
    ],
  },
  status: {
    conditions: [
      { type: 'Initialized', status: 'True', count: 1 },
      { type: 'Ready', status: 'False', count: 4, reason: 'Pending' },
      { type: 'Synced', status: 'True', count: 2 },
    ],
  },
};

function find(path: string, data: unknown = obj): unknown[] | undefined {
  const parsed = parseJsonPath(path);
  if (!parsed.ok) throw new Error(parsed.error);
  return findResults(parsed.path, data);
}

describe('JSONPath selection', () => {
  it.each<[string, unknown[]]>([
    ['.metadata.name', ['db-0']],
    ['.spec.replicas', [3]],
    ['.spec.paused', [false]],
    ['.spec.nothing', [null]],
    [".metadata.labels['app.kubernetes.io/name']", ['postgres']],
    ['.metadata.labels["app.kubernetes.io/name"]', ['postgres']],
    [".metadata.labels['tier','app.kubernetes.io/name']", ['data', 'postgres']],
    ['.spec.containers[0].image', ['postgres:16']],
    ['.spec.containers[-1].name', ['exporter']],
    ['.spec.containers[*].name', ['pg', 'exporter']],
    ['.spec.containers[*].ports[*].containerPort', [5432, 9187]],
    ['.spec.containers[0:1].name', ['pg']],
    ['.spec.containers[::2].name', ['pg']],
    ['.spec.containers[1:].name', ['exporter']],
    ['.metadata.labels.*', ['postgres', 'data']],
    ['..containerPort', [5432, 9187]],
    ['$.metadata.name', ['db-0']],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type == 'Ready')].reason", ['Pending']],
    ['.status.conditions[?(@.status!="True")].type', ['Ready']],
    ['.status.conditions[?(@.count > 1)].type', ['Ready', 'Synced']],
    ['.status.conditions[?(@.count <= 1)].type', ['Initialized']],
    ['.status.conditions[?(@.reason)].type', ['Ready']],
    ['.status.conditions[?(@.type=="Ready")].missing', []],
    ['.status.conditions[?(@.type=="Gone")].status', []],
  ])('%s', (path, want) => {
    expect(find(path)).toEqual(want);
  });

  it('selects the whole object with `.`', () => {
    expect(find('.')).toEqual([obj]);
  });

  it('returns nothing for missing keys, at any depth (AllowMissingKeys)', () => {
    expect(find('.status.phase')).toEqual([]);
    expect(find('.nope.deeper.still')).toEqual([]);
    expect(find('.spec.nothing.below')).toEqual([]);
    expect(find('.spec.containers.name')).toEqual([]);
  });

  it('fails where kube’s evaluation fails: bad indexes, filtering a map, mixed comparisons', () => {
    expect(find('.spec.containers[5].name')).toBeUndefined();
    expect(find('.spec.replicas[0]')).toBeUndefined();
    expect(find('.metadata.labels[?(@.x=="y")]')).toBeUndefined();
    // count 2.5 is a float64 and 1 an int: text/template refuses to compare them.
    expect(find('.status.conditions[?(@.count > 1)].type', { status: { conditions: [{ type: 'a', count: 2.5 }] } })).toBeUndefined();
    expect(find('.status.conditions[?(@.count > 1.0)].type', { status: { conditions: [{ type: 'a', count: 2.5 }] } })).toEqual(['a']);
    expect(find('.status.conditions[?(@.type == 3)].type')).toBeUndefined();
  });

  it('rejects what kube’s parser rejects, or what we do not support', () => {
    for (const bad of ['.spec.containers[0,1]', '.a[?(@.x == bare)]', '.a[?(@.x == "y")', ".a['b", '.a[', '.a[?(@.x = "y")]']) {
      expect(parseJsonPath(bad).ok, bad).toBe(false);
    }
  });
});
