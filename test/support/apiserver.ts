// Starts the apiserver role in-process over a given storage on a loopback port, for tests.
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { silentLogger, type Logger } from '../../src/lib/log.js';
import { runAll } from '../../src/lib/lifecycle.js';
import { defaultApiserverOptions, type ApiserverOptions } from '../../src/roles/apiserver/options.js';
import { apiserverRunnables } from '../../src/roles/apiserver/run.js';
import type { Storage } from '../../src/storage/types.js';

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
