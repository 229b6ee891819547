// Generated core objects around the workloads: namespaces, nodes, services, config, accounts, events, ingresses, leases.
import { iso, lastApplied, managed, microIso } from './gen-meta.js';
import { genUid, podCreatedMs, podName, podNode, podState, replicaSetName, unschedulableMessage } from './gen-pods.js';
import { hexFor, rngFor } from './prng.js';
import type { NamespaceInfo, NodeInfo, Topology, Workload } from './topology.js';
import type { SimObject } from './types.js';

export function buildNamespace(t: Topology, ns: NamespaceInfo): SimObject {
  const labels = { 'kubernetes.io/metadata.name': ns.name, ...(ns.system ? {} : { team: ns.name, 'istio-injection': 'enabled' }) };
  return {
    apiVersion: 'v1', kind: 'Namespace',
    metadata: { name: ns.name, uid: genUid(t, 'namespaces', ns.name), creationTimestamp: iso(ns.createdMs), labels, managedFields: [managed(ns.system ? 'kube-apiserver' : 'kubectl-create', 'v1', ns.createdMs, { metadata: { labels } })] },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export function buildNode(t: Topology, n: NodeInfo): SimObject {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': n.name, 'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': n.controlPlane ? 'm6i.large' : 'm6i.2xlarge', 'topology.kubernetes.io/region': 'us-east-1', 'topology.kubernetes.io/zone': n.zone,
    ...(n.controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {}),
  };
  const hb = iso(t.opts.epochMs - 20_000);
  const cond = (type: string, status: string, reason: string, message: string): Record<string, string> => ({ type, status, lastHeartbeatTime: hb, lastTransitionTime: iso(n.createdMs + 30_000), reason, message });
  const status = {
    capacity: { cpu: '8', 'ephemeral-storage': '104845292Ki', memory: '32386544Ki', pods: '110' },
    allocatable: { cpu: '7910m', 'ephemeral-storage': '95551679124', memory: '31369712Ki', pods: '110' },
    conditions: [
      cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ],
    addresses: [{ type: 'InternalIP', address: n.internalIp }, { type: 'Hostname', address: n.name }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: { machineID: hexFor(32, 'machine', n.name), systemUUID: genUid(t, 'system-uuid', n.name), bootID: genUid(t, 'boot', n.name), kernelVersion: '6.1.0-28-cloud-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)', containerRuntimeVersion: 'containerd://1.7.24', kubeletVersion: 'v1.32.0', kubeProxyVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64' },
    images: [{ names: ['registry.k8s.io/kube-proxy:v1.32.0'], sizeBytes: 30_962_000 }, { names: ['docker.io/istio/proxyv2:1.24.1'], sizeBytes: 92_340_000 }],
  };
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name: n.name, uid: genUid(t, 'nodes', n.name), creationTimestamp: iso(n.createdMs), labels,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      managedFields: [managed('kubelet', 'v1', n.createdMs, { metadata: { labels } }), managed('kubelet', 'v1', n.createdMs + 60_000, { status }, 'status')],
    },
    spec: { podCIDR: `10.${64 + (n.index >> 8)}.${n.index & 255}.0/24`, podCIDRs: [`10.${64 + (n.index >> 8)}.${n.index & 255}.0/24`], providerID: `aws:///${n.zone}/i-${hexFor(17, 'instance', n.name)}`, ...(n.controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {}) },
    status,
  };
}

function applied(t: Topology, apiVersion: string, kind: string, gr: string, namespace: string, name: string, createdMs: number, labels: Record<string, string>, body: Record<string, unknown>, system = false): SimObject['metadata'] {
  const annotations: Record<string, string> = system ? {} : { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied(apiVersion, kind, { name, namespace, labels }, body) };
  return {
    name, namespace, uid: genUid(t, gr, `${namespace}/${name}`), creationTimestamp: iso(createdMs), labels,
    ...(system ? {} : { annotations }),
    managedFields: [managed(system ? 'kubeadm' : 'kubectl-client-side-apply', apiVersion, createdMs, { metadata: { annotations, labels }, ...body })],
  };
}

function clusterIp(t: Topology, key: string): string {
  const r = rngFor('cluster-ip', t.opts.seed, t.opts.cluster, key);
  return `10.96.${r.int(256)}.${r.range(2, 254)}`;
}

/** The `kubernetes` service (ref 0), `kube-dns` (ref 1), or the service of workload ref-2. */
export function buildService(t: Topology, ref: number): SimObject {
  if (ref < 2) {
    const [ns, name, ip, port] = ref === 0 ? ['default', 'kubernetes', '10.96.0.1', 443] as const : ['kube-system', 'kube-dns', '10.96.0.10', 53] as const;
    const labels: Record<string, string> = ref === 0 ? { component: 'apiserver', provider: 'kubernetes' } : { 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS' };
    const spec = { ports: [{ name: ref === 0 ? 'https' : 'dns', protocol: ref === 0 ? 'TCP' : 'UDP', port, targetPort: ref === 0 ? 6443 : 53 }], ...(ref === 1 ? { selector: { 'k8s-app': 'kube-dns' } } : {}), clusterIP: ip, clusterIPs: [ip], type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' };
    return { apiVersion: 'v1', kind: 'Service', metadata: applied(t, 'v1', 'Service', 'services', ns, name, t.clusterCreatedMs, labels, { spec }, true), spec, status: { loadBalancer: {} } };
  }
  const w = t.workloads[ref - 2] as Workload;
  const ip = w.kind === 'StatefulSet' ? 'None' : clusterIp(t, `${w.namespace}/${w.name}`);
  const type = w.kind === 'StatefulSet' ? 'ClusterIP' : rngFor('svc-type', t.opts.seed, t.opts.cluster, w.index).pick(['ClusterIP', 'ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer']);
  const spec: Record<string, unknown> = {
    ports: [{ name: 'http', protocol: 'TCP', port: w.port === 8443 ? 443 : 80, targetPort: w.port, ...(type !== 'ClusterIP' ? { nodePort: 30000 + (w.index % 2768) } : {}) }],
    selector: { app: w.app }, clusterIP: ip, clusterIPs: [ip], type, sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster',
    ...(type !== 'ClusterIP' ? { externalTrafficPolicy: 'Cluster' } : {}),
  };
  const status = type === 'LoadBalancer' ? { loadBalancer: { ingress: [{ hostname: `a${hexFor(31, 'elb', w.namespace, w.name)}.us-east-1.elb.amazonaws.com` }] } } : { loadBalancer: {} };
  return { apiVersion: 'v1', kind: 'Service', metadata: applied(t, 'v1', 'Service', 'services', w.namespace, w.name, w.createdMs, { app: w.app }, { spec }, w.system), spec, status };
}

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIFakeSimulatedCAaQwDQYJKoZIhvcNAQELBQAwFTETMBEG\nA1UEAxMKa3ViZXJuZXRlczAeFw0yNDAxMDEwMDAwMDBaFw0zNDAxMDEwMDAwMDBa\n-----END CERTIFICATE-----\n';

/** kube-root-ca.crt of namespace index -ref-1 (refs < 0), or the config map of workload ref. */
export function buildConfigMap(t: Topology, ref: number): SimObject {
  if (ref < 0) {
    const ns = t.namespaces[-ref - 1] as NamespaceInfo;
    return {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'kube-root-ca.crt', namespace: ns.name, uid: genUid(t, 'configmaps', `${ns.name}/kube-root-ca.crt`), creationTimestamp: iso(ns.createdMs), annotations: { 'kubernetes.io/description': 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.' }, managedFields: [managed('kube-controller-manager', 'v1', ns.createdMs, { data: { 'ca.crt': '' }, metadata: { annotations: {} } })] },
      data: { 'ca.crt': CA_PEM },
    };
  }
  const w = t.workloads[ref] as Workload;
  const name = `${w.name}-config`;
  const data = { 'app.yaml': `server:\n  port: ${w.port}\n  name: ${w.app}\nlogging:\n  level: info\nfeatures:\n  cache: true\n`, LOG_FORMAT: 'json', REGION: 'us-east-1' };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: applied(t, 'v1', 'ConfigMap', 'configmaps', w.namespace, name, w.createdMs, { app: w.app }, { data }), data };
}

/** Opaque credentials (ref = 2w) or the TLS secret of an ingress (ref = 2w+1). */
export function buildSecret(t: Topology, ref: number): SimObject {
  const w = t.workloads[Math.floor(ref / 2)] as Workload;
  const tls = ref % 2 === 1;
  const name = tls ? `${w.name}-tls` : `${w.name}-credentials`;
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const data = tls
    ? { 'tls.crt': b64(`-----BEGIN CERTIFICATE-----\n${hexFor(64, 'crt', name)}\n-----END CERTIFICATE-----\n`), 'tls.key': b64(`-----BEGIN PRIVATE KEY-----\n${hexFor(64, 'key', name)}\n-----END PRIVATE KEY-----\n`) }
    : { username: b64(w.app), password: b64(hexFor(24, 'password', name)) };
  const type = tls ? 'kubernetes.io/tls' : 'Opaque';
  const metadata = tls
    ? { name, namespace: w.namespace, uid: genUid(t, 'secrets', `${w.namespace}/${name}`), creationTimestamp: iso(w.createdMs + 120_000), labels: { 'controller.cert-manager.io/fao': 'true' }, annotations: { 'cert-manager.io/certificate-name': w.name, 'cert-manager.io/issuer-kind': 'ClusterIssuer', 'cert-manager.io/issuer-name': 'letsencrypt-prod' }, managedFields: [managed('cert-manager-certificates-issuing', 'v1', w.createdMs + 120_000, { data: {}, metadata: {}, type: '' })] }
    : applied(t, 'v1', 'Secret', 'secrets', w.namespace, name, w.createdMs, { app: w.app }, { type }, false);
  return { apiVersion: 'v1', kind: 'Secret', metadata, data, type };
}

/** `default` of namespace index -ref-1 (refs < 0), or the service account of workload ref. */
export function buildServiceAccount(t: Topology, ref: number): SimObject {
  if (ref < 0) {
    const ns = t.namespaces[-ref - 1] as NamespaceInfo;
    return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns.name, uid: genUid(t, 'serviceaccounts', `${ns.name}/default`), creationTimestamp: iso(ns.createdMs) } };
  }
  const w = t.workloads[ref] as Workload;
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: applied(t, 'v1', 'ServiceAccount', 'serviceaccounts', w.namespace, w.serviceAccount, w.createdMs, { app: w.app }, {}) };
}

