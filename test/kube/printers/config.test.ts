// ConfigMaps, Secrets, ServiceAccounts, Namespaces and ResourceQuotas: kube's TestPrintSecret,
// TestPrintServiceAccount, TestPrintNamespace and TestPrintResourceQuota-style cases.

import { describe, expect, it } from 'vitest';
import { ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

const justCreated = ago(-1900);

describe('configmaps', () => {
  it('count data and binaryData keys', () => {
    expect(columnsOf('', 'configmaps')).toEqual([['Name', 'string', 'name', 0], ['Data', 'string', '', 0], ['Age', 'string', '', 0]]);
    expect(cellsOf('', 'configmaps', { metadata: { name: 'cm', creationTimestamp: justCreated }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }))
      .toEqual(['cm', 3, '0s']);
    expect(cellsOf('', 'configmaps', { metadata: { name: 'empty' } })).toEqual(['empty', 0, '<unknown>']);
  });
});

describe('secrets (TestPrintSecret)', () => {
  it('print type and the number of keys', () => {
    expect(columnsOf('', 'secrets').map((c) => c[0])).toEqual(['Name', 'Type', 'Data', 'Age']);
    const meta = { name: 'secret1', creationTimestamp: justCreated };
    expect(cellsOf('', 'secrets', { metadata: meta, type: 'kubernetes.io/service-account-token', data: { token: 'c2VjcmV0' } }))
      .toEqual(['secret1', 'kubernetes.io/service-account-token', 1, '0s']);
    expect(cellsOf('', 'secrets', { metadata: meta, type: 'kubernetes.io/service-account-token' }))
      .toEqual(['secret1', 'kubernetes.io/service-account-token', 0, '0s']);
    // stringData is merged into data by the v1 conversion.
    expect(cellsOf('', 'secrets', { metadata: meta, type: 'Opaque', data: { a: 'YQ==' }, stringData: { a: 'x', b: 'y' } }))
      .toEqual(['secret1', 'Opaque', 2, '0s']);
  });
});

describe('serviceaccounts (TestPrintServiceAccount)', () => {
  it('count secrets', () => {
    const meta = { name: 'sa1', creationTimestamp: justCreated };
    expect(cellsOf('', 'serviceaccounts', { metadata: meta, secrets: [] })).toEqual(['sa1', 0, '0s']);
    expect(cellsOf('', 'serviceaccounts', { metadata: meta, secrets: [{ name: 'Secret1' }, { name: 'Secret2' }] })).toEqual(['sa1', 2, '0s']);
  });
});

describe('namespaces (TestPrintNamespace)', () => {
  it('print the phase', () => {
    expect(columnsOf('', 'namespaces').map((c) => c[0])).toEqual(['Name', 'Status', 'Age']);
    expect(cellsOf('', 'namespaces', { metadata: { name: 'namespace1', creationTimestamp: justCreated }, status: { phase: 'FooStatus' } }))
      .toEqual(['namespace1', 'FooStatus', '0s']);
    expect(cellsOf('', 'namespaces', { metadata: { name: 'namespace2' } })).toEqual(['namespace2', '', '<unknown>']);
  });
});

describe('resourcequotas', () => {
  it('split requests and limits, sorted by resource name', () => {
    const quota = {
      metadata: { name: 'compute' },
      status: {
        hard: { 'limits.memory': '2Gi', 'requests.cpu': '1', pods: '10', 'limits.cpu': '2', 'count/deployments.apps': '5' },
        used: { 'limits.memory': '512Mi', 'requests.cpu': '250m', pods: '3', 'limits.cpu': '500m' },
      },
    };
    expect(cellsOf('', 'resourcequotas', quota)).toEqual([
      'compute',
      'count/deployments.apps: 0/5, pods: 3/10, requests.cpu: 250m/1',
      'limits.cpu: 500m/2, limits.memory: 512Mi/2Gi',
      '<unknown>',
    ]);
    expect(cellsOf('', 'resourcequotas', { metadata: { name: 'none' } })).toEqual(['none', '', '', '<unknown>']);
  });
});
