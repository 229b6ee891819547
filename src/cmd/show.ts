// `clusterpedia show clusters|resources`: what the synchro reports and what storage holds, for troubleshooting;
// `show kubeconfig`: contexts for the fleet and each member (show-kubeconfig.ts).
import { Command } from 'commander';
import { toYaml } from '../kube/yaml.js';
import { openStorage } from '../storage/open.js';
import { sleep } from '../lib/lifecycle.js';
import { loggerFor, shutdownSignal } from './context.js';
import { option, parsePositiveDuration, storageOptions } from './flags.js';
import { loadReports, type ClusterReport } from './show-model.js';
import { kubeconfigFor, type KubeconfigOptions } from './show-kubeconfig.js';
import { humanBytes, renderTable, shortAge, type Cell } from './show-table.js';

type Output = 'table' | 'json' | 'yaml';

interface ShowFlags {
  storage: string;
  storageConfig?: string;
  output: Output;
  watch?: boolean;
  watchInterval: number;
}

export function newShowCommand(): Command {
  const show = new Command('show').description('read from storage: clusters and resources (diagnostics), a kubeconfig for the fleet');
  show.addCommand(subcommand('clusters', 'per cluster: health, sync progress, object counts, last event, errors', renderClusters));
  show.addCommand(subcommand('resources', 'per cluster and resource type: sync status, object count, storage size', renderResources));
  show.addCommand(kubeconfigCommand());
  return show;
}

interface KubeconfigFlags {
  storage: string;
  storageConfig?: string;
  server: string;
  user?: string;
  certificateAuthority?: string;
  insecureSkipTlsVerify?: boolean;
  fleetName: string;
}

function kubeconfigCommand(): Command {
  const cmd = new Command('kubeconfig').description('a kubeconfig with a context for the fleet and one per registered cluster (YAML on stdout)');
  for (const o of storageOptions()) cmd.addOption(o);
  cmd
    .addOption(option('--server <url>', "clusterpedia's address (https://host:8443), or the host cluster's when installed as an aggregated API").makeOptionMandatory())
    .addOption(option('--user <name>', 'the user every context names, as defined in your own kubeconfig (merge the two with KUBECONFIG=a:b)'))
    .addOption(option('--certificate-authority <file>', "PEM of the serving certificate's CA, embedded in the kubeconfig"))
    .addOption(option('--insecure-skip-tls-verify', 'do not verify the serving certificate'))
    .addOption(option('--fleet-name <name>', 'name of the context (and cluster) that searches every member').default('clusterpedia'));
  cmd.action(async (_f: unknown, self: Command) => {
    const f = self.opts<KubeconfigFlags>();
    const o: KubeconfigOptions = { server: f.server, fleetName: f.fleetName, insecureSkipTlsVerify: f.insecureSkipTlsVerify === true };
    if (f.user) o.user = f.user;
    if (f.certificateAuthority) o.certificateAuthority = f.certificateAuthority;
    // The flags first (--server, --certificate-authority): a typo is named before storage is looked for.
    const kubeconfig = kubeconfigFor(o);
    const storage = await openStorage(f.storageConfig ? { configFile: f.storageConfig } : { url: f.storage }, { logger: loggerFor(self), mustExist: true });
    try {
      const names = (await loadReports(storage)).map((r) => r.name);
      process.stdout.write(toYaml(kubeconfig(names)));
    } finally {
      await storage.close();
    }
  });
  return cmd;
}

function subcommand(name: string, description: string, render: (r: ClusterReport[], colour: boolean, now: number) => string): Command {
  const cmd = new Command(name).description(description);
  for (const o of storageOptions()) cmd.addOption(o);
  cmd
    .addOption(option('-o, --output <format>', 'output format').choices(['table', 'json', 'yaml']).default('table'))
    .addOption(option('-w, --watch', 'refresh until interrupted'))
    .addOption(option('--watch-interval <duration>', 'refresh period with --watch').argParser(parsePositiveDuration).default(2000, '2s'));
  cmd.argument('[clusters...]', 'only these clusters (default: every one storage has)');
  cmd.action(async (names: string[], _f: unknown, self: Command) => {
    const f = self.opts<ShowFlags>();
    const logger = loggerFor(self);
    // show only reads: never migrate; a missing or newer schema is reported by the storage layer.
    // Only reads: a mistyped path is reported, not created empty.
    const storage = await openStorage(f.storageConfig ? { configFile: f.storageConfig } : { url: f.storage }, { logger, mustExist: true });
    const tty = process.stdout.isTTY === true;
    const colour = tty && !process.env.NO_COLOR;
    const signal = f.watch ? shutdownSignal() : undefined;
    try {
      let first = true;
      do {
        const reports = only(await loadReports(storage), names, first);
        first = false;
        const text = f.output === 'json' ? `${JSON.stringify(reports, null, 2)}\n`
          : f.output === 'yaml' ? toYaml(reports)
            : render(reports, colour, Date.now());
        if (f.watch && tty) process.stdout.write('\u001b[2J\u001b[H');
        process.stdout.write(text || 'No clusters found.\n');
        if (f.watch) await sleep(f.watchInterval, signal);
      } while (f.watch && !signal?.aborted);
    } finally {
      await storage.close();
    }
  });
  return cmd;
}

