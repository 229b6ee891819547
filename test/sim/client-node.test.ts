// @kubernetes/client-node 1.4.0 informers list and watch the simulator and converge through dropped watches and 410s.
import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

let c: SimCluster;
let informer: k8s.Informer<k8s.V1Pod> & k8s.ObjectCache<k8s.V1Pod> | undefined;
beforeEach(async () => {
  c = await startSimulatedCluster({ pods: 30, seed: 21, token: 'secret-token' });
});
afterEach(async () => {
  await informer?.stop();
  informer = undefined;
  await c.stop();
});

function kubeConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  // skipTLSVerify is required for http:// servers (toolchain §4).
  kc.loadFromOptions({
    clusters: [{ name: 'sim', server: c.url, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'sim', cluster: 'sim', user: 'u' }],
    currentContext: 'sim',
  });
  return kc;
}

async function eventually(pred: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const cacheState = (): Map<string, string> => new Map((informer?.list() ?? []).map((p) => [`${p.metadata?.namespace}/${p.metadata?.name}`, p.metadata?.resourceVersion ?? '']));
const truth = (): Map<string, string> => new Map(c.snapshot('pods').map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p.metadata.resourceVersion ?? '']));

async function startInformer(): Promise<void> {
  const kc = kubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  informer = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
  // client-node stops on errors other than 410; restart it like an application must. Its own AbortError (start() aborts
  // the watch the constructor opened) is not a failure.
  informer.on('error', (e: unknown) => {
    if (!String(e).includes('AbortError')) setTimeout(() => void informer?.start(), 200);
  });
  await informer.start();
}

describe('client-node informer', () => {
  it('lists then watches, and follows changes', async () => {
    await startInformer();
    expect(informer?.list()).toHaveLength(30);
    c.churn.step(20);
    await eventually(() => JSON.stringify([...cacheState()].sort()) === JSON.stringify([...truth()].sort()));
  });

  it('resumes from its resourceVersion after dropped watches, without relisting', async () => {
    await startInformer();
    for (let i = 0; i < 3; i++) {
      c.faults.dropWatches();
      c.churn.step(5);
      await eventually(() => c.openWatches >= 1);
    }
    await eventually(() => JSON.stringify([...cacheState()].sort()) === JSON.stringify([...truth()].sort()));
    const lists = c.requestLog.entries((r) => r.path === '/api/v1/pods' && !r.watch);
    const watches = c.requestLog.entries((r) => r.path === '/api/v1/pods' && r.watch);
    expect(lists).toHaveLength(1);
    expect(watches.length).toBeGreaterThanOrEqual(4);
    expect(watches.slice(1).every((w) => Number(w.params.resourceVersion) > 0)).toBe(true);
  });

  it('relists after compaction + drop (410) and ends with the right cache', async () => {
    await startInformer();
    c.faults.dropWatches();
    c.churn.step(10);
    c.faults.compact();
    await eventually(() => c.requestLog.entries((r) => r.path === '/api/v1/pods' && !r.watch).length === 2);
    c.churn.step(10);
    await eventually(() => JSON.stringify([...cacheState()].sort()) === JSON.stringify([...truth()].sort()));
  });
});
