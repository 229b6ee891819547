// The shape of one simulated cluster (namespaces, nodes, workloads and their replica counts), derived from seed + name.
import { hash32, Rng, rngFor, templateHash } from './prng.js';

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'CronJob';

export interface GenOptions {
  seed: number;
  cluster: string;
  /** Exact number of pods the cluster starts with. */
  pods: number;
  /** "Now" for the generated timestamps, ms since the Unix epoch; fixed so generation is reproducible. */
  epochMs: number;
  /** Host cluster: also has the clusterpedia-system namespace. */
  host?: boolean;
}

export interface NamespaceInfo {
  name: string;
  createdMs: number;
  system: boolean;
}

export interface NodeInfo {
  index: number;
  name: string;
  createdMs: number;
  zone: string;
  controlPlane: boolean;
  internalIp: string;
}

export interface Workload {
  index: number;
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** Pods (DaemonSet: one per node; CronJob: retained jobs, one pod each). */
  replicas: number;
  app: string;
  tier: string;
  image: string;
  createdMs: number;
  /** Deployment rollout revision: 2 means an older ReplicaSet (scaled to 0) exists too. */
  revision: number;
  hash: string;
  oldHash: string;
  port: number;
  service: boolean;
  ingress: boolean;
  configMap: boolean;
  serviceAccount: string;
  system: boolean;
  /** CronJob period in minutes. */
  periodMin: number;
  /** Ordinal of this workload's first pod in the cluster, for unique pod IPs. */
  podOffset: number;
}

export interface Topology {
  opts: GenOptions;
  clusterCreatedMs: number;
  namespaces: NamespaceInfo[];
  nodes: NodeInfo[];
  workloads: Workload[];
  /** Nodes pods are scheduled on (all of them when there is no dedicated control plane). */
  workers: NodeInfo[];
}

const DAY = 86_400_000;
const APP_NAMESPACES = ['payments', 'checkout', 'catalog', 'search', 'identity', 'monitoring', 'orders', 'inventory', 'shipping', 'billing', 'gateway', 'analytics', 'notifications', 'frontend', 'data', 'ml-serving', 'batch', 'logging', 'ingress-nginx', 'cert-manager'];
const NOUNS = ['api', 'web', 'worker', 'cache', 'db', 'queue', 'auth', 'cart', 'search', 'indexer', 'gateway', 'scheduler', 'mailer', 'reporter', 'ledger', 'profile', 'media', 'thumbnailer', 'router', 'metrics', 'recommender', 'pricing', 'stock', 'tracker', 'sync', 'exporter', 'importer', 'notifier', 'audit', 'session'];
const ADJS = ['core', 'public', 'internal', 'edge', 'batch', 'stream', 'legacy', 'fast', 'shadow', 'blue', 'green', 'canary', 'primary', 'replica', 'async', 'realtime'];
const IMAGES = ['nginx:1.27.3', 'ghcr.io/acme/{app}:v2.14.1', 'registry.k8s.io/pause:3.10', 'redis:7.4.1-alpine', 'postgres:16.6', 'docker.io/library/python:3.12-slim', 'gcr.io/acme/{app}:1.8.0', 'quay.io/acme/{app}:2024.11.3'];
const TIERS = ['frontend', 'backend', 'cache', 'database', 'worker'];

