// The kinds kube 1.32 prints beyond the classic ones: API Priority and Fairness, CEL admission policies,
// ServiceCIDRs and IPAddresses, VolumeAttributesClasses, ClusterTrustBundles, resource.k8s.io (v1beta1),
// StorageVersions, StorageVersionMigrations, LeaseCandidates and ComponentStatuses.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resourcePrinterFor, tableFor } from '../../../src/kube/printers/index.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { DAY, MINUTE, NOW, ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

const threeDays = ago(3 * DAY);
const fiveMinutes = ago(5 * MINUTE);

/** [name, description] of each of kube's columns for `group/resource`. */
function descriptionsOf(group: string, resource: string): Array<[string, string]> {
  return resourcePrinterFor({ group, resource }).columns.map((c) => [c.name, c.description]);
}

const NAME = ['Name', 'string', 'name', 0];
const AGE = ['Age', 'string', '', 0];

describe('flowschemas (printFlowSchema)', () => {
  const group = 'flowcontrol.apiserver.k8s.io';

  it('have the six columns, MissingPL last', () => {
    expect(columnsOf(group, 'flowschemas')).toEqual([
      NAME,
      ['PriorityLevel', 'string', '', 0],
      ['MatchingPrecedence', 'string', '', 0],
      ['DistinguisherMethod', 'string', '', 0],
      AGE,
      ['MissingPL', 'string', '', 0],
    ]);
    const docs = descriptionsOf(group, 'flowschemas');
    expect(docs[1]?.[1]).toBe('`name` is the name of the priority level configuration being referenced Required.');
    expect(docs[3]?.[1]).toMatch(/^`distinguisherMethod` defines how to compute the flow distinguisher/);
    expect(docs[5]).toEqual(['MissingPL', 'references a broken or non-existent PriorityLevelConfiguration']);
  });

  const schema = (spec: Record<string, unknown>, conditions?: unknown[]): KubeObject => ({
    metadata: { name: 'system-leader-election', creationTimestamp: threeDays },
    spec: { priorityLevelConfiguration: { name: 'leader-election' }, matchingPrecedence: 100, ...spec },
    ...(conditions === undefined ? {} : { status: { conditions } }),
  });

  it.each<[string, KubeObject, unknown[]]>([
    [
      'a distinguisher and a resolved level',
      schema({ distinguisherMethod: { type: 'ByUser' } }, [{ type: 'Dangling', status: 'False', reason: 'Found' }]),
      ['system-leader-election', 'leader-election', 100, 'ByUser', '3d', 'False'],
    ],
    [
      'a dangling reference',
      schema({ distinguisherMethod: { type: 'ByNamespace' } }, [{ type: 'Dangling', status: 'True', reason: 'NotFound' }]),
      ['system-leader-election', 'leader-election', 100, 'ByNamespace', '3d', 'True'],
    ],
    [
      'no distinguisher, not judged yet',
      schema({}),
      ['system-leader-election', 'leader-election', 100, '<none>', '3d', '?'],
    ],
    [
      'only other conditions',
      schema({ distinguisherMethod: null }, [{ type: 'Other', status: 'True' }]),
      ['system-leader-election', 'leader-election', 100, '<none>', '3d', '?'],
    ],
  ])('%s', (_name, fs, cells) => {
    expect(cellsOf(group, 'flowschemas', fs)).toEqual(cells);
  });
});