export function buildIngress(t: Topology, w: Workload): SimObject {
  const host = `${w.name}.${w.namespace}.example.com`;
  const spec = { ingressClassName: 'nginx', tls: [{ hosts: [host], secretName: `${w.name}-tls` }], rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: w.name, port: { name: 'http' } } } }] } }] };
  const metadata = applied(t, 'networking.k8s.io/v1', 'Ingress', 'ingresses.networking.k8s.io', w.namespace, w.name, w.createdMs, { app: w.app }, { spec });
  metadata.annotations = { ...metadata.annotations, 'cert-manager.io/cluster-issuer': 'letsencrypt-prod', 'nginx.ingress.kubernetes.io/ssl-redirect': 'true' };
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata, spec, status: { loadBalancer: { ingress: [{ hostname: `a${hexFor(31, 'nlb', t.opts.cluster)}.elb.us-east-1.amazonaws.com` }] } } };
}

/** The reasons events are recorded for a pod in the given state (index k of them). */
export function podEventReasons(t: Topology, w: Workload, r: number): Array<[type: string, reason: string, message: (pod: string) => string]> {
  switch (podState(t, w, r)) {
    case 'crashloop': return [['Warning', 'BackOff', () => `Back-off restarting failed container ${w.app} in pod ${podName(t, w, r)}_${w.namespace}(${genUid(t, 'pods', `${w.namespace}/${podName(t, w, r)}`)})`]];
    case 'imagepull': return [['Normal', 'Pulling', () => `Pulling image "${w.image}"`], ['Warning', 'Failed', () => `Failed to pull image "${w.image}": rpc error: code = NotFound desc = failed to pull and unpack image "${w.image}": not found`]];
    case 'unschedulable': return [['Warning', 'FailedScheduling', () => unschedulableMessage(t)]];
    case 'creating': return [['Normal', 'Scheduled', (pod) => `Successfully assigned ${w.namespace}/${pod} to ${podNode(t, w, r)?.name ?? 'node'}`], ['Normal', 'Pulling', () => `Pulling image "${w.image}"`]];
    case 'unready': return [['Warning', 'Unhealthy', () => `Readiness probe failed: HTTP probe failed with statuscode: 503`]];
    default: return [];
  }
}

