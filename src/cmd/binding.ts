// `clusterpedia binding`: the read path and the write path in one process over one storage (the single-Pod deployment).
import { Command } from 'commander';
import { setHeapGrowingPercent } from '../lib/v8-heap.js';
import { loggerFor, shutdownSignal } from './context.js';
import { addApiserverFlags, apiserverOptionsFrom, type ApiserverFlags } from './apiserver.js';
import { addSynchroFlags, requireClustersPath, synchroOptionsFrom, type SynchroFlagValues } from './synchro.js';
import { option, parseNonNegativeInt, parsePositiveInt, storageOptions, storageWaitOption } from './flags.js';
import type { BindingOptions } from '../roles/binding/options.js';

interface DemoFlags {
  demo?: boolean;
  demoClusters: number;
  demoPods: number;
  demoChurn: number;
  demoDir: string;
}

export function newBindingCommand(): Command {
  const cmd = new Command('binding').description('run the search API and the synchro in one process over one storage');
  for (const o of storageOptions()) cmd.addOption(o);
  cmd.addOption(storageWaitOption());
  addSynchroFlags(cmd, { leaderElect: false, metricsEndpoint: false });
  addApiserverFlags(cmd);
  cmd
    .addOption(option('--demo', 'also start simulated member clusters in-process and register them (no cluster needed)'))
    .addOption(option('--demo-clusters <n>', 'simulated clusters with --demo').argParser(parsePositiveInt).default(3))
    .addOption(option('--demo-pods <n>', 'pods per simulated cluster with --demo').argParser(parsePositiveInt).default(60))
    // Watch events, most of them Events the changes cause: 10/s is a pod change every second or so across the fleet.
    .addOption(option('--demo-churn <events/s>', 'watch events per second across the demo fleet').argParser(parseNonNegativeInt).default(10))
    .addOption(option('--demo-dir <dir>', 'where --demo writes its generated PediaCluster file').default('./clusterpedia-demo'));
  cmd.action(async (_flags: unknown, self: Command) => {
    const f = self.opts<ApiserverFlags & SynchroFlagValues & DemoFlags>();
    const demo = f.demo === true;
    const apiserver = apiserverOptionsFrom(f);
    // A newcomer's kubectl needs no certificate: the demo also serves plain HTTP on loopback. Its members' logs, exec,
    // port-forward, metrics and schemas (made up by the simulator) are forwarded, so `kubectl logs`, `exec`,
    // `port-forward`, `top` and `explain` can be tried too.
    if (demo && apiserver.serving.insecurePort === undefined) apiserver.serving.insecurePort = 8080;
    if (demo && f.allowedProxySubresources === undefined) apiserver.forward.subresources = ['pods/log', 'pods/exec', 'pods/portforward'];
    if (demo) Object.assign(apiserver.forward, { metrics: true, openapi: true });
    const options: BindingOptions = { apiserver, synchro: synchroOptionsFrom(f, { requireSource: !demo }) };
    requireClustersPath(options.synchro);
    setHeapGrowingPercent(f.heapGrowingPercent);
    if (demo) options.demo = { clusters: f.demoClusters, podsPerCluster: f.demoPods, churn: f.demoChurn, seed: 1, dir: f.demoDir };
    const { runBinding } = await import('../roles/binding/run.js');
    await runBinding(options, { logger: loggerFor(self), signal: shutdownSignal(), print: (t) => process.stderr.write(t) });
  });
  return cmd;
}