describe('prioritylevelconfigurations (printPriorityLevelConfiguration)', () => {
  const group = 'flowcontrol.apiserver.k8s.io';
  const plc = (name: string, spec: Record<string, unknown>): KubeObject => ({
    metadata: { name, creationTimestamp: threeDays },
    spec,
  });

  it('have the seven columns', () => {
    expect(columnsOf(group, 'prioritylevelconfigurations')).toEqual([
      NAME,
      ['Type', 'string', '', 0],
      ['NominalConcurrencyShares', 'string', '', 0],
      ['Queues', 'string', '', 0],
      ['HandSize', 'string', '', 0],
      ['QueueLengthLimit', 'string', '', 0],
      AGE,
    ]);
    expect(descriptionsOf(group, 'prioritylevelconfigurations')[3]?.[1]).toMatch(/^`queues` is the number of queues/);
  });

  it.each<[string, KubeObject, unknown[]]>([
    [
      'a queuing Limited level: numbers as numbers',
      plc('workload-high', {
        type: 'Limited',
        limited: { nominalConcurrencyShares: 40, lendablePercent: 50, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } },
      }),
      ['workload-high', 'Limited', 40, 128, 6, 50, '3d'],
    ],
    [
      'an Exempt level: nothing to show',
      plc('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0 } }),
      ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '3d'],
    ],
    [
      'a rejecting Limited level: shares only',
      plc('reject', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }),
      ['reject', 'Limited', 0, '<none>', '<none>', '<none>', '3d'],
    ],
    [
      'a v1beta2 object: assuredConcurrencyShares are the nominal ones',
      plc('old', { type: 'Limited', limited: { assuredConcurrencyShares: 20, limitResponse: { type: 'Reject' } } }),
      ['old', 'Limited', 20, '<none>', '<none>', '<none>', '3d'],
    ],
  ])('%s', (_name, o, cells) => {
    expect(cellsOf(group, 'prioritylevelconfigurations', o)).toEqual(cells);
  });
});

describe('admission policies (printValidatingAdmissionPolicy, printMutatingAdmissionPolicy)', () => {
  const group = 'admissionregistration.k8s.io';

  it('count rules and show the param kind', () => {
    expect(columnsOf(group, 'validatingadmissionpolicies')).toEqual([
      NAME, ['Validations', 'integer', '', 0], ['ParamKind', 'string', '', 0], AGE,
    ]);
    expect(columnsOf(group, 'mutatingadmissionpolicies')).toEqual([
      NAME, ['Mutations', 'integer', '', 0], ['ParamKind', 'string', '', 0], AGE,
    ]);
    expect(descriptionsOf(group, 'validatingadmissionpolicies').slice(1, 3)).toEqual([
      ['Validations', 'Validations indicates the number of validation rules defined in this configuration'],
      ['ParamKind', 'ParamKind specifies the kind of resources used to parameterize this policy'],
    ]);
    expect(descriptionsOf(group, 'mutatingadmissionpolicies')[1]).toEqual([
      'Mutations', 'Mutation indicates the number of mutations rules defined in this configuration',
    ]);
  });

  it('print validations, `<unset>` without a param kind', () => {
    const policy: KubeObject = {
      metadata: { name: 'demo-policy.example.com', creationTimestamp: fiveMinutes },
      spec: {
        failurePolicy: 'Fail',
        paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
        validations: [{ expression: 'object.spec.replicas <= params.maxReplicas' }, { expression: 'true' }],
      },
    };
    expect(cellsOf(group, 'validatingadmissionpolicies', policy)).toEqual(['demo-policy.example.com', 2, 'rules.example.com/v1/ReplicaLimit', '5m']);
    expect(cellsOf(group, 'validatingadmissionpolicies', { metadata: { name: 'bare' }, spec: {} })).toEqual(['bare', 0, '<unset>', '<unknown>']);
    // A core param kind: its apiVersion has no group.
    const core = { metadata: { name: 'cm' }, spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }] } };
    expect(cellsOf(group, 'validatingadmissionpolicies', core)).toEqual(['cm', 1, 'v1/ConfigMap', '<unknown>']);
  });

  it('print mutations', () => {
    const policy: KubeObject = {
      metadata: { name: 'add-label', creationTimestamp: threeDays },
      spec: { reinvocationPolicy: 'IfNeeded', mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }] },
    };
    expect(cellsOf(group, 'mutatingadmissionpolicies', policy)).toEqual(['add-label', 1, '<unset>', '3d']);
  });
});