/**
 * The reports of the clusters `names` asks for (all when none). A name storage does not have is an error the first
 * time (a typo); while watching, a cluster removed since is left out.
 */
function only(reports: ClusterReport[], names: string[], strict: boolean): ClusterReport[] {
  if (names.length === 0) return reports;
  const known = new Set(reports.map((r) => r.name));
  const missing = [...new Set(names.filter((n) => !known.has(n)))];
  if (strict && missing.length > 0) {
    const has = reports.length === 0 ? 'it has none' : `it has ${reports.map((r) => r.name).join(', ')}`;
    throw new Error(`no cluster named ${missing.map((n) => JSON.stringify(n)).join(', ')} in storage (${has})`);
  }
  const wanted = new Set(names);
  return reports.filter((r) => wanted.has(r.name));
}

function conditionCell(r: ClusterReport, type: string): Cell {
  const c = r.conditions.find((x) => x.type === type);
  if (!c) return { text: 'Unknown', colour: 'yellow' };
  return { text: c.status, colour: c.status === 'True' ? 'green' : c.status === 'False' ? 'red' : 'yellow' };
}

/** What a resource that is not syncing is doing, as the progress column counts it. */
const STATE_WORDS: Record<string, string> = { Stop: 'stopped', Error: 'failing', Pending: 'pending' };

/**
 * `synced` once every resource finished its initial list and watches; `[#####-----] 5/10` while some still list or
 * wait for their turn; else how many are stopped or failing (storage refusing writes stops them all: that is not
 * "synced", even with no list running).
 */
function progress(r: ClusterReport): Cell {
  const total = r.resources.length;
  if (total === 0) return { text: '-', colour: 'dim' };
  const synced = r.resources.filter((x) => x.status === 'Syncing' && !x.initialListPhase).length;
  if (synced === total) return { text: 'synced', colour: 'green' };
  if (r.resources.some((x) => x.initialListPhase || x.status === 'Pending')) {
    const width = 10;
    const filled = Math.round((synced / total) * width);
    return { text: `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${synced}/${total}`, colour: 'yellow' };
  }
  const counts = new Map<string, number>();
  for (const x of r.resources) {
    if (x.status === 'Syncing') continue;
    const word = STATE_WORDS[x.status] ?? (x.status.toLowerCase() || 'unknown');
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return { text: [...counts].map(([word, n]) => `${n} ${word}`).join(', '), colour: counts.has('failing') ? 'red' : 'yellow' };
}

/** The first thing worth a look: a failing condition, a resource in error, else why resources are stopped. */
function problem(r: ClusterReport): string {
  const c = r.conditions.find((x) => x.type !== 'Ready' && x.status !== 'True');
  if (c) return `${c.type}: ${c.reason}${c.message ? ` ${c.message}` : ''}`;
  // Rows storage refused to delete are still served: as worth a look as a resource in error.
  const e = r.resources.find((x) => x.status === 'Error' || x.reason === 'CleanResourceFailed')
    // Stopped with a reason (storage refusing writes, a resource being removed); a Stop without one is a shutdown.
    ?? r.resources.find((x) => x.status === 'Stop' && x.reason !== '');
  if (!e) return '';
  const same = r.resources.filter((x) => x.status === e.status && x.reason === e.reason && x.message === e.message).length;
  return `${same > 1 ? `${same} resources` : e.resource}: ${e.reason}${e.message ? ` ${e.message}` : ''}`;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function renderClusters(reports: ClusterReport[], colour: boolean, now: number): string {
  if (reports.length === 0) return '';
  const rows = reports.map((r) => {
    const syncing = r.resources.filter((x) => x.status === 'Syncing').length;
    return [
      r.name, conditionCell(r, 'Ready'), r.version || '<unknown>', r.apiserver || '<none>', r.protocol || '-',
      `${syncing}/${r.resources.length}`, String(r.objects), progress(r), shortAge(r.lastEventTime, now), clip(problem(r), 80),
    ];
  });
  return renderTable(['name', 'ready', 'version', 'apiserver', 'protocol', 'resources', 'objects', 'progress', 'last event', 'message'], rows, colour);
}

export function renderResources(reports: ClusterReport[], colour: boolean, now: number): string {
  const rows: (Cell | string)[][] = [];
  for (const r of reports) {
    for (const x of r.resources) {
      const status: Cell = { text: x.initialListPhase ? `${x.status} (listing)` : x.status || '-', colour: x.status === 'Syncing' ? 'green' : x.status === 'Error' ? 'red' : 'yellow' };
      const lastError: Cell = x.lastError ? { text: clip(`${shortAge(x.lastErrorTime, now)} ago: ${x.lastError}`, 60), colour: x.status === 'Error' ? 'red' : 'dim' } : { text: '' };
      rows.push([
        r.name, x.group ? `${x.group}/${x.version}/${x.resource}` : `${x.version}/${x.resource}`, status, String(x.count), humanBytes(x.bytes),
        shortAge(x.lastEventTime, now), clip(x.reason ? `${x.reason}${x.message ? `: ${x.message}` : ''}` : '', 60), lastError,
      ]);
    }
  }
  if (rows.length === 0) return '';
  return renderTable(['cluster', 'resource', 'status', 'count', 'size', 'last event', 'message', 'last error'], rows, colour);
}
