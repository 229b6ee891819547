// Services, Ingresses, IngressClasses, Endpoints, EndpointSlices and NetworkPolicies: kube's
// TestPrintServiceLoadBalancer, TestPrintIngress, TestPrintIngressClass, TestPrintEndpoint and
// TestPrintEndpointSlice cases, as the server prints them (always wide).

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { DAY, ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

function svc(name: string, spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name }, spec, status };
}

describe('services', () => {
  it('have printService’s columns', () => {
    expect(columnsOf('', 'services')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Type', 'string', '', 0],
      ['Cluster-IP', 'string', '', 0],
      ['External-IP', 'string', '', 0],
      ['Port(s)', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Selector', 'string', '', 1],
    ]);
  });

  it.each<[string, KubeObject, unknown[]]>([
    [
      'load balancer with two ingress IPs',
      svc('service1', { clusterIPs: ['1.2.3.4'], type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] }, { loadBalancer: { ingress: [{ ip: '2.3.4.5' }, { ip: '3.4.5.6' }] } }),
      ['service1', 'LoadBalancer', '1.2.3.4', '2.3.4.5,3.4.5.6', '80/TCP', '<unknown>', '<none>'],
    ],
    [
      'load balancer still pending',
      svc('service2', {
        clusterIPs: ['1.3.4.5'],
        type: 'LoadBalancer',
        ports: [{ port: 80, protocol: 'TCP' }, { port: 8090, protocol: 'UDP' }, { port: 8000, protocol: 'TCP' }, { port: 7777, protocol: 'SCTP' }],
      }),
      ['service2', 'LoadBalancer', '1.3.4.5', '<pending>', '80/TCP,8090/UDP,8000/TCP,7777/SCTP', '<unknown>', '<none>'],
    ],
    [
      // kube clips this to `2.3.4.5,3.4.5...` for narrow output; the server prints wide, so never.
      'long ingress lists are not clipped by the server',
      svc('service4', { clusterIPs: ['1.5.6.7'], type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }], selector: { foo: 'bar' } }, {
        loadBalancer: { ingress: [{ ip: '2.3.4.5' }, { ip: '3.4.5.6' }, { ip: '5.6.7.8', hostname: 'host5678' }] },
      }),
      ['service4', 'LoadBalancer', '1.5.6.7', '2.3.4.5,3.4.5.6,5.6.7.8', '80/TCP', '<unknown>', 'foo=bar'],
    ],
    [
      'load balancer with hostnames and external IPs',
      svc('lb', { clusterIPs: ['10.0.0.1'], type: 'LoadBalancer', externalIPs: ['9.9.9.9'], ports: [{ port: 443, nodePort: 30443, protocol: 'TCP' }] }, {
        loadBalancer: { ingress: [{ hostname: 'b.example.com' }, { hostname: 'a.example.com' }, { ip: '2.3.4.5' }, { ip: '2.3.4.5' }] },
      }),
      ['lb', 'LoadBalancer', '10.0.0.1', '2.3.4.5,a.example.com,b.example.com,9.9.9.9', '443:30443/TCP', '<unknown>', '<none>'],
    ],
    [
      'cluster IP without external IPs',
      svc('web', { clusterIPs: ['10.96.0.10'], type: 'ClusterIP', ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }], selector: { 'k8s-app': 'kube-dns' } }),
      ['web', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,53/TCP', '<unknown>', 'k8s-app=kube-dns'],
    ],
    [
      'node port with external IPs',
      svc('np', { clusterIPs: ['10.0.0.2'], type: 'NodePort', externalIPs: ['1.1.1.1', '2.2.2.2'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] }),
      ['np', 'NodePort', '10.0.0.2', '1.1.1.1,2.2.2.2', '80:30080/TCP', '<unknown>', '<none>'],
    ],
    [
      'headless, no ports',
      svc('headless', { clusterIP: 'None', clusterIPs: ['None'], type: 'ClusterIP' }),
      ['headless', 'ClusterIP', 'None', '<none>', '<none>', '<unknown>', '<none>'],
    ],
    [
      'external name',
      svc('ext', { type: 'ExternalName', externalName: 'db.example.com' }),
      ['ext', 'ExternalName', '<none>', 'db.example.com', '<none>', '<unknown>', '<none>'],
    ],
    [
      'pre-dual-stack object with only clusterIP',
      svc('old', { clusterIP: '10.0.0.3', type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP' }] }),
      ['old', 'ClusterIP', '10.0.0.3', '<none>', '80/TCP', '<unknown>', '<none>'],
    ],
    ['unknown type', svc('odd', {}), ['odd', '', '<none>', '<unknown>', '<none>', '<unknown>', '<none>']],
  ])('%s', (_name, s, want) => {
    expect(cellsOf('', 'services', s)).toEqual(want);
  });
});