describe('admission policy bindings (printValidatingAdmissionPolicyBinding and its mutating twin)', () => {
  const group = 'admissionregistration.k8s.io';
  const binding = (paramRef: unknown): KubeObject => ({
    metadata: { name: 'demo-binding', creationTimestamp: fiveMinutes },
    spec: { policyName: 'demo-policy.example.com', validationActions: ['Deny'], ...(paramRef === undefined ? {} : { paramRef }) },
  });

  it('have PolicyName and ParamRef', () => {
    for (const resource of ['validatingadmissionpolicybindings', 'mutatingadmissionpolicybindings']) {
      expect(columnsOf(group, resource)).toEqual([NAME, ['PolicyName', 'string', '', 0], ['ParamRef', 'string', '', 0], AGE]);
      expect(descriptionsOf(group, resource).slice(1, 3)).toEqual([
        ['PolicyName', 'PolicyName indicates the policy definition which the policy binding binded to'],
        ['ParamRef', 'ParamRef indicates the param resource which sets the configration param'],
      ]);
    }
  });

  it.each<[string, unknown, string]>([
    ['a namespaced param', { name: 'replica-limit-test.example.com', namespace: 'default', parameterNotFoundAction: 'Deny' }, 'default/replica-limit-test.example.com'],
    ['a param without a namespace', { name: 'limits' }, '*/limits'],
    [
      'a selector, in Go struct notation with sorted labels',
      {
        selector: {
          matchLabels: { tier: 'prod', app: 'web' },
          matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }, { key: 'canary', operator: 'DoesNotExist' }],
        },
        parameterNotFoundAction: 'Allow',
      },
      '&LabelSelector{MatchLabels:map[string]string{app: web,tier: prod,},MatchExpressions:[]LabelSelectorRequirement{' +
        'LabelSelectorRequirement{Key:env,Operator:In,Values:[a b],},LabelSelectorRequirement{Key:canary,Operator:DoesNotExist,Values:[],},},}',
    ],
    ['an empty selector', { selector: {} }, '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}'],
    ['a name wins over a selector', { name: 'x', namespace: 'ns', selector: {} }, 'ns/x'],
    ['neither name nor selector', { parameterNotFoundAction: 'Deny' }, '<unset>'],
    ['no paramRef', undefined, '<unset>'],
  ])('%s', (_name, paramRef, cell) => {
    const expected = ['demo-binding', 'demo-policy.example.com', cell, '5m'];
    expect(cellsOf(group, 'validatingadmissionpolicybindings', binding(paramRef))).toEqual(expected);
    expect(cellsOf(group, 'mutatingadmissionpolicybindings', binding(paramRef))).toEqual(expected);
  });
});

