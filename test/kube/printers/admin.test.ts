// RBAC bindings, PriorityClasses, RuntimeClasses, Leases, webhook configurations, CSRs, APIServices,
// HorizontalPodAutoscalers and PodDisruptionBudgets: kube's printer test cases for each.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { HOUR } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

describe('role bindings (TestPrintRoleBinding / TestPrintClusterRoleBinding)', () => {
  const subjects = [
    { kind: 'User', name: 'system:kube-controller-manager' },
    { kind: 'Group', name: 'system:masters' },
    { kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' },
    { kind: 'Robot', name: 'r2' },
    { kind: 'User', name: 'jane' },
  ];
  it('print the role and, wide, users, groups and service accounts', () => {
    expect(columnsOf('rbac.authorization.k8s.io', 'rolebindings').map((c) => `${c[0]}:${c[3]}`)).toEqual(
      ['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1'],
    );
    const rb: KubeObject = { metadata: { name: 'binding1' }, roleRef: { kind: 'Role', name: 'extension-apiserver-authentication-reader' }, subjects };
    expect(cellsOf('rbac.authorization.k8s.io', 'rolebindings', rb)).toEqual([
      'binding1', 'Role/extension-apiserver-authentication-reader', '<unknown>',
      'system:kube-controller-manager, jane', 'system:masters', 'kube-system/default',
    ]);
    const crb: KubeObject = { metadata: { name: 'binding2' }, roleRef: { kind: 'ClusterRole', name: 'system:kube-controller-manager' } };
    expect(cellsOf('rbac.authorization.k8s.io', 'clusterrolebindings', crb)).toEqual(
      ['binding2', 'ClusterRole/system:kube-controller-manager', '<unknown>', '', '', ''],
    );
  });
});

describe('scheduling, node and coordination kinds', () => {
  it('print PriorityClasses (TestPrintPriorityClass)', () => {
    expect(columnsOf('scheduling.k8s.io', 'priorityclasses')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Value', 'integer', '', 0],
      ['Global-Default', 'boolean', '', 0],
      ['Age', 'string', '', 0],
      ['PreemptionPolicy', 'string', '', 0],
    ]);
    expect(cellsOf('scheduling.k8s.io', 'priorityclasses', { metadata: { name: 'pc1' }, value: 1 })).toEqual(['pc1', 1, false, '<unknown>', '']);
    expect(cellsOf('scheduling.k8s.io', 'priorityclasses', { metadata: { name: 'pc2' }, value: 1000000000, globalDefault: true, preemptionPolicy: 'Never' }))
      .toEqual(['pc2', 1000000000, true, '<unknown>', 'Never']);
  });

  it('print RuntimeClasses and Leases', () => {
    expect(cellsOf('node.k8s.io', 'runtimeclasses', { metadata: { name: 'gvisor' }, handler: 'runsc' })).toEqual(['gvisor', 'runsc', '<unknown>']);
    expect(cellsOf('coordination.k8s.io', 'leases', { metadata: { name: 'kube-scheduler' }, spec: { holderIdentity: 'node1_abc' } }))
      .toEqual(['kube-scheduler', 'node1_abc', '<unknown>']);
    expect(cellsOf('coordination.k8s.io', 'leases', { metadata: { name: 'free' }, spec: {} })).toEqual(['free', '', '<unknown>']);
  });
});

describe('admission webhooks, CSRs and APIServices', () => {
  it('count webhooks', () => {
    const hooks = { metadata: { name: 'w' }, webhooks: [{ name: 'a' }, { name: 'b' }] };
    expect(cellsOf('admissionregistration.k8s.io', 'mutatingwebhookconfigurations', hooks)).toEqual(['w', 2, '<unknown>']);
    expect(cellsOf('admissionregistration.k8s.io', 'validatingwebhookconfigurations', { metadata: { name: 'v' } })).toEqual(['v', 0, '<unknown>']);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, unknown[]]>([
    ['pending, no signer', { username: 'CSRRequestor' }, {}, ['csr1', '<unknown>', '<none>', 'CSRRequestor', '<none>', 'Pending']],
    [
      'approved and issued, with a duration',
      { username: 'CSRRequestor', signerName: 'example.com/signer', expirationSeconds: 10800 },
      { conditions: [{ type: 'Approved' }], certificate: 'Y2VydA==' },
      ['csr1', '<unknown>', 'example.com/signer', 'CSRRequestor', '3h', 'Approved,Issued'],
    ],
    [
      'denied wins, failed is flagged',
      { username: 'u', expirationSeconds: 600 },
      { conditions: [{ type: 'Approved' }, { type: 'Denied' }, { type: 'Failed' }] },
      ['csr1', '<unknown>', '<none>', 'u', '10m', 'Denied,Failed'],
    ],
  ])('print CSR: %s (TestPrintCertificateSigningRequest)', (_name, spec, status, want) => {
    expect(cellsOf('certificates.k8s.io', 'certificatesigningrequests', { metadata: { name: 'csr1' }, spec, status })).toEqual(want);
  });

  it('print APIServices as kube-aggregator does', () => {
    expect(columnsOf('apiregistration.k8s.io', 'apiservices').map((c) => c[0])).toEqual(['Name', 'Service', 'Available', 'Age']);
    expect(cellsOf('apiregistration.k8s.io', 'apiservices', {
      metadata: { name: 'v1.apps' },
      spec: {},
      status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] },
    })).toEqual(['v1.apps', 'Local', 'True', '<unknown>']);
    expect(cellsOf('apiregistration.k8s.io', 'apiservices', {
      metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: { service: { namespace: 'kube-system', name: 'metrics-server' } },
      status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] },
    })).toEqual(['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (MissingEndpoints)', '<unknown>']);
    expect(cellsOf('apiregistration.k8s.io', 'apiservices', { metadata: { name: 'x' } })).toEqual(['x', 'Local', 'Unknown', '<unknown>']);
  });
});

