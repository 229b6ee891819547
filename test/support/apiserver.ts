// Starts the apiserver role in-process over a given storage on a loopback port, for tests.
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { silentLogger, type Logger } from '../../src/lib/log.js';
import { runAll } from '../../src/lib/lifecycle.js';
import { defaultApiserverOptions, type ApiserverOptions } from '../../src/roles/apiserver/options.js';
import { apiserverRunnables } from '../../src/roles/apiserver/run.js';
import { openStorage } from '../../src/storage/open.js';
import type { Storage, UpsertObject } from '../../src/storage/types.js';
import { healthyStatus } from './fixtures.js';

export interface TestApiserver {
  /** http://127.0.0.1:<port> */
  base: string;
  /** The resources API prefix, what kubectl's --server points at. */
  resources: string;
  stop(): Promise<void>;
}

export async function startTestApiserver(storage: Storage, tweak?: (o: ApiserverOptions) => void, logger: Logger = silentLogger()): Promise<TestApiserver> {
  const options = defaultApiserverOptions();
  options.serving.securePort = 0;
  options.serving.insecurePort = 0;
  options.watch.pollIntervalMs = 50;
  options.shutdownGraceMs = 2000;
  tweak?.(options);
  let resolveAddr!: (a: AddressInfo) => void;
  const addr = new Promise<AddressInfo>((r) => (resolveAddr = r));
  const runnables = await apiserverRunnables(options, {
    storage, logger, registry: new Registry(),
    onListening: (a) => { if (a.insecure) resolveAddr(a.insecure); },
  });
  const ac = new AbortController();
  const done = runAll(runnables, ac.signal);
  const failed = done.then(() => undefined, (e: unknown) => { throw e; });
  const a = await Promise.race([addr, failed.then(() => { throw new Error('apiserver stopped before listening'); })]);
  const base = `http://127.0.0.1:${a.port}`;
  return {
    base,
    resources: `${base}/apis/clusterpedia.io/v1beta1/resources`,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

export interface ServedStore {
  storage: Storage;
  api: TestApiserver;
  /** Stops the apiserver, then closes the store. */
  stop(): Promise<void>;
}

/**
 * The setup of the apiserver's HTTP tests: a migrated store at `url` (an in-memory SQLite unless given) holding
 * `upserts`, a status per cluster (`true`: healthy), and an apiserver over it.
 */
export async function serveStore(upserts: UpsertObject[], clusters: Record<string, boolean>, url = 'sqlite::memory:', tweak?: (o: ApiserverOptions) => void): Promise<ServedStore> {
  const storage = await openStorage({ url }, { logger: silentLogger() });
  try {
    await storage.migrate();
    await storage.write({ upserts, deletes: [] });
    for (const [cluster, healthy] of Object.entries(clusters)) await storage.putClusterStatus(cluster, healthyStatus(cluster, healthy));
    const api = await startTestApiserver(storage, tweak);
    return { storage, api, stop: async () => { await api.stop(); await storage.close(); } };
  } catch (e: unknown) {
    await storage.close();
    throw e;
  }
}
