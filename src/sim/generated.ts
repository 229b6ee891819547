// The generated objects of a cluster, per group-resource, as sorted indexes of small numeric refs (objects are built on demand).
import { crdObject, hostCrds, memberCrds } from './crds.js';
import { buildConfigMap, buildEvent, buildIngress, buildLease, buildNamespace, buildNode, buildRolloutEvent, buildSecret, buildService, buildServiceAccount, podEventReasons } from './gen-core.js';
import { buildClaim, buildVolume, claimKey, claimRefs, volumeKey } from './gen-storage.js';
import { buildCertificate, buildClusterIssuer, buildCronTab, CLUSTER_ISSUERS, CRONTABS_PER_NAMESPACE } from './gen-custom.js';
import { iso } from './gen-meta.js';
import { buildPod, genUid, jobName, podName, replicaSetName, revisionHash } from './gen-pods.js';
import { buildControllerRevision, buildCronJob, buildDaemonSet, buildDeployment, buildJob, buildReplicaSet, buildStatefulSet } from './gen-workloads.js';
import type { Topology, Workload } from './topology.js';
import type { SimObject } from './types.js';

/**
 * Generated objects of one group-resource in key order. At rest only numeric refs are kept; a key is remembered once
 * something has asked for it (a lookup's binary search asks for ~14), since deriving one from the seed costs a
 * microsecond or more and churn looks keys up for every change it makes. Objects are always built on demand.
 */
export class BaseSet {
  private readonly refs: Float64Array;
  private readonly keys: (string | undefined)[];
  constructor(refs: number[], private readonly keyOf: (ref: number) => string, private readonly build: (ref: number) => SimObject) {
    const keys = refs.map(keyOf);
    const order = refs.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
    this.refs = Float64Array.from(order.map((i) => refs[i] as number));
    this.keys = new Array<string | undefined>(refs.length).fill(undefined);
  }

  get size(): number {
    return this.refs.length;
  }

  keyAt(i: number): string {
    return (this.keys[i] ??= this.keyOf(this.refs[i] as number));
  }

  objectAt(i: number): SimObject {
    return this.build(this.refs[i] as number);
  }

