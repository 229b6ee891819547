// `binding --demo`: simulated member clusters in-process, registered through a generated --clusters file,
// so a newcomer sees a working system on a machine with no cluster at all.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { makeDirectory } from '../../lib/dirs.js';
import { ConfigError, hasCode, messageOf } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { aborted, type Runnable } from '../../lib/lifecycle.js';
import { isSingleContainerRunning, kubeconfigForAll, pediaClustersYaml, startSimulatedFleet, type SimCluster, type SimFleet, type SimObject } from '../../sim/index.js';
import { RESOURCES_PREFIX } from '../apiserver/request-info.js';
import type { DemoOptions } from './options.js';

export interface Demo {
  clustersPath: string;
  fleet: SimFleet;
  runnable: Runnable;
  /** What to try, once the apiserver listens. */
  hints(addrs: { secure?: AddressInfo; insecure?: AddressInfo }): string;
  stop(): Promise<void>;
}

export async function startDemo(o: DemoOptions, logger: Logger): Promise<Demo> {
  try {
    makeDirectory(o.dir);
  } catch (e) {
    throw new ConfigError(`--demo-dir: cannot make ${resolve(o.dir)}: ${messageOf(e)}`);
  }
  const release = claimDemoDir(o.dir);
  let fleet: SimFleet;
  try {
    // Over TLS, as real members are: kubectl sends no token over plain HTTP, and members.kubeconfig lets you use them.
    // HTTP/2 and aggregated discovery too, as kube-apiserver 1.32 serves them.
    fleet = await startSimulatedFleet({
      clusters: o.clusters, podsPerCluster: o.podsPerCluster, seed: o.seed, namePrefix: 'demo-', token: 'demo-token', tls: true, http2: true, aggregatedDiscovery: true,
    });
  } catch (e) {
    release();
    throw e;
  }
  const clustersPath = resolve(join(o.dir, 'demo-clusters.yaml'));
  writeFileSync(clustersPath, pediaClustersYaml(fleet.clusters));
  const membersPath = join(o.dir, 'members.kubeconfig');
  writeFileSync(membersPath, kubeconfigForAll(fleet.clusters), { mode: 0o600 });
  logger.info({ clusters: fleet.clusters.map((c) => ({ name: c.name, url: c.url })), clustersPath }, 'demo member clusters started');
  if (o.churn > 0) {
    const perCluster = o.churn / fleet.clusters.length;
    for (const c of fleet.clusters) c.churn.start(perCluster);
  }
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const c of fleet.clusters) c.churn.stop();
    try {
      await fleet.stop();
    } finally {
      release();
    }
  };
  return {
    clustersPath,
    fleet,
    runnable: { name: 'demo-fleet', start: async (signal) => { await aborted(signal); await stop(); } },
    hints: (addrs) => {
      // The server's root (with kubectl's TLS flag when it is the self-signed secure port), and the resources API.
      const root = addrs.insecure ? `http://127.0.0.1:${addrs.insecure.port}` : `https://127.0.0.1:${addrs.secure?.port ?? 8443}`;
      const tls = addrs.insecure ? '' : ' --insecure-skip-tls-verify';
      const server = `${root}${RESOURCES_PREFIX}${tls}`;
      const first = fleet.clusters[0]?.name ?? 'demo-1';
      return [
        '',
        `clusterpedia is syncing ${fleet.clusters.length} simulated clusters (${fleet.clusters.map((c) => c.name).join(', ')}). Try:`,
        '',
        `  kubectl --server=${server} get pods -A`,
        `  kubectl --server=${server} get deployments -A -o wide`,
        `  kubectl --server=${server} get pods -A -l 'search.clusterpedia.io/clusters in (${first})'`,
        `  kubectl --server=${server} get pods -A --field-selector status.phase!=Running`,
        `  kubectl --server=${root}${RESOURCES_PREFIX}/clusters/${first}${tls} get pods -n default`,
        `  kubectl --server=${server} get pods -A -w`,
        `  kubectl --server=${server} top pods -A --sort-by=cpu`,
        `  kubectl --server=${server} explain deployments.spec.strategy`,
        ...logsHint(fleet.clusters[0], `${root}${RESOURCES_PREFIX}/clusters/${first}${tls}`),
        `  kubectl --server=${root}${tls} get pediaclusters`,
        ...memberHint(fleet.clusters[0], membersPath, server),
        '',
        'A kubeconfig with a context for the fleet and one per cluster:',
        '',
        `  bin/clusterpedia show kubeconfig --server=${root}${tls} > fleet.yaml`,
        `  KUBECONFIG=fleet.yaml kubectl --context ${first} get pods -A`,
        '',
        'Stop with Ctrl-C.',
        '',
      ].join('\n');
    },
    stop,
  };
}

