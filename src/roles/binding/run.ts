// The binding role: the apiserver's and the synchro's runnables over one storage and one metrics registry (STYLE §4).
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../../lib/log.js';
import { runAll, type Runnable } from '../../lib/lifecycle.js';
import { TurnQueue } from '../../lib/turns.js';
import { storageMetrics } from '../../storage/metrics.js';
import { openStorageWaiting, readySchema } from '../../storage/open.js';
import { serviceUnavailable } from '../../kube/status.js';
import { apiserverRunnables } from '../apiserver/run.js';
import { synchroRunnables } from '../synchro/run.js';
import type { BindingOptions } from './options.js';
import { startDemo, type Demo } from './demo.js';

export interface BindingDeps {
  logger: Logger;
  signal: AbortSignal;
  /** Human output (the demo's kubectl hints) goes here; the logs stay JSON on stdout. */
  print?: (text: string) => void;
}

export async function runBinding(o: BindingOptions, deps: BindingDeps): Promise<void> {
  const logger = deps.logger.child({ role: 'binding' });
  const registry = new Registry();
  const storage = await openStorageWaiting(
    o.apiserver.storage,
    { logger, changeLogRevisions: o.apiserver.changeLog.revisions, changeLogMaxAgeMs: o.apiserver.changeLog.maxAgeMs, ...storageMetrics(registry) },
    { timeoutMs: o.apiserver.storage.initializationTimeoutMs ?? 0, signal: deps.signal },
    (s) => readySchema(s, o.apiserver.migrate, logger),
  );
  if (!storage) return;
  let demo: Demo | undefined;
  try {
    collectDefaultMetrics({ register: registry });
    const runnables: Runnable[] = [];
    let clustersPath = o.synchro.clustersPath;
    if (o.demo) {
      demo = await startDemo(o.demo, logger);
      clustersPath = demo.clustersPath;
      runnables.push(demo.runnable);
    }
    // One process, one metrics endpoint: the apiserver's /metrics serves both roles' metrics. One event loop: reads and
    // the synchro's write batches take turns in arrival order (turns.ts).
    const turns = new TurnQueue();
    const synchro = await synchroRunnables({ ...o.synchro, clustersPath, metricsPort: 0 }, { storage, logger: deps.logger, registry, turns });
    const api = await apiserverRunnables(o.apiserver, {
      storage, logger: deps.logger.child({ role: 'apiserver' }), registry, turns,
      members: {
        client: async (cluster) => synchro.manager.memberClient(cluster)
          ?? Promise.reject(serviceUnavailable(`cluster ${cluster} has no connection yet: its synchro is not running`)),
      },
      onListening: (addrs) => {
        if (demo && deps.print) deps.print(demo.hints(addrs));
      },
    });
    runnables.push(...api, ...synchro.runnables);
    try {
      await runAll(runnables, deps.signal);
    } finally {
      await synchro.close();
    }
  } finally {
    await demo?.stop();
    await storage.close();
  }
}