/**
 * Event k about pod r of workload w, after the pod was made: a repeated one (a Warning) began up to 50 minutes ago and
 * was last seen in the last two; one seen once was seen then. The scheduler records through events.k8s.io (an
 * eventTime, a series for repeats, no first or last timestamp, no count); the kubelet through the core API, about a
 * container on its node.
 */
export function buildEvent(t: Topology, w: Workload, r: number, k: number): SimObject {
  const pod = podName(t, w, r);
  const reasons = podEventReasons(t, w, r);
  const [type, reason, message] = reasons[k] ?? ['Normal', 'Scheduled', () => ''];
  const name = `${pod}.${hexFor(16, 'event', t.opts.cluster, pod, k)}`;
  const rng = rngFor('event', t.opts.seed, t.opts.cluster, pod, k);
  const created = podCreatedMs(t, w, r);
  const scheduler = reason === 'FailedScheduling' || reason === 'Scheduled';
  const count = type === 'Warning' ? rng.range(2, 300) : 1;
  // Scheduled as the pod is made, an image pulled for a pod being made a moment after; the rest in the last minutes.
  const earliest = reason === 'Scheduled' ? created : created + 2000;
  const atOnce = reason === 'Scheduled' || (reason === 'Pulling' && podState(t, w, r) === 'creating');
  const last = atOnce ? earliest : Math.max(earliest, t.opts.epochMs - rng.range(5, 110) * 1000);
  const first = count > 1 ? Math.max(earliest, Math.min(last, t.opts.epochMs - rng.range(2, 50) * 60_000)) : last;
  const uid = genUid(t, 'events', `${w.namespace}/${name}`);
  const involvedObject = { kind: 'Pod', namespace: w.namespace, name: pod, uid: genUid(t, 'pods', `${w.namespace}/${pod}`), apiVersion: 'v1', resourceVersion: '', ...(scheduler ? {} : { fieldPath: `spec.containers{${w.app}}` }) };
  if (scheduler) {
    const series = count > 1 ? { series: { count, lastObservedTime: microIso(last) } } : {};
    return {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name, namespace: w.namespace, uid, creationTimestamp: iso(first), managedFields: [managed('kube-scheduler', 'events.k8s.io/v1', first, { action: '', eventTime: '', note: '', reason: '', regarding: {}, reportingController: '', reportingInstance: '', ...(count > 1 ? { series: { count: '', lastObservedTime: '' } } : {}), type: '' })] },
      involvedObject, reason, message: message(pod), source: {}, firstTimestamp: null, lastTimestamp: null, type, eventTime: microIso(first), ...series,
      action: reason === 'Scheduled' ? 'Binding' : 'Scheduling', reportingComponent: 'default-scheduler', reportingInstance: `default-scheduler-${t.opts.cluster}-control-plane`,
    };
  }
  const host = podNode(t, w, r)?.name ?? '';
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name, namespace: w.namespace, uid, creationTimestamp: iso(first), managedFields: [managed('kubelet', 'v1', first, { count: 0, firstTimestamp: '', involvedObject: {}, lastTimestamp: '', message: '', reason: '', reportingComponent: '', reportingInstance: '', source: { component: '', host: '' }, type: '' })] },
    involvedObject, reason, message: message(pod),
    source: { component: 'kubelet', host }, firstTimestamp: iso(first), lastTimestamp: iso(last), count, type, eventTime: null,
    reportingComponent: 'kubelet', reportingInstance: host,
  };
}