describe('servicecidrs and ipaddresses (printServiceCIDR, printIPAddress)', () => {
  const group = 'networking.k8s.io';

  it('join a ServiceCIDR’s CIDRs', () => {
    expect(columnsOf(group, 'servicecidrs')).toEqual([NAME, ['CIDRs', 'string', '', 0], AGE]);
    const cidr: KubeObject = { metadata: { name: 'kubernetes', creationTimestamp: threeDays }, spec: { cidrs: ['10.96.0.0/12', 'fd00:10:96::/112'] } };
    expect(cellsOf(group, 'servicecidrs', cidr)).toEqual(['kubernetes', '10.96.0.0/12,fd00:10:96::/112', '3d']);
    expect(cellsOf(group, 'servicecidrs', { metadata: { name: 'empty' } })).toEqual(['empty', '', '<unknown>']);
  });

  it('name an IPAddress’s parent — and send the age although no column declares it', () => {
    expect(columnsOf(group, 'ipaddresses')).toEqual([NAME, ['ParentRef', 'string', '', 0]]);
    const ip = (parentRef?: Record<string, unknown>): KubeObject => ({
      metadata: { name: '10.96.0.1', creationTimestamp: threeDays },
      ...(parentRef === undefined ? {} : { spec: { parentRef } }),
    });
    expect(cellsOf(group, 'ipaddresses', ip({ group: '', resource: 'services', namespace: 'default', name: 'kubernetes' })))
      .toEqual(['10.96.0.1', 'services/default/kubernetes', '3d']);
    // The group-qualified resource is lower-cased; cluster-scoped parents have no namespace segment.
    expect(cellsOf(group, 'ipaddresses', ip({ group: 'Gateway.Networking.k8s.io', resource: 'Gateways', name: 'gw' })))
      .toEqual(['10.96.0.1', 'gateways.gateway.networking.k8s.io/gw', '3d']);
    expect(cellsOf(group, 'ipaddresses', ip())).toEqual(['10.96.0.1', '<none>', '3d']);
  });

  it('always print one IPAddress cell more than there are columns', () => {
    const printer = tableFor({ group, resource: 'ipaddresses' });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('metadata', 'spec'), fc.jsonValue({ maxDepth: 3 })), (body) => {
        expect(printer.row(body as KubeObject, NOW).cells).toHaveLength(printer.columns.length + 1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('volumeattributesclasses (printVolumeAttributesClass)', () => {
  const vac = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
    metadata: { name, creationTimestamp: threeDays, annotations },
    driverName: 'pd.csi.storage.gke.io',
    parameters: { iops: '3000' },
  });

  it('mark the default class by its alpha annotation only', () => {
    expect(columnsOf('storage.k8s.io', 'volumeattributesclasses')).toEqual([NAME, ['DriverName', 'string', '', 0], AGE]);
    expect(descriptionsOf('storage.k8s.io', 'volumeattributesclasses')[1]).toEqual(['DriverName', 'Name of the CSI driver This field is immutable.']);
    expect(cellsOf('storage.k8s.io', 'volumeattributesclasses', vac('gold', { 'volumeattributesclass.alpha.kubernetes.io/is-default-class': 'true' })))
      .toEqual(['gold (default)', 'pd.csi.storage.gke.io', '3d']);
    expect(cellsOf('storage.k8s.io', 'volumeattributesclasses', vac('silver', { 'volumeattributesclass.alpha.kubernetes.io/is-default-class': 'false' })))
      .toEqual(['silver', 'pd.csi.storage.gke.io', '3d']);
    // StorageClass's default annotation means nothing here.
    expect(cellsOf('storage.k8s.io', 'volumeattributesclasses', vac('bronze', { 'storageclass.kubernetes.io/is-default-class': 'true' })))
      .toEqual(['bronze', 'pd.csi.storage.gke.io', '3d']);
  });
});

describe('clustertrustbundles (printClusterTrustBundle)', () => {
  it('print the signer, `<none>` without one, and no age', () => {
    expect(columnsOf('certificates.k8s.io', 'clustertrustbundles')).toEqual([NAME, ['SignerName', 'string', '', 0]]);
    const bundle = (name: string, signerName?: string): KubeObject => ({
      metadata: { name, creationTimestamp: threeDays },
      spec: { ...(signerName === undefined ? {} : { signerName }), trustBundle: '-----BEGIN CERTIFICATE-----\n...' },
    });
    expect(cellsOf('certificates.k8s.io', 'clustertrustbundles', bundle('example.com:foo:abc', 'example.com/foo'))).toEqual(['example.com:foo:abc', 'example.com/foo']);
    expect(cellsOf('certificates.k8s.io', 'clustertrustbundles', bundle('root-ca'))).toEqual(['root-ca', '<none>']);
  });
});

describe('resource.k8s.io (printDeviceClass, printResourceClaim, printResourceClaimTemplate, printResourceSlice)', () => {
  const group = 'resource.k8s.io';

  it('show classes and templates by name and age', () => {
    for (const resource of ['deviceclasses', 'resourceclaimtemplates']) {
      expect(columnsOf(group, resource)).toEqual([NAME, AGE]);
    }
    const cls: KubeObject = { metadata: { name: 'gpu.example.com', creationTimestamp: threeDays }, spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } };
    expect(cellsOf(group, 'deviceclasses', cls)).toEqual(['gpu.example.com', '3d']);
    const tmpl: KubeObject = { metadata: { name: 'single-gpu', namespace: 'ml', creationTimestamp: fiveMinutes }, spec: { spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'gpu.example.com' }] } } } };
    expect(cellsOf(group, 'resourceclaimtemplates', tmpl)).toEqual(['single-gpu', '5m']);
  });

  it('summarise a claim’s state', () => {
    expect(columnsOf(group, 'resourceclaims')).toEqual([NAME, ['State', 'string', '', 0], AGE]);
    expect(descriptionsOf(group, 'resourceclaims')[1]).toEqual(['State', 'A summary of the current state (allocated, pending, reserved, etc.).']);
    const allocation = { devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'worker-1', device: 'gpu-0' }] } };
    const reservedFor = [{ resource: 'pods', name: 'trainer', uid: 'b3c1' }];
    const claim = (status: Record<string, unknown>, deleting = false): KubeObject => ({
      metadata: { name: 'gpu-claim', namespace: 'ml', creationTimestamp: fiveMinutes, ...(deleting ? { deletionTimestamp: ago(MINUTE) } : {}) },
      spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'gpu.example.com' }] } },
      status,
    });
    expect(cellsOf(group, 'resourceclaims', claim({}))).toEqual(['gpu-claim', 'pending', '5m']);
    expect(cellsOf(group, 'resourceclaims', claim({ allocation }))).toEqual(['gpu-claim', 'allocated', '5m']);
    expect(cellsOf(group, 'resourceclaims', claim({ allocation, reservedFor }))).toEqual(['gpu-claim', 'allocated,reserved', '5m']);
    expect(cellsOf(group, 'resourceclaims', claim({}, true))).toEqual(['gpu-claim', 'deleted', '5m']);
    expect(cellsOf(group, 'resourceclaims', claim({ allocation, reservedFor }, true))).toEqual(['gpu-claim', 'deleted,allocated,reserved', '5m']);
    // An empty reservedFor list reserves nothing.
    expect(cellsOf(group, 'resourceclaims', claim({ allocation, reservedFor: [] }))).toEqual(['gpu-claim', 'allocated', '5m']);
  });

  it('print a slice’s node, driver and pool', () => {
    expect(columnsOf(group, 'resourceslices')).toEqual([NAME, ['Node', 'string', '', 0], ['Driver', 'string', '', 0], ['Pool', 'string', '', 0], AGE]);
    expect(descriptionsOf(group, 'resourceslices')[1]?.[1]).toMatch(/Exactly one of NodeName, NodeSelector and AllNodes must be set\. This field is immutable\.$/);
    const slice = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'worker-1-gpu.example.com-x7k2p', creationTimestamp: threeDays }, spec });
    expect(cellsOf(group, 'resourceslices', slice({ driver: 'gpu.example.com', nodeName: 'worker-1', pool: { name: 'worker-1', generation: 1, resourceSliceCount: 1 } })))
      .toEqual(['worker-1-gpu.example.com-x7k2p', 'worker-1', 'gpu.example.com', 'worker-1', '3d']);
    // A network-attached pool has no node.
    expect(cellsOf(group, 'resourceslices', slice({ driver: 'nas.example.com', allNodes: true, pool: { name: 'rack-7' } })))
      .toEqual(['worker-1-gpu.example.com-x7k2p', '', 'nas.example.com', 'rack-7', '3d']);
  });
});

