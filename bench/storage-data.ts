// Synthetic member-cluster objects for the storage benchmark: ~4 KB pods owned by ReplicaSets owned by Deployments.
import type { UpsertObject } from '../src/storage/types.js';

/** Shape of the data set: `clusters` × `podsPerCluster` pods in 20 namespaces, 20 pods per Deployment. */
export interface DataShape {
  clusters: number;
  podsPerCluster: number;
}

export const NAMESPACES = 20;
export const PODS_PER_DEPLOYMENT = 20;
/** Label `team` has this many values: one value selects ~0.1% of the pods. */
export const TEAMS = 1000;

export function clusterName(i: number): string {
  return `cluster-${String(i).padStart(3, '0')}`;
}

export function namespaceName(i: number): string {
  return `ns-${i % NAMESPACES}`;
}

function uid(kind: string, cluster: number, i: number): string {
  const h = `${kind}${cluster}x${i}`.padEnd(32, '0').slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const created = Date.parse('2024-01-01T00:00:00Z');

/** Pod `i` of cluster `c` (deterministic). About 4 KB of JSON. */
export function pod(c: number, i: number, rv: number): UpsertObject {
  const d = Math.floor(i / PODS_PER_DEPLOYMENT);
  const ns = namespaceName(d);
  const app = `app-${d}`;
  const hash = `7d9f8c${(d % 9973).toString(16).padStart(4, '0')}`;
  const name = `${app}-${hash}-${(i % PODS_PER_DEPLOYMENT).toString(36).padStart(5, 'x')}`;
  const ts = new Date(created + i * 1000).toISOString().replace('.000Z', 'Z');
  const container = (n: string, image: string, port: number) => ({
    name: n,
    image,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'CONFIG_PATH', value: `/etc/${app}/config.yaml` },
    ],
    resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    volumeMounts: [
      { name: 'config', mountPath: `/etc/${app}` },
      { name: 'kube-api-access-x7k2p', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    ],
    livenessProbe: { httpGet: { path: '/healthz', port, scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    readinessProbe: { httpGet: { path: '/readyz', port, scheme: 'HTTP' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  });
  const status = (n: string, image: string) => ({
    name: n,
    state: { running: { startedAt: ts } },
    lastState: {},
    ready: true,
    restartCount: i % 3,
    image,
    imageID: `docker.io/library/${image}@sha256:${'ab12'.repeat(16)}`,
    containerID: `containerd://${'cd34'.repeat(16)}`,
    started: true,
  });
  return {
    cluster: clusterName(c),
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        generateName: `${app}-${hash}-`,
        namespace: ns,
        uid: uid('p', c, i),
        resourceVersion: String(rv),
        creationTimestamp: ts,
        labels: { app, 'pod-template-hash': hash, tier: i % 2 === 0 ? 'frontend' : 'backend', team: `team-${i % TEAMS}`, 'app.kubernetes.io/version': `1.${d % 7}.0` },
        annotations: { 'shadow.clusterpedia.io/cluster-name': clusterName(c), 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-${hash}`, uid: uid('r', c, d), controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        volumes: [
          { name: 'config', configMap: { name: `${app}-config`, defaultMode: 420 } },
          { name: 'kube-api-access-x7k2p', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }], defaultMode: 420 } },
        ],
        containers: [
          container(app, `registry.example.com/${app}:1.${d % 7}.0`, 8080),
          { name: 'sidecar', image: 'envoyproxy/envoy:v1.29.1', ports: [{ name: 'admin', containerPort: 15000, protocol: 'TCP' }], resources: { requests: { cpu: '10m', memory: '32Mi' } } },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        serviceAccountName: 'default',
        nodeName: `node-${i % 50}`,
        securityContext: {},
        schedulerName: 'default-scheduler',
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
        priority: 0,
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
      },
      status: {
        phase: 'Running',
        conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: ts })),
        hostIP: `10.0.${i % 50}.1`,
        podIP: `10.${c % 256}.${Math.floor(i / 256) % 256}.${i % 256}`,
        podIPs: [{ ip: `10.${c % 256}.${Math.floor(i / 256) % 256}.${i % 256}` }],
        startTime: ts,
        containerStatuses: [status(app, `registry.example.com/${app}:1.${d % 7}.0`), status('sidecar', 'envoyproxy/envoy:v1.29.1')],
        qosClass: 'Burstable',
      },
    },
  };
}

/** Deployment `d` of cluster `c` and its one ReplicaSet (the owners of pods d*20 … d*20+19). */
export function owners(c: number, d: number, rv: number): UpsertObject[] {
  const ns = namespaceName(d);
  const app = `app-${d}`;
  const hash = `7d9f8c${(d % 9973).toString(16).padStart(4, '0')}`;
  const ts = new Date(created).toISOString();
  const meta = (name: string, u: string, owner?: { kind: string; name: string; uid: string }) => ({
    name,
    namespace: ns,
    uid: u,
    resourceVersion: String(rv),
    creationTimestamp: ts,
    labels: { app },
    ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }] } : {}),
  });
  const spec = { replicas: PODS_PER_DEPLOYMENT, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: app, image: `registry.example.com/${app}:1.0.0` }] } } };
  return [
    { cluster: clusterName(c), group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(app, uid('d', c, d)), spec, status: { replicas: PODS_PER_DEPLOYMENT, readyReplicas: PODS_PER_DEPLOYMENT } } },
    {
      cluster: clusterName(c), group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet',
      object: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta(`${app}-${hash}`, uid('r', c, d), { kind: 'Deployment', name: app, uid: uid('d', c, d) }), spec, status: { replicas: PODS_PER_DEPLOYMENT } },
    },
  ];
}

/**
 * Every object of `clusters` clusters in ingest order (cluster by cluster: its Deployments and ReplicaSets, then its
 * pods), in batches of `size`; member resourceVersions count up from 1.
 */
export function* ingestBatches(clusters: number, podsPerCluster: number, size: number): Generator<UpsertObject[]> {
  const deployments = podsPerCluster / PODS_PER_DEPLOYMENT;
  let batch: UpsertObject[] = [];
  let rv = 1;
  for (let c = 0; c < clusters; c++) {
    for (let d = 0; d < deployments; d++) {
      batch.push(...owners(c, d, rv++));
      if (batch.length >= size) yield batch.splice(0);
    }
    for (let i = 0; i < podsPerCluster; i++) {
      batch.push(pod(c, i, rv++));
      if (batch.length >= size) yield batch.splice(0);
    }
  }
  if (batch.length > 0) yield batch;
}