/** Builds the topology; every call with the same options returns the same topology. */
export function buildTopology(opts: GenOptions): Topology {
  const rng = rngFor('topology', opts.seed, opts.cluster);
  const clusterCreatedMs = opts.epochMs - rng.range(30, 400) * DAY - rng.int(DAY);
  const nodeCount = Math.max(1, Math.min(4000, Math.ceil(opts.pods / 100)));
  const appNsCount = Math.max(3, Math.min(60, Math.ceil(opts.pods / 400)));

  const systemNamespaces = ['default', 'kube-node-lease', 'kube-public', 'kube-system', ...(opts.host ? ['clusterpedia-system'] : [])];
  const namespaces: NamespaceInfo[] = systemNamespaces.map((name) => ({ name, createdMs: clusterCreatedMs, system: true }));
  const appNamespaces: string[] = [];
  for (let i = 0; i < appNsCount; i++) {
    const name = APP_NAMESPACES[i] ?? `team-${i - APP_NAMESPACES.length + 1}`;
    appNamespaces.push(name);
    namespaces.push({ name, createdMs: clusterCreatedMs + rng.int(opts.epochMs - clusterCreatedMs - DAY), system: false });
  }
  namespaces.sort((a, b) => (a.name < b.name ? -1 : 1));

  // Each cluster's nodes sit in a VPC of their own (10.<vpc>.0.0/16), so node names differ across a fleet as they do
  // in most (a few clusters share one, as some real fleets do). From the name, not the seeded sequence.
  const vpc = hash32(opts.cluster) % 64;
  const nodes: NodeInfo[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const controlPlane = i === 0 && nodeCount >= 3;
    const octet3 = Math.floor(i / 250);
    const octet4 = (i % 250) + 4;
    nodes.push({
      index: i,
      name: controlPlane ? `${opts.cluster}-control-plane` : `ip-10-${vpc}-${octet3}-${octet4}.ec2.internal`,
      createdMs: clusterCreatedMs + (controlPlane ? 0 : rng.int(Math.max(1, opts.epochMs - clusterCreatedMs))),
      zone: `us-east-1${'abc'[i % 3] ?? 'a'}`,
      controlPlane,
      internalIp: `10.${vpc}.${octet3}.${octet4}`,
    });
  }

  const workloads: Workload[] = [];
  let remaining = opts.pods;
  let podOffset = 0;
  const used = new Set<string>();
  const add = (w: Omit<Workload, 'index' | 'podOffset' | 'hash' | 'oldHash'>): void => {
    const replicas = Math.min(w.replicas, remaining);
    if (replicas <= 0) return;
    used.add(`${w.namespace}/${w.name}`);
    workloads.push({ ...w, replicas, index: workloads.length, podOffset, hash: templateHash(opts.seed, opts.cluster, w.namespace, w.name, w.revision), oldHash: templateHash(opts.seed, opts.cluster, w.namespace, w.name, w.revision - 1) });
    remaining -= replicas;
    podOffset += replicas;
  };
  const base = (kind: WorkloadKind, namespace: string, name: string, replicas: number, r: Rng, system: boolean): Omit<Workload, 'index' | 'podOffset' | 'hash' | 'oldHash'> => {
    const app = name;
    return {
      kind, namespace, name, replicas, app, system,
      tier: system ? 'system' : r.pick(TIERS),
      image: r.pick(IMAGES).replace('{app}', app),
      createdMs: clusterCreatedMs + r.int(Math.max(1, opts.epochMs - clusterCreatedMs - 3_600_000)),
      revision: kind === 'Deployment' && r.chance(0.35) ? 2 : 1,
      port: r.pick([80, 8080, 8443, 9090, 3000, 5432, 6379]),
      service: kind === 'Deployment' || kind === 'StatefulSet',
      ingress: !system && kind === 'Deployment' && r.chance(0.25),
      configMap: !system && r.chance(0.6),
      serviceAccount: !system && r.chance(0.4) ? name : 'default',
      periodMin: r.pick([15, 30, 60, 1440]),
    };
  };

  // System workloads first, as a real cluster has them, but never more than about a third of the pods.
  const sys = rngFor('system', opts.seed, opts.cluster);
  if (opts.pods >= nodeCount * 3) add(base('DaemonSet', 'kube-system', 'kube-proxy', nodeCount, sys, true));
  if (opts.pods >= nodeCount * 6) add(base('DaemonSet', 'kube-system', 'fluent-bit', nodeCount, sys, true));
  if (opts.pods >= 8) add(base('Deployment', 'kube-system', 'coredns', 2, sys, true));
  if (opts.pods >= 12) add(base('Deployment', 'kube-system', 'metrics-server', 1, sys, true));

  while (remaining > 0) {
    const r = rngFor('workload', opts.seed, opts.cluster, workloads.length);
    const namespace = r.pick(appNamespaces);
    let name = r.chance(0.5) ? r.pick(NOUNS) : `${r.pick(ADJS)}-${r.pick(NOUNS)}`;
    for (let n = 2; used.has(`${namespace}/${name}`); n++) name = `${name.replace(/-\d+$/, '')}-${n}`;
    const roll = r.next();
    if (roll < 0.72) add(base('Deployment', namespace, name, r.pick([1, 2, 2, 3, 3, 3, 4, 5, 6]), r, false));
    else if (roll < 0.86) add(base('StatefulSet', namespace, name, r.range(1, 3), r, false));
    else add(base('CronJob', namespace, name, r.range(1, 3), r, false));
  }
  const workers = nodes.filter((n) => !n.controlPlane);
  return { opts, clusterCreatedMs, namespaces, nodes, workloads, workers: workers.length > 0 ? workers : nodes };
}
