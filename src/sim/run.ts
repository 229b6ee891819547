// The `simulate` command's body: start a fleet, write the PediaCluster file, print one line per cluster, stop on the signal.
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../lib/log.js';
import { aborted } from '../lib/lifecycle.js';
import { ConfigError } from '../lib/errors.js';
import { pediaClustersYaml, startSimulatedFleet } from './fleet.js';

export interface SimulateOptions {
  clusters: number;
  podsPerCluster: number;
  /** First port; cluster i listens on port+i; 0 picks free ports. */
  port: number;
  /** HTTPS, offering HTTP/2 beside HTTP/1.1 as kube-apiserver does. */
  tls: boolean;
  /** Serve kube's aggregated discovery to clients that ask (SimClusterOptions.aggregatedDiscovery). */
  aggregatedDiscovery?: boolean;
  /** Watch events per second per cluster; 0 disables churn. */
  churn: number;
  seed: number;
  /** Where the PediaCluster YAML goes. */
  out: string;
}

/** Runs until `signal` aborts; every cluster is stopped before it resolves. */
export async function runSimulation(opts: SimulateOptions, signal: AbortSignal, logger: Logger, print: (line: string) => void): Promise<void> {
  if (opts.port > 0 && opts.port + opts.clusters - 1 > 65535) throw new ConfigError(`--port ${opts.port} leaves no room for ${opts.clusters} consecutive ports`);
  // A PediaCluster needs a token or a client certificate (§4.2): TLS clusters get a random token each, plain ones a fixed one.
  const fleet = await startSimulatedFleet({ clusters: opts.clusters, podsPerCluster: opts.podsPerCluster, basePort: opts.port, tls: opts.tls, http2: opts.tls, seed: opts.seed, aggregatedDiscovery: opts.aggregatedDiscovery === true, logger, ...(opts.tls ? {} : { token: 'simulated-token' }) }).catch((e: unknown) => {
    logger.error({ err: e }, 'starting the simulated clusters failed');
    throw e;
  });
  try {
    await writeWhole(opts.out, pediaClustersYaml(fleet.clusters));
    for (const c of fleet.clusters) {
      if (opts.churn > 0) c.churn.start(opts.churn);
      print(`${c.name} ${c.url} pods=${opts.podsPerCluster}${opts.tls ? ' tls h2' : ''}`);
    }
    logger.info({ clusters: opts.clusters, out: opts.out }, 'simulated clusters running');
    await aborted(signal);
  } finally {
    await fleet.stop();
    logger.info('simulated clusters stopped');
  }
}

/**
 * Writes `path` whole or not at all: beside it under a hidden name (which `--clusters <dir>` skips), then renamed over
 * it. A synchro watching the file, or a script waiting for it to appear, never reads half of it.
 */
async function writeWhole(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (e: unknown) {
    await rm(tmp, { force: true });
    throw e;
  }
}