/**
 * A change made on a member with kubectl (its credentials in members.kubeconfig), and clusterpedia following it: the
 * simulated members answer kubectl scale and rollout restart as kube's controllers do.
 */
function memberHint(c: SimCluster | undefined, kubeconfig: string, server: string): string[] {
  // One whose pods are all ready, so its rollout completes: scaled up by two.
  const replicas = (x: SimObject, field: 'spec' | 'status', key: string): number => Number((x[field] as Record<string, unknown> | undefined)?.[key] ?? 0);
  const d = c?.store.list({ group: 'apps', resource: 'deployments' }).find((x) => x.metadata.namespace !== 'kube-system' && replicas(x, 'status', 'readyReplicas') === replicas(x, 'spec', 'replicas'));
  if (!c || !d) return [];
  const where = `-n ${d.metadata.namespace ?? ''}`;
  return [
    '',
    `Change a member with kubectl and watch clusterpedia follow (${kubeconfig} has a context per member):`,
    '',
    `  kubectl --server=${server} get pods ${where} -w`,
    `  kubectl --kubeconfig ${kubeconfig} --context ${c.name} scale ${where} deploy/${d.metadata.name ?? ''} --replicas=${replicas(d, 'spec', 'replicas') + 2}`,
    `  kubectl --kubeconfig ${kubeconfig} --context ${c.name} rollout restart ${where} deploy/${d.metadata.name ?? ''}`,
  ];
}

/**
 * `kubectl logs`, `exec`, `port-forward` and `top` (forwarded in the demo) of the Deployment of a running one-container pod of
 * the first cluster: kubectl picks a running pod of it when asked, so the command still works after churn replaced the
 * pod. The port-forward takes a free local port (kubectl prints it) to the container's declared port.
 */
function logsHint(c: SimCluster | undefined, server: string): string[] {
  const pod = c?.store.list('pods').find(isSingleContainerRunning);
  if (!c || !pod) return [];
  const ns = pod.metadata.namespace ?? '';
  const owner = (o: SimObject | undefined, kind: string): string | undefined => o?.metadata.ownerReferences?.find((r) => r.kind === kind)?.name;
  const rs = owner(pod, 'ReplicaSet');
  const deployment = rs === undefined ? undefined : owner(c.store.get({ group: 'apps', resource: 'replicasets' }, ns, rs), 'Deployment');
  const where = `-n ${ns} ${deployment !== undefined ? `deploy/${deployment}` : pod.metadata.name ?? ''}`;
  const port = ((pod.spec as { containers?: { ports?: { containerPort?: unknown }[] }[] } | undefined)?.containers?.[0]?.ports ?? [])[0]?.containerPort;
  return [
    `  kubectl --server=${server} logs ${where} --tail=5`,
    `  kubectl --server=${server} exec ${where} -- hostname`,
    ...(typeof port === 'number' ? [`  kubectl --server=${server} port-forward ${where} :${port}`] : []),
    `  kubectl --server=${server} top pods -n ${ns}`,
  ];
}

/**
 * One demo per directory. A second `binding --demo` started beside a running one would rewrite its clusters file
 * with members of its own, which the first one's synchro then follows (it re-reads the file on change), before the
 * second stops on the taken port: the first demo's clusters turn unreachable. The directory holds the pid of the
 * demo using it; a pid whose process is gone (a demo killed with SIGKILL) is taken over. Returns the release.
 */
function claimDemoDir(dir: string): () => void {
  const path = join(dir, 'demo.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (e) {
      if (!hasCode(e, 'EEXIST') || attempt > 0) throw e;
    }
    const holder = Number(readFileSync(path, 'utf8').trim());
    if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder)) {
      throw new ConfigError(`--demo-dir: ${resolve(dir)} is in use by another clusterpedia binding --demo (pid ${holder}); stop it, or give this one another --demo-dir (and --storage, --secure-port, --insecure-port); if pid ${holder} is no demo, remove ${resolve(path)}`);
    }
    rmSync(path, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return hasCode(e, 'EPERM');
  }
}
