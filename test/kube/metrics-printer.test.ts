// kubectl top's figures for kubectl get of PodMetrics and NodeMetrics.
import { describe, expect, it } from 'vitest';
import { metricsPrinter, quantityValue } from '../../src/kube/printers/index.js';
import type { KubeObject } from '../../src/kube/types.js';

describe('metrics printing', () => {
  it('reads the quantities metrics-server writes', () => {
    expect(quantityValue('250000000n')).toBeCloseTo(0.25);
    expect(quantityValue('1500m')).toBeCloseTo(1.5);
    expect(quantityValue('2')).toBe(2);
    expect(quantityValue('131072Ki')).toBe(128 * 1024 * 1024);
    expect(quantityValue('1Gi')).toBe(1024 ** 3);
    expect(quantityValue('12e3')).toBeNaN();
    expect(quantityValue(undefined)).toBeNaN();
  });

  it("sums a pod's containers, and says <unknown> for what it cannot read", () => {
    const now = new Date('2026-01-01T00:10:00Z');
    const pod = { metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' }, window: '15s',
      containers: [{ usage: { cpu: '100000000n', memory: '65536Ki' } }, { usage: { cpu: '25m', memory: '64Mi' } }] } as unknown as KubeObject;
    expect(metricsPrinter.cells(pod, now)).toEqual(['p', '125m', '128Mi', '15s', '10m']);
    // CPU rounded up, memory down, as kubectl top prints them.
    const odd = { metadata: { name: 'o' }, usage: { cpu: '96000001n', memory: '2097151Ki' } } as unknown as KubeObject;
    expect(metricsPrinter.cells(odd, now).slice(1, 3)).toEqual(['97m', '2047Mi']);
    const node = { metadata: { name: 'n' }, usage: { cpu: 'lots', memory: '1Gi' } } as unknown as KubeObject;
    expect(metricsPrinter.cells(node, now).slice(0, 3)).toEqual(['n', '<unknown>', '1024Mi']);
    // Whatever a member sends, a row and never an exception.
    for (const odd of [{ containers: [null, 7] }, { usage: 'x' }, { metadata: 'm', containers: 'c' }, {}]) {
      expect(metricsPrinter.cells(odd as unknown as KubeObject, now)).toHaveLength(5);
    }
  });
});
