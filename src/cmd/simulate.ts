// `clusterpedia simulate`: flags → SimulateOptions → runSimulation (simulated member clusters for demos, tests and benchmarks).
import { Command } from 'commander';
import { runSimulation, type SimulateOptions } from '../sim/run.js';
import { loggerFor, shutdownSignal } from './context.js';
import { option as roleOption, parseNonNegativeInt, parsePort, parsePositiveInt } from './flags.js';

/** simulate's flags read CLUSTERPEDIA_SIMULATE_<FLAG>: CLUSTERPEDIA_CLUSTERS, exported for the roles, is a path. */
const option = (flags: string, description: string) => roleOption(flags, description, 'CLUSTERPEDIA_SIMULATE_');

export function newSimulateCommand(): Command {
  return new Command('simulate')
    .description('start simulated Kubernetes API servers on consecutive loopback ports and write a PediaCluster file for them')
    // addCommand does not inherit the root's exitOverride: without this a bad flag would exit 1 inside commander, not 2 in main.
    .exitOverride()
    .addOption(option('--clusters <n>', 'number of simulated clusters').argParser(parsePositiveInt).default(2))
    .addOption(option('--pods-per-cluster <n>', 'pods in each cluster (plus their owners, services, config, events...)').argParser(parseNonNegativeInt).default(50))
    .addOption(option('--port <port>', 'port of the first cluster, the next ones follow; 0 picks free ports').argParser(parsePort).default(0))
    .addOption(option('--tls', 'serve HTTPS, HTTP/2 beside HTTP/1.1 as kube-apiserver does, with a CA generated at start (its PEM goes into caData)'))
    .addOption(option('--aggregated-discovery', 'answer /api and /apis in aggregated discovery (apidiscovery.k8s.io/v2) to clients that ask, as kube-apiserver 1.27+ does; legacy JSON otherwise'))
    .addOption(option('--churn <rate>', 'changes (watch events) per second per cluster; 0 = none').argParser(parseNonNegativeInt).default(0))
    .addOption(option('--seed <n>', 'seed of every generated object and change').argParser(parseNonNegativeInt).default(1))
    .addOption(option('--out <file>', 'where to write the PediaCluster YAML (the --clusters file of the other commands)').default('clusters.yaml'))
    .action(async (flags: { clusters: number; podsPerCluster: number; port: number; tls?: boolean; aggregatedDiscovery?: boolean; churn: number; seed: number; out: string }, cmd: Command) => {
      const opts: SimulateOptions = { clusters: flags.clusters, podsPerCluster: flags.podsPerCluster, port: flags.port, tls: flags.tls === true, aggregatedDiscovery: flags.aggregatedDiscovery === true, churn: flags.churn, seed: flags.seed, out: flags.out };
      await runSimulation(opts, shutdownSignal(), loggerFor(cmd), (line) => process.stdout.write(`${line}\n`));
    });
}