describe('storageversions (printStorageVersion)', () => {
  const group = 'internal.apiserver.k8s.io';
  const sv = (status: Record<string, unknown>): KubeObject => ({ metadata: { name: 'apps.deployments', creationTimestamp: threeDays }, spec: {}, status });
  const server = (id: string): Record<string, unknown> => ({ apiServerID: id, encodingVersion: 'apps/v1', decodableVersions: ['apps/v1'] });

  it('print the common version and up to three servers', () => {
    expect(columnsOf(group, 'storageversions')).toEqual([NAME, ['CommonEncodingVersion', 'string', '', 0], ['StorageVersions', 'string', '', 0], AGE]);
    expect(descriptionsOf(group, 'storageversions')[2]).toEqual(['StorageVersions', 'The reported versions per API server instance.']);
    expect(cellsOf(group, 'storageversions', sv({ commonEncodingVersion: 'apps/v1', storageVersions: [server('kube-apiserver-a'), server('kube-apiserver-b')] })))
      .toEqual(['apps.deployments', 'apps/v1', 'kube-apiserver-a=apps/v1,kube-apiserver-b=apps/v1', '3d']);
    expect(cellsOf(group, 'storageversions', sv({ storageVersions: ['a', 'b', 'c', 'd'].map(server) })))
      .toEqual(['apps.deployments', '<unset>', 'a=apps/v1,b=apps/v1,c=apps/v1 + 1 more...', '3d']);
    expect(cellsOf(group, 'storageversions', sv({}))).toEqual(['apps.deployments', '<unset>', '<unset>', '3d']);
    // An empty common version is set, hence printed as is.
    expect(cellsOf(group, 'storageversions', sv({ commonEncodingVersion: '' }))[1]).toBe('');
  });
});

