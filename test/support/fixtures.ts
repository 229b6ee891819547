// Hand-made Kubernetes objects for tests that fill storage directly (no simulator).
import type { StorageWriter, UpsertObject } from '../../src/storage/types.js';
import { CLUSTER_ANNOTATION } from '../../src/kube/types.js';

let seq = 0;
const uid = (): string => `00000000-0000-4000-8000-${(++seq).toString(16).padStart(12, '0')}`;

export function pod(cluster: string, namespace: string, name: string, o: { labels?: Record<string, string>; phase?: string; node?: string; owner?: { uid: string; name: string; kind: string }; rv?: string; created?: string; image?: string } = {}): UpsertObject {
  return {
    cluster, group: '', version: 'v1', resource: 'pods', kind: 'Pod',
    object: {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name, namespace, uid: uid(), resourceVersion: o.rv ?? '100', creationTimestamp: o.created ?? '2024-01-01T00:00:00Z',
        labels: o.labels ?? { app: name.replace(/-\w+$/, '') },
        annotations: { [CLUSTER_ANNOTATION]: cluster },
        ...(o.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: o.owner.kind, name: o.owner.name, uid: o.owner.uid, controller: true }] } : {}),
      },
      spec: { nodeName: o.node ?? 'node-1', containers: [{ name: 'main', image: o.image ?? 'nginx:1.25' }] },
      status: {
        phase: o.phase ?? 'Running', podIP: '10.0.0.1',
        containerStatuses: [{ name: 'main', ready: (o.phase ?? 'Running') === 'Running', restartCount: 0, image: o.image ?? 'nginx:1.25', imageID: '', state: { running: { startedAt: '2024-01-01T00:00:05Z' } } }],
      },
    },
  };
}

export function deployment(cluster: string, namespace: string, name: string, replicas = 2): UpsertObject & { uid: string } {
  const id = uid();
  return {
    uid: id, cluster, group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment',
    object: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name, namespace, uid: id, resourceVersion: '50', creationTimestamp: '2024-01-01T00:00:00Z', labels: { app: name }, annotations: { [CLUSTER_ANNOTATION]: cluster } },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } } },
      status: { replicas, readyReplicas: replicas, updatedReplicas: replicas, availableReplicas: replicas },
    },
  };
}

export function namespace(cluster: string, name: string): UpsertObject {
  return {
    cluster, group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace',
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: uid(), resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { [CLUSTER_ANNOTATION]: cluster } }, status: { phase: 'Active' } },
  };
}

export function healthyStatus(cluster: string, healthy = true): Parameters<StorageWriter['putClusterStatus']>[1] {
  return {
    spec: { apiserver: `https://${cluster}.example:6443` },
    status: {
      apiserver: `https://${cluster}.example:6443`,
      version: 'v1.32.0',
      conditions: [
        { type: 'Ready', status: healthy ? 'True' : 'False', reason: healthy ? 'Ready' : 'NotReady', message: '' },
        { type: 'ClusterHealthy', status: healthy ? 'True' : 'False', reason: healthy ? 'Healthy' : 'NotReachable', message: '' },
      ],
    },
    updatedAt: new Date().toISOString(),
  };
}

export function node(cluster: string, name: string): UpsertObject {
  return {
    cluster, group: '', version: 'v1', resource: 'nodes', kind: 'Node',
    object: {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name, uid: uid(), resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', labels: { 'kubernetes.io/hostname': name }, annotations: { [CLUSTER_ANNOTATION]: cluster } },
      spec: {},
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2024-01-01T00:00:00Z', lastTransitionTime: '2024-01-01T00:00:00Z' }],
        addresses: [{ type: 'InternalIP', address: '10.1.0.1' }], nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Linux', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://1.7', architecture: 'amd64', operatingSystem: 'linux' },
      },
    },
  };
}

/** A core Event about `about` (any stored object), as the kubelet or a controller records one. */
export function event(about: UpsertObject, reason: string, message: string, type = 'Normal'): UpsertObject {
  const m = about.object.metadata as { name: string; namespace?: string; uid: string };
  const name = `${m.name}.${(++seq).toString(16)}`;
  return {
    cluster: about.cluster, group: '', version: 'v1', resource: 'events', kind: 'Event',
    object: {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name, namespace: m.namespace ?? 'default', uid: uid(), resourceVersion: '9', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { [CLUSTER_ANNOTATION]: about.cluster } },
      involvedObject: { kind: about.kind, apiVersion: about.group ? `${about.group}/${about.version}` : about.version, name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), uid: m.uid },
      reason, message, type, count: 1, source: { component: 'kubelet' },
      firstTimestamp: '2024-01-01T00:00:00Z', lastTimestamp: '2024-01-01T00:00:00Z',
    },
  };
}
