// `clusterpedia binding`: the read path and the write path in one process over one storage (the single-Pod deployment).
import { Command, InvalidArgumentError } from 'commander';
import { setHeapGrowingPercent } from '../lib/v8-heap.js';
import { loggerFor, shutdownSignal } from './context.js';
import { addApiserverFlags, apiserverOptionsFrom, type ApiserverFlags } from './apiserver.js';
import { addSynchroFlags, requireClustersPath, synchroOptionsFrom, type SynchroFlagValues } from './synchro.js';
import { option, parseNonNegativeInt, parsePositiveInt, storageOptions } from './flags.js';
import type { BindingOptions } from '../roles/binding/options.js';

interface DemoFlags {
  demo?: boolean;
  demoClusters: number;
  demoPods: number;
  demoChurn: number;
  demoDir: string;
  allowedProxySubresources?: string[];
}

// Clusterpedia's proxy subresources (its options.go); this build forwards pods/log.
const CLUSTERPEDIA_PROXY = new Map([['log', ['pods']], ['exec', ['pods']], ['attach', ['pods']], ['portforward', ['pods']], ['proxy', ['pods', 'nodes', 'services']]]);
const FORWARDED = new Set(['pods/log']);

/**
 * --allowed-proxy-subresources as Clusterpedia reads it: `resource/subresource` or a bare subresource (every resource
 * offering it), `portfowrd` taken for `portforward`. Those Clusterpedia knows but this build does not forward are
 * refused by name.
 */
export function parseProxySubresources(value: string): string[] {
  const out = new Set<string>();
  for (const raw of value.split(',').map((t) => t.trim()).filter((t) => t !== '')) {
    const parts = raw.replace('portfowrd', 'portforward').split('/');
    if (parts.length > 2) throw new InvalidArgumentError(`invalid format "${raw}"`);
    const sub = parts[parts.length - 1] ?? '';
    const resources = CLUSTERPEDIA_PROXY.get(sub)?.filter((r) => parts.length === 1 || r === parts[0]) ?? [];
    if (resources.length === 0) throw new InvalidArgumentError(`unsupported subresources or invalid format "${raw}"`);
    for (const r of resources) {
      if (!FORWARDED.has(`${r}/${sub}`)) throw new InvalidArgumentError(`${r}/${sub} is not forwarded by this build (only ${[...FORWARDED].join(', ')})`);
      out.add(`${r}/${sub}`);
    }
  }
  return [...out];
}

export function newBindingCommand(): Command {
  const cmd = new Command('binding').description('run the search API and the synchro in one process over one storage');
  for (const o of storageOptions()) cmd.addOption(o);
  addSynchroFlags(cmd);
  addApiserverFlags(cmd);
  cmd
    .addOption(option('--demo', 'also start simulated member clusters in-process and register them (no cluster needed)'))
    .addOption(option('--demo-clusters <n>', 'simulated clusters with --demo').argParser(parsePositiveInt).default(3))
    .addOption(option('--demo-pods <n>', 'pods per simulated cluster with --demo').argParser(parsePositiveInt).default(60))
    .addOption(option('--demo-churn <events/s>', 'changes per second across the demo fleet').argParser(parseNonNegativeInt).default(2))
    .addOption(option('--demo-dir <dir>', 'where --demo writes its generated PediaCluster file').default('./clusterpedia-demo'))
    .addOption(option('--allowed-proxy-subresources <list>', 'subresources forwarded to the member cluster through its path, with the synchro\'s connection (pods/log)').argParser(parseProxySubresources));
  cmd.action(async (_flags: unknown, self: Command) => {
    const f = self.opts<ApiserverFlags & SynchroFlagValues & DemoFlags>();
    const demo = f.demo === true;
    const apiserver = apiserverOptionsFrom(f);
    apiserver.proxySubresources = f.allowedProxySubresources ?? [];
    // A newcomer's kubectl needs no certificate: the demo also serves plain HTTP on loopback.
    if (demo && apiserver.serving.insecurePort === undefined) apiserver.serving.insecurePort = 8080;
    const options: BindingOptions = { apiserver, synchro: synchroOptionsFrom(f, { requireSource: !demo }) };
    requireClustersPath(options.synchro);
    setHeapGrowingPercent(f.heapGrowingPercent);
    if (demo) options.demo = { clusters: f.demoClusters, podsPerCluster: f.demoPods, churn: f.demoChurn, seed: 1, dir: f.demoDir };
    const { runBinding } = await import('../roles/binding/run.js');
    await runBinding(options, { logger: loggerFor(self), signal: shutdownSignal(), print: (t) => process.stderr.write(t) });
  });
  return cmd;
}