describe('horizontalpodautoscalers (TestPrintHPA)', () => {
  const hpa = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name: 'some-hpa' },
    spec: { scaleTargetRef: { kind: 'ReplicationController', name: 'some-rc' }, maxReplicas: 10, ...spec },
    status: { currentReplicas: 4, desiredReplicas: 5, ...status },
  });
  const targets = (h: KubeObject) => cellsOf('autoscaling', 'horizontalpodautoscalers', h)[2];

  it('print reference, bounds and replicas', () => {
    expect(columnsOf('autoscaling', 'horizontalpodautoscalers').map((c) => c[0])).toEqual(
      ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
    );
    expect(cellsOf('autoscaling', 'horizontalpodautoscalers', hpa({ minReplicas: 2 }))).toEqual(
      ['some-hpa', 'ReplicationController/some-rc', '<none>', '2', 10, 4, '<unknown>'],
    );
    expect(cellsOf('autoscaling', 'horizontalpodautoscalers', hpa({}))[3]).toBe('<unset>');
  });

  it.each<[string, unknown[], unknown[], string]>([
    ['external value, no status', [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '100m' } } }], [], '<unknown>/100m'],
    ['external average', [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '100m' } } }], [{ type: 'External', external: { current: { averageValue: '50m' } } }], '50m/100m (avg)'],
    ['pods', [{ type: 'Pods', pods: { metric: { name: 'm' }, target: { type: 'AverageValue', averageValue: '100m' } } }], [{ type: 'Pods', pods: { current: { averageValue: '50m' } } }], '50m/100m'],
    ['object value', [{ type: 'Object', object: { metric: { name: 'm' }, target: { type: 'Value', value: '1' } } }], [{ type: 'Object', object: { current: { value: '3' } } }], '3/1'],
    ['resource utilization', [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 50 } } }], 'cpu: 50%/80%'],
    ['resource utilization, auto target, no status', [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }], [], 'cpu: <unknown>/<auto>'],
    ['resource average value', [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }], [{ type: 'Resource', resource: { name: 'memory', current: { averageValue: '500Mi' } } }], 'memory: 500Mi/1Gi'],
    ['container resource', [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } }], [{ type: 'ContainerResource', containerResource: { name: 'cpu', current: { averageUtilization: 30 } } }], 'cpu: 30%/60%'],
    ['unknown type', [{ type: 'Magic' }], [], '<unknown type>'],
    [
      'more than two',
      [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } },
        { type: 'Pods', pods: { target: { averageValue: '1' } } },
      ],
      [],
      'cpu: <unknown>/80%, memory: <unknown>/70% + 1 more...',
    ],
  ])('targets: %s', (_name, metrics, currentMetrics, want) => {
    expect(targets(hpa({ metrics }, { currentMetrics }))).toBe(want);
  });

  it('read autoscaling/v1 CPU targets through the v1 conversion', () => {
    expect(targets(hpa({ targetCPUUtilizationPercentage: 80 }, { currentCPUUtilizationPercentage: 45 }))).toBe('cpu: 45%/80%');
    expect(targets(hpa({ targetCPUUtilizationPercentage: 80 }))).toBe('cpu: <unknown>/80%');
  });
});

describe('poddisruptionbudgets (TestPrintPodDisruptionBudget)', () => {
  it('print min available or max unavailable and allowed disruptions', () => {
    expect(columnsOf('policy', 'poddisruptionbudgets').map((c) => `${c[0]}:${c[1]}`)).toEqual(
      ['Name:string', 'Min Available:string', 'Max Unavailable:string', 'Allowed Disruptions:integer', 'Age:string'],
    );
    const created = new Date(Date.parse('2024-06-01T12:00:00Z') - 2 * HOUR).toISOString();
    expect(cellsOf('policy', 'poddisruptionbudgets', { metadata: { name: 'pdb1', creationTimestamp: created }, spec: { minAvailable: 22 }, status: { disruptionsAllowed: 5 } }))
      .toEqual(['pdb1', '22', 'N/A', 5, '120m']); // HumanDuration keeps minutes below 3h
    expect(cellsOf('policy', 'poddisruptionbudgets', { metadata: { name: 'pdb2' }, spec: { maxUnavailable: '11%' }, status: {} }))
      .toEqual(['pdb2', 'N/A', '11%', 0, '<unknown>']);
  });
});