describe('storageversionmigrations (printStorageVersionMigration)', () => {
  it('print resource.version.group, under a Name column without the name format', () => {
    expect(columnsOf('storagemigration.k8s.io', 'storageversionmigrations')).toEqual([['Name', 'string', '', 0], ['Resource', 'string', '', 0]]);
    expect(descriptionsOf('storagemigration.k8s.io', 'storageversionmigrations')).toEqual([
      ['Name', resourcePrinterFor({ group: '', resource: 'pods' }).columns[0]?.description],
      ['Resource', 'Fully qualified resource to migrate'],
    ]);
    const svm = (resource: Record<string, unknown>): KubeObject => ({ metadata: { name: 'migrate', creationTimestamp: threeDays }, spec: { resource } });
    expect(cellsOf('storagemigration.k8s.io', 'storageversionmigrations', svm({ group: 'apps', version: 'v1', resource: 'deployments' })))
      .toEqual(['migrate', 'deployments.v1.apps']);
    expect(cellsOf('storagemigration.k8s.io', 'storageversionmigrations', svm({ version: 'v1', resource: 'secrets' })))
      .toEqual(['migrate', 'secrets.v1.']);
  });
});

describe('leasecandidates (printLeaseCandidate)', () => {
  it('print the lease and both versions', () => {
    expect(columnsOf('coordination.k8s.io', 'leasecandidates')).toEqual([
      NAME, ['LeaseName', 'string', '', 0], ['BinaryVersion', 'string', '', 0], ['EmulationVersion', 'string', '', 0], AGE,
    ]);
    expect(descriptionsOf('coordination.k8s.io', 'leasecandidates').slice(1, 4)).toEqual([
      ['LeaseName', 'LeaseName is the name of the lease for which this candidate is contending. This field is immutable.'],
      ['BinaryVersion', ''],
      ['EmulationVersion', ''],
    ]);
    const candidate: KubeObject = {
      metadata: { name: 'kube-controller-manager-node-1', namespace: 'kube-system', creationTimestamp: fiveMinutes },
      spec: { leaseName: 'kube-controller-manager', binaryVersion: '1.32.0', emulationVersion: '1.31.0', strategy: 'OldestEmulationVersion', renewTime: ago(10_000) },
    };
    expect(cellsOf('coordination.k8s.io', 'leasecandidates', candidate)).toEqual(['kube-controller-manager-node-1', 'kube-controller-manager', '1.32.0', '1.31.0', '5m']);
    expect(cellsOf('coordination.k8s.io', 'leasecandidates', { metadata: { name: 'x' } })).toEqual(['x', '', '', '', '<unknown>']);
  });
});

describe('componentstatuses (printComponentStatus)', () => {
  it('print the Healthy condition, and no age', () => {
    expect(columnsOf('', 'componentstatuses')).toEqual([NAME, ['Status', 'string', '', 0], ['Message', 'string', '', 0], ['Error', 'string', '', 0]]);
    expect(descriptionsOf('', 'componentstatuses').slice(1)).toEqual([
      ['Status', 'Status of the component conditions'],
      ['Message', 'Message of the component conditions'],
      ['Error', 'Error of the component conditions'],
    ]);
    const cs = (name: string, conditions?: unknown[]): KubeObject => ({ metadata: { name }, ...(conditions === undefined ? {} : { conditions }) });
    expect(cellsOf('', 'componentstatuses', cs('etcd-0', [{ type: 'Healthy', status: 'True', message: 'ok' }]))).toEqual(['etcd-0', 'Healthy', 'ok', '']);
    const refused = 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused';
    expect(cellsOf('', 'componentstatuses', cs('scheduler', [{ type: 'Healthy', status: 'False', error: refused }])))
      .toEqual(['scheduler', 'Unhealthy', '', refused]);
    expect(cellsOf('', 'componentstatuses', cs('controller-manager', [{ type: 'Healthy', status: 'Unknown' }])))
      .toEqual(['controller-manager', 'Unhealthy', '', '']);
    expect(cellsOf('', 'componentstatuses', cs('controller-manager'))).toEqual(['controller-manager', 'Unknown', '', '']);
  });
});
