// Service networking: ports of printService, printIngress, printIngressClass, printEndpoints,
// printEndpointSlice, printNetworkPolicy, printServiceCIDR and printIPAddress.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, firstWithMore, nameOf, wide } from './columns.js';
import { DOC } from './descriptions.js';
import { arr, at, int, obj, objAt, objects, optInt, optStr, str, stringMap, strings } from './fields.js';
import { compareGo, formatLabelSelector, formatLabels } from './labels.js';
import type { ResourcePrinter } from './types.js';

/**
 * Port of loadBalancerStatusStringer / ingressLoadBalancerStatusStringer with wide=true (the server
 * always prints wide, so the 16-character clipping never applies): sorted distinct IPs or hostnames.
 */
function loadBalancerAddresses(status: unknown): string {
  const set = new Set<string>();
  for (const ing of objects(at(status, 'ingress'))) {
    if (str(ing.ip) !== '') set.add(str(ing.ip));
    else if (str(ing.hostname) !== '') set.add(str(ing.hostname));
  }
  return [...set].sort(compareGo).join(',');
}

/** Port of getServiceExternalIP: `<none>`, `<pending>` and `<unknown>` as kube decides them. */
function serviceExternalIP(svc: KubeObject): string {
  const spec = obj(svc.spec);
  const externalIPs = strings(spec.externalIPs);
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(at(svc, 'status', 'loadBalancer'));
      if (externalIPs.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...externalIPs].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

/** Port of makePortString: `port/PROTO`, or `port:nodePort/PROTO` when a node port is set. */
function servicePorts(ports: unknown): string {
  return objects(ports)
    .map((p) => {
      const nodePort = int(p.nodePort);
      return nodePort > 0 ? `${int(p.port)}:${nodePort}/${str(p.protocol)}` : `${int(p.port)}/${str(p.protocol)}`;
    })
    .join(',');
}

export const servicePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', DOC.serviceType),
    column('Cluster-IP', 'string', DOC.clusterIP),
    column('External-IP', 'string', DOC.externalIPs),
    column('Port(s)', 'string', DOC.servicePorts),
    AGE_COLUMN,
    wide('Selector', 'string', DOC.serviceSelector),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    // kube reads clusterIPs[0]; objects written before dual-stack carry only clusterIP, which the
    // v1 conversion would have copied into clusterIPs.
    const clusterIP = strings(spec.clusterIPs)[0] ?? optStr(spec.clusterIP) ?? '';
    const ports = servicePorts(spec.ports);
    return [
      nameOf(o),
      str(spec.type),
      clusterIP === '' ? '<none>' : clusterIP,
      serviceExternalIP(o),
      ports === '' ? '<none>' : ports,
      ageOf(o, now),
      formatLabels(stringMap(spec.selector)),
    ];
  },
};

/** Port of formatHosts: up to three hosts, `*` when no rule names one. */
function ingressHosts(rules: unknown): string {
  const all = objects(rules);
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const rule of all) {
    if (list.length === max) more = true;
    if (!more && str(rule.host) !== '') list.push(str(rule.host));
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${all.length - max} more...` : list.join(',');
}

export const ingressPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    return [
      nameOf(o),
      optStr(spec.ingressClassName) ?? '<none>',
      ingressHosts(spec.rules),
      loadBalancerAddresses(at(o, 'status', 'loadBalancer')),
      arr(spec.tls).length > 0 ? '80, 443' : '80',
      ageOf(o, now),
    ];
  },
};

export const ingressClassPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const params = objAt(o, 'spec', 'parameters');
    let parameters = '<none>';
    if (params !== undefined) {
      const group = optStr(params.apiGroup);
      parameters = `${str(params.kind)}${group === undefined ? '' : `.${group}`}/${str(params.name)}`;
    }
    return [nameOf(o), str(at(o, 'spec', 'controller')), parameters, ageOf(o, now)];
  },
};

/** net.JoinHostPort: IPv6 literals are bracketed. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Port of formatEndpoints (all ports): up to three `ip:port`, then `+ N more...`. */
function formatEndpoints(subsets: unknown): string {
  const all = objects(subsets);
  if (all.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of all) {
    const addresses = objects(ss.addresses);
    const ports = objects(ss.ports);
    if (ports.length === 0) {
      // Headless services may have no ports: list bare IPs.
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(str(a.ip));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(hostPort(str(a.ip), int(port.port)));
      }
    }
  }
  return more ? `${list.join(',')} + ${count - max} more...` : list.join(',');
}

export const endpointsPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Endpoints', 'string', DOC.endpointsSubsets), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), formatEndpoints(o.subsets), ageOf(o, now)];
  },
};

/** Port of formatDiscoveryPorts: port numbers, else names, else `*`. */
function discoveryPorts(ports: unknown): string {
  return firstWithMore(objects(ports).map((p) => String(optInt(p.port) ?? optStr(p.name) ?? '*')));
}

/** Port of formatDiscoveryEndpoints: every address of every endpoint, up to three. */
function discoveryEndpoints(endpoints: unknown): string {
  return firstWithMore(objects(endpoints).flatMap((ep) => strings(ep.addresses)));
}

export const endpointSlicePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('AddressType', 'string', DOC.sliceAddressType),
    column('Ports', 'string', DOC.slicePorts),
    column('Endpoints', 'string', DOC.sliceEndpoints),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), str(o.addressType), discoveryPorts(o.ports), discoveryEndpoints(o.endpoints), ageOf(o, now)];
  },
};

export const networkPolicyPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Pod-Selector', 'string', DOC.networkPolicyPodSelector), AGE_COLUMN],
  cells(o, now) {
    // podSelector is a struct, not a pointer: an absent one is the empty selector.
    return [nameOf(o), formatLabelSelector(obj(at(o, 'spec', 'podSelector'))), ageOf(o, now)];
  },
};

export const serviceCIDRPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('CIDRs', 'string', DOC.serviceCIDRs), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), strings(at(o, 'spec', 'cidrs')).join(','), ageOf(o, now)];
  },
};

/** `resource[.group][/namespace]/name` of the object an IP is allocated to, lower-cased up to the name. */
function ipParent(o: KubeObject): string {
  const ref = objAt(o, 'spec', 'parentRef');
  if (ref === undefined) return '<none>';
  const group = str(ref.group);
  let parent = (group === '' ? str(ref.resource) : `${str(ref.resource)}.${group}`).toLowerCase();
  if (str(ref.namespace) !== '') parent += `/${str(ref.namespace)}`;
  return `${parent}/${str(ref.name)}`;
}

/**
 * kube 1.32 declares no Age column for IPAddresses yet printIPAddress appends the age: rows carry one
 * cell more than there are columns. We send what kube sends; kubectl stops at the last column.
 */
export const ipAddressPrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('ParentRef', 'string', DOC.ipAddressParentRef)],
  cells(o, now) {
    return [nameOf(o), ipParent(o), ageOf(o, now)];
  },
};