describe('ingresses (TestPrintIngress)', () => {
  it('have printIngress’s columns', () => {
    expect(columnsOf('networking.k8s.io', 'ingresses').map((c) => c[0])).toEqual(['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
  });

  it('print class, hosts, address and ports', () => {
    const ingress: KubeObject = {
      metadata: { name: 'test1', creationTimestamp: ago(10 * 365 * DAY) },
      spec: { ingressClassName: 'foo', defaultBackend: { service: { name: 'default-backend', port: { name: 'default-backend', number: 80 } } } },
      status: { loadBalancer: { ingress: [{ ip: '2.3.4.5', hostname: 'localhost.localdomain' }] } },
    };
    expect(cellsOf('networking.k8s.io', 'ingresses', ingress)).toEqual(['test1', 'foo', '*', '2.3.4.5', '80', '10y']);
  });

  it('list at most three hosts and say how many more', () => {
    const rules = ['a.com', '', 'b.com', 'c.com', 'd.com', 'e.com'].map((host) => (host === '' ? {} : { host }));
    const ingress: KubeObject = { metadata: { name: 'many' }, spec: { rules, tls: [{ hosts: ['a.com'] }] } };
    expect(cellsOf('networking.k8s.io', 'ingresses', ingress)).toEqual(
      ['many', '<none>', 'a.com,b.com,c.com + 3 more...', '', '80, 443', '<unknown>'],
    );
  });
});

describe('ingressclasses (TestPrintIngressClass)', () => {
  const created = ago(10 * 365 * DAY);
  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['with params', { controller: 'example.com/controller', parameters: { kind: 'customgroup', name: 'example' } }, ['test1', 'example.com/controller', 'customgroup/example', '10y']],
    [
      'with params and API group',
      { controller: 'example.com/controller', parameters: { apiGroup: 'example.com', kind: 'customgroup', name: 'example' } },
      ['test1', 'example.com/controller', 'customgroup.example.com/example', '10y'],
    ],
    ['without params', { controller: 'example.com/controller2' }, ['test1', 'example.com/controller2', '<none>', '10y']],
  ])('%s', (_name, spec, want) => {
    expect(cellsOf('networking.k8s.io', 'ingressclasses', { metadata: { name: 'test1', creationTimestamp: created }, spec })).toEqual(want);
  });
});

describe('endpoints (TestPrintEndpoint)', () => {
  const ep = (subsets?: unknown): KubeObject => ({ metadata: { name: 'test1' }, ...(subsets === undefined ? {} : { subsets }) });
  it.each<[string, KubeObject, string]>([
    ['no subsets', ep(), '<none>'],
    ['one address, one port', ep([{ addresses: [{ ip: '1.1.1.1' }], ports: [{ port: 8001, protocol: 'TCP' }] }]), '1.1.1.1:8001'],
    ['headless: no ports', ep([{ addresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }] }]), '1.1.1.1,2.2.2.2'],
    ['IPv6 is bracketed', ep([{ addresses: [{ ip: '2001:db8::1' }], ports: [{ port: 80 }] }]), '[2001:db8::1]:80'],
    [
      'more than three',
      ep([{ addresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }], ports: [{ port: 8001, protocol: 'TCP' }, { port: 8002, protocol: 'TCP' }, { port: 8003, protocol: 'TCP' }] }]),
      '1.1.1.1:8001,2.2.2.2:8001,1.1.1.1:8002 + 3 more...',
    ],
    ['subsets without addresses print nothing', ep([{ ports: [{ port: 80 }] }]), ''],
  ])('%s', (_name, e, want) => {
    expect(cellsOf('', 'endpoints', e)).toEqual(['test1', want, '<unknown>']);
  });
});

describe('endpointslices (TestPrintEndpointSlice)', () => {
  it.each<[string, Record<string, unknown>, unknown[]]>([
    [
      'ports and endpoints',
      { addressType: 'IPv4', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], endpoints: [{ addresses: ['10.1.2.3', '2001:db8::1234:5678'] }] },
      ['abcslice.123', 'IPv4', '80', '10.1.2.3,2001:db8::1234:5678', '<unknown>'],
    ],
    [
      'more than three of each',
      {
        addressType: 'IPv6',
        ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }, { name: 'named' }, {}, { port: 9000 }],
        endpoints: [{ addresses: ['10.1.2.3', '10.2.3.4'] }, { addresses: ['10.1.2.5', '10.1.2.6'] }],
      },
      ['abcslice.123', 'IPv6', '80,443,named + 2 more...', '10.1.2.3,10.2.3.4,10.1.2.5 + 1 more...', '<unknown>'],
    ],
    ['nothing yet', { addressType: 'FQDN' }, ['abcslice.123', 'FQDN', '<unset>', '<unset>', '<unknown>']],
    ['a port with neither number nor name', { addressType: 'IPv4', ports: [{}] }, ['abcslice.123', 'IPv4', '*', '<unset>', '<unknown>']],
  ])('%s', (_name, body, want) => {
    expect(cellsOf('discovery.k8s.io', 'endpointslices', { metadata: { name: 'abcslice.123' }, ...body })).toEqual(want);
  });
});

describe('networkpolicies', () => {
  it('print the pod selector, <none> when it selects every pod', () => {
    expect(cellsOf('networking.k8s.io', 'networkpolicies', { metadata: { name: 'np' }, spec: { podSelector: { matchLabels: { app: 'db' } } } }))
      .toEqual(['np', 'app=db', '<unknown>']);
    expect(cellsOf('networking.k8s.io', 'networkpolicies', { metadata: { name: 'deny-all' }, spec: { podSelector: {} } }))
      .toEqual(['deny-all', '<none>', '<unknown>']);
  });
});