/** Node lease `ref` (>= 0, in kube-node-lease) or a leader-election lease in kube-system (-1 controller-manager, -2 scheduler). */
export function buildLease(t: Topology, ref: number): SimObject {
  const node = ref >= 0 ? (t.nodes[ref] as NodeInfo) : undefined;
  const name = node ? node.name : ref === -1 ? 'kube-controller-manager' : 'kube-scheduler';
  const namespace = node ? 'kube-node-lease' : 'kube-system';
  const renew = microIso(t.opts.epochMs - 4000);
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name, namespace, uid: genUid(t, 'leases.coordination.k8s.io', `${namespace}/${name}`), creationTimestamp: iso(node ? node.createdMs : t.clusterCreatedMs), ...(node ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: genUid(t, 'nodes', name) }] } : {}) },
    spec: node
      ? { holderIdentity: name, leaseDurationSeconds: 40, renewTime: renew }
      : { holderIdentity: `${t.nodes[0]?.name ?? 'node'}_${genUid(t, 'holder', name)}`, leaseDurationSeconds: 15, acquireTime: iso(t.clusterCreatedMs), renewTime: renew, leaseTransitions: 3 },
  };
}

/** Events kube records for deployments that rolled out (ScalingReplicaSet), keyed by workload. */
export function buildRolloutEvent(t: Topology, w: Workload): SimObject {
  const name = `${w.name}.${hexFor(16, 'rollout', t.opts.cluster, w.namespace, w.name)}`;
  const at = t.opts.epochMs - 40 * 60_000;
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name, namespace: w.namespace, uid: genUid(t, 'events', `${w.namespace}/${name}`), creationTimestamp: iso(at) },
    involvedObject: { kind: 'Deployment', namespace: w.namespace, name: w.name, uid: genUid(t, 'deployments.apps', `${w.namespace}/${w.name}`), apiVersion: 'apps/v1', resourceVersion: '' },
    reason: 'ScalingReplicaSet', message: `Scaled down replica set ${replicaSetName(w, true)} from 1 to 0`,
    source: { component: 'deployment-controller' }, firstTimestamp: iso(at), lastTimestamp: iso(at), count: 1, type: 'Normal', eventTime: null, reportingComponent: 'deployment-controller', reportingInstance: '',
  };
}