  /** First index whose key is >= key. */
  lowerBound(key: string): number {
    let lo = 0;
    let hi = this.refs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keyAt(mid) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  indexOf(key: string): number {
    const i = this.lowerBound(key);
    return i < this.refs.length && this.keyAt(i) === key ? i : -1;
  }
}

const POD_STRIDE = 4096;

function workloadsOf(t: Topology, kind: Workload['kind']): Workload[] {
  return t.workloads.filter((w) => w.kind === kind);
}

function wl(t: Topology, index: number): Workload {
  return t.workloads[index] as Workload;
}

/** All generated sets of a cluster, keyed by group-resource. */
export function generatedSets(t: Topology, host: boolean): Map<string, BaseSet> {
  const sets = new Map<string, BaseSet>();
  const add = (gr: string, refs: number[], keyOf: (ref: number) => string, build: (ref: number) => SimObject): void => {
    sets.set(gr, new BaseSet(refs, keyOf, build));
  };
  const nsKey = (w: Workload, name: string): string => `${w.namespace}/${name}`;

  add('namespaces', t.namespaces.map((_, i) => i), (r) => t.namespaces[r]?.name ?? '', (r) => buildNamespace(t, t.namespaces[r] as Topology['namespaces'][number]));
  add('nodes', t.nodes.map((_, i) => i), (r) => t.nodes[r]?.name ?? '', (r) => buildNode(t, t.nodes[r] as Topology['nodes'][number]));

  const podRefs: number[] = [];
  for (const w of t.workloads) for (let r = 0; r < w.replicas; r++) podRefs.push(w.index * POD_STRIDE + r);
  const podOf = (ref: number): [Workload, number] => [wl(t, Math.floor(ref / POD_STRIDE)), ref % POD_STRIDE];
  add('pods', podRefs, (ref) => { const [w, r] = podOf(ref); return nsKey(w, podName(t, w, r)); }, (ref) => { const [w, r] = podOf(ref); return buildPod(t, w, r); });

  const deployments = workloadsOf(t, 'Deployment');
  add('deployments.apps', deployments.map((w) => w.index), (r) => nsKey(wl(t, r), wl(t, r).name), (r) => buildDeployment(t, wl(t, r)));
  const rsRefs: number[] = [];
  for (const w of deployments) {
    rsRefs.push(w.index * 2);
    if (w.revision > 1) rsRefs.push(w.index * 2 + 1);
  }
  add('replicasets.apps', rsRefs, (r) => nsKey(wl(t, r >> 1), replicaSetName(wl(t, r >> 1), r % 2 === 1)), (r) => buildReplicaSet(t, wl(t, r >> 1), r % 2 === 1));
  add('statefulsets.apps', workloadsOf(t, 'StatefulSet').map((w) => w.index), (r) => nsKey(wl(t, r), wl(t, r).name), (r) => buildStatefulSet(t, wl(t, r)));
  add('daemonsets.apps', workloadsOf(t, 'DaemonSet').map((w) => w.index), (r) => nsKey(wl(t, r), wl(t, r).name), (r) => buildDaemonSet(t, wl(t, r)));
  const revisioned = t.workloads.filter((w) => w.kind === 'StatefulSet' || w.kind === 'DaemonSet');
  add('controllerrevisions.apps', revisioned.map((w) => w.index), (r) => nsKey(wl(t, r), `${wl(t, r).name}-${revisionHash(wl(t, r))}`), (r) => buildControllerRevision(t, wl(t, r)));
  const claims = claimRefs(t);
  add('persistentvolumeclaims', claims, (r) => claimKey(t, r), (r) => buildClaim(t, r));
  add('persistentvolumes', claims, (r) => volumeKey(t, r), (r) => buildVolume(t, r));
  const cronjobs = workloadsOf(t, 'CronJob');
  add('cronjobs.batch', cronjobs.map((w) => w.index), (r) => nsKey(wl(t, r), wl(t, r).name), (r) => buildCronJob(t, wl(t, r)));
  const jobRefs: number[] = [];
  for (const w of cronjobs) for (let r = 0; r < w.replicas; r++) jobRefs.push(w.index * POD_STRIDE + r);
  add('jobs.batch', jobRefs, (ref) => { const [w, r] = podOf(ref); return nsKey(w, jobName(t, w, r)); }, (ref) => { const [w, r] = podOf(ref); return buildJob(t, w, r); });

  const serviced = t.workloads.filter((w) => w.service && w.name !== 'coredns');
  add('services', [0, 1, ...serviced.map((w) => w.index + 2)], (r) => (r === 0 ? 'default/kubernetes' : r === 1 ? 'kube-system/kube-dns' : nsKey(wl(t, r - 2), wl(t, r - 2).name)), (r) => buildService(t, r));
  const configured = t.workloads.filter((w) => w.configMap);
  add('configmaps', [...t.namespaces.map((_, i) => -i - 1), ...configured.map((w) => w.index)], (r) => (r < 0 ? `${t.namespaces[-r - 1]?.name ?? ''}/kube-root-ca.crt` : nsKey(wl(t, r), `${wl(t, r).name}-config`)), (r) => buildConfigMap(t, r));
  const secretRefs = [...configured.map((w) => w.index * 2), ...t.workloads.filter((w) => w.ingress).map((w) => w.index * 2 + 1)];
  add('secrets', secretRefs, (r) => nsKey(wl(t, Math.floor(r / 2)), `${wl(t, Math.floor(r / 2)).name}-${r % 2 === 1 ? 'tls' : 'credentials'}`), (r) => buildSecret(t, r));
  const ownAccounts = t.workloads.filter((w) => w.serviceAccount !== 'default');
  add('serviceaccounts', [...t.namespaces.map((_, i) => -i - 1), ...ownAccounts.map((w) => w.index)], (r) => (r < 0 ? `${t.namespaces[-r - 1]?.name ?? ''}/default` : nsKey(wl(t, r), wl(t, r).serviceAccount)), (r) => buildServiceAccount(t, r));

  // Events: a few per troubled pod (ref = podRef*4 + k), plus one rollout event per re-deployed Deployment (ref < 0).
  const eventRefs: number[] = [];
  for (const ref of podRefs) {
    const [w, r] = podOf(ref);
    const n = podEventReasons(t, w, r).length;
    for (let k = 0; k < n; k++) eventRefs.push(ref * 4 + k);
  }
  for (const w of deployments) if (w.revision > 1) eventRefs.push(-w.index - 1);
  const eventOf = (ref: number): SimObject => {
    if (ref < 0) return buildRolloutEvent(t, wl(t, -ref - 1));
    const [w, r] = podOf(Math.floor(ref / 4));
    return buildEvent(t, w, r, ref % 4);
  };
  add('events', eventRefs, (ref) => { const o = eventOf(ref); return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`; }, eventOf);

  add('ingresses.networking.k8s.io', t.workloads.filter((w) => w.ingress).map((w) => w.index), (r) => nsKey(wl(t, r), wl(t, r).name), (r) => buildIngress(t, wl(t, r)));
  add('leases.coordination.k8s.io', [-1, -2, ...t.nodes.map((_, i) => i)], (r) => (r >= 0 ? `kube-node-lease/${t.nodes[r]?.name ?? ''}` : `kube-system/${r === -1 ? 'kube-controller-manager' : 'kube-scheduler'}`), (r) => buildLease(t, r));

  const crds = [...memberCrds(), ...(host ? hostCrds() : [])];
  const crdOf = (r: number): SimObject => {
    const o = crdObject(crds[r] as (typeof crds)[number], iso(t.clusterCreatedMs + 3_600_000));
    o.metadata.uid = genUid(t, 'customresourcedefinitions.apiextensions.k8s.io', o.metadata.name ?? '');
    return o;
  };
  add('customresourcedefinitions.apiextensions.k8s.io', crds.map((_, i) => i), (r) => `${crds[r]?.plural ?? ''}.${crds[r]?.group ?? ''}`, crdOf);

  const appNs = t.namespaces.map((n, i) => (n.system ? -1 : i)).filter((i) => i >= 0);
  const cronTabRefs = appNs.flatMap((i) => Array.from({ length: CRONTABS_PER_NAMESPACE }, (_, k) => i * CRONTABS_PER_NAMESPACE + k));
  add('crontabs.stable.example.com', cronTabRefs, (r) => `${t.namespaces[Math.floor(r / CRONTABS_PER_NAMESPACE)]?.name ?? ''}/crontab-${r % CRONTABS_PER_NAMESPACE}`, (r) => buildCronTab(t, Math.floor(r / CRONTABS_PER_NAMESPACE), r % CRONTABS_PER_NAMESPACE));
  add('certificates.cert-manager.io', t.workloads.filter((w) => w.ingress).map((w) => w.index), (r) => nsKey(wl(t, r), wl(t, r).name), (r) => buildCertificate(t, wl(t, r)));
  add('clusterissuers.cert-manager.io', CLUSTER_ISSUERS.map((_, i) => i), (r) => CLUSTER_ISSUERS[r] ?? '', (r) => buildClusterIssuer(t, r));
  return sets;
}
