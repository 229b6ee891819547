// What kube-apiserver's Service storage does on create beyond plain defaulting: a cluster IP from the service range
// (10.96.0.0/12, kubeadm's) and node ports from 30000–32767 for NodePort and LoadBalancer services, each unique in the
// cluster; an address or port asked for that another Service holds is refused (422), as kube's allocators refuse it.
import type { SimStore } from './store.js';
import { hash32 } from './prng.js';
import { errors, type FieldCause } from './status.js';
import { rec, recs, type SimObject } from './types.js';

const IP_BASE = (10 << 24) | (96 << 16);
const IP_COUNT = 1 << 20;
const NODE_PORT_MIN = 30000;
const NODE_PORTS = 2768;

const ipText = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** The first free value from `start`, walking `count` values round from `base`. */
function firstFree(used: Set<number>, base: number, count: number, start: number, usable: (n: number) => boolean): number | undefined {
  for (let i = 0; i < count; i++) {
    const n = base + ((start + i) % count);
    if (!used.has(n) && usable(n)) return n;
  }
  return undefined;
}

/** Fills in, in place, a Service's defaults and addresses as it is created in `store`; throws a 422 Status. */
export function createService(store: SimStore, o: SimObject): void {
  const spec = o.spec === undefined ? (o.spec = {}) : rec(o.spec);
  const type = String(spec.type ?? 'ClusterIP');
  spec.type = type;
  spec.sessionAffinity ??= 'None';
  o.status = { loadBalancer: {} };
  const ports = recs(spec.ports);
  for (const p of ports) {
    p.protocol ??= 'TCP';
    p.targetPort ??= p.port;
  }
  if (type === 'ExternalName') return;
  spec.internalTrafficPolicy ??= 'Cluster';
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  const usedIps = new Set<number>();
  const usedPorts = new Set<number>();
  for (const [, s] of store.table('services')?.entries() ?? []) {
    const other = rec(s.spec);
    for (const ip of [other.clusterIP, ...recs(other.clusterIPs)]) if (typeof ip === 'string' && ip !== 'None') usedIps.add(ipNumber(ip));
    for (const p of recs(other.ports)) if (typeof p.nodePort === 'number') usedPorts.add(p.nodePort);
  }
  const seed = hash32(`${o.metadata.namespace ?? ''}/${o.metadata.name ?? o.metadata.generateName ?? ''}`);
  const causes: FieldCause[] = [];
  const asked = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : undefined;
  if (asked === undefined) {
    // Not the network's first addresses: kube keeps .1 for the `kubernetes` Service and kubeadm .10 for DNS.
    const ip = firstFree(usedIps, IP_BASE, IP_COUNT, seed % IP_COUNT, (n) => (n & 255) !== 0 && (n & 255) !== 255 && n - IP_BASE > 255);
    if (ip === undefined) throw errors.invalid('Service', o.metadata.name ?? '', 'spec.clusterIPs', 'failed to allocate a service IP: range is full');
    spec.clusterIP = ipText(ip);
  } else if (asked !== 'None' && usedIps.has(ipNumber(asked))) {
    causes.push({ field: 'spec.clusterIPs', detail: `Invalid value: []string{"${asked}"}: failed to allocate IP ${asked}: provided IP is already allocated` });
  }
  spec.clusterIPs ??= [spec.clusterIP];
  if (type === 'NodePort' || type === 'LoadBalancer') {
    spec.externalTrafficPolicy ??= 'Cluster';
    if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
    ports.forEach((p, i) => {
      if (typeof p.nodePort === 'number' && p.nodePort !== 0) {
        if (usedPorts.has(p.nodePort)) causes.push({ field: `spec.ports[${i}].nodePort`, detail: `Invalid value: ${p.nodePort}: provided port is already allocated` });
        usedPorts.add(p.nodePort);
        return;
      }
      const port = firstFree(usedPorts, NODE_PORT_MIN, NODE_PORTS, (seed + i) % NODE_PORTS, () => true);
      if (port === undefined) causes.push({ field: `spec.ports[${i}].nodePort`, detail: 'Invalid value: 0: range is full' });
      else {
        p.nodePort = port;
        usedPorts.add(port);
      }
    });
  }
  if (causes.length) throw errors.invalidFields('Service', o.metadata.name ?? '', '', causes);
}

function ipNumber(ip: string): number {
  const parts = ip.split('.').map(Number);
  return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n < 256) ? ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0 : -1;
}
