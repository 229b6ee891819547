// The chaos run's one options tree: presets (short for CI, full for the record), flags and CHAOS_* env overrides.
import { CHURN_TIER_LABEL } from '../../src/sim/index.js';
import { parseDuration } from '../../src/storage/duration.js';
import { FAULT_KINDS, type FaultKind } from './schedule.js';

export type Backend = 'sqlite' | 'postgres';
/** binding: one process, as the single-Pod deployment; split: two synchros (leader election) and two apiservers. */
export type Topology = 'binding' | 'split';

export interface ChaosOptions {
  backend: Backend;
  topology: Topology;
  /** Drives the fault schedule, the churn sequence and the watchers' timeouts. */
  seed: number;
  clusters: number;
  /** Pods per member (each member also holds ~2× as many other objects: owners, services, secrets, events...). */
  pods: number;
  /** Length of the chaos phase (churn + faults), milliseconds. */
  durationMs: number;
  /** Faults to schedule over the chaos phase (the schedule is drawn from the seed). */
  faults: number;
  /** Churn per member, watch events per second. */
  churnPerCluster: number;
  /** Restrict the schedule to these fault kinds (debugging); empty: all kinds of the backend. */
  only: FaultKind[];
  /** Resources of the informer-style watch clients run against clusterpedia, one client each. */
  watchers: string[];
  /** Bound of each convergence wait (initial sync, and after the last fault), milliseconds. */
  convergeTimeoutMs: number;
  /** Extra flags for `clusterpedia binding`. */
  bindingFlags: string[];
  /** Every PediaCluster's spec.excludeNamespaces: their objects must never be stored. */
  excludeNamespaces: string[];
  /** Where the logs of the run go; a fresh temporary directory when absent. */
  outDir?: string;
  /** Print progress lines to stderr. */
  verbose: boolean;
  /**
   * PostgreSQL only: `synchronous_commit=off`, so an immediate stop loses the last transactions PostgreSQL had
   * reported committed (up to ~3 × wal_writer_delay): storage goes back in time without a restore.
   */
  asyncCommit: boolean;
}

export const PRESETS = {
  /** CI: ~30 faults in 45 s over 10 small members, per backend. */
  short: { clusters: 10, pods: 150, durationMs: 45_000, faults: 30, churnPerCluster: 4 },
  /** The recorded run: 12 members × 2,000 pods (~5,900 objects each), 12 minutes, ≥ 200 faults. */
  full: { clusters: 12, pods: 2000, durationMs: 12 * 60_000, faults: 240, churnPerCluster: 15 },
} as const;

export type Preset = keyof typeof PRESETS;

/** Flags every run passes to the bundle: fast health probes so a member coming back resumes within ~2 s. */
export const DEFAULT_BINDING_FLAGS = ['--health-interval', '1s', '--watch-poll-interval', '100ms'];

export function chaosOptions(preset: Preset, backend: Backend, over: Partial<ChaosOptions> = {}): ChaosOptions {
  return {
    backend,
    topology: 'binding',
    seed: 1,
    ...PRESETS[preset],
    // Informer-style watchers; two follow a selector: pods a relabel moves in and out, pods that start running.
    watchers: ['pods', 'pods', 'replicasets.apps', 'pods', `pods?labelSelector=${CHURN_TIER_LABEL}=a`, 'pods?fieldSelector=status.phase=Running'],
    only: [],
    convergeTimeoutMs: 120_000,
    bindingFlags: DEFAULT_BINDING_FLAGS,
    excludeNamespaces: [],
    verbose: false,
    asyncCommit: false,
    ...over,
  };
}

/** What `npm run chaos -- <flags>` accepts; each flag also reads CHAOS_<NAME> (e.g. CHAOS_SEED=7). */
export const USAGE = `usage: npm run chaos -- [--preset short|full] [--backend sqlite|postgres|both] [--seed N]
                      [--clusters N] [--pods N] [--duration 12m] [--faults N] [--churn EVENTS_PER_S_PER_CLUSTER]
                      [--watchers pods,pods,replicasets.apps] [--only KIND,KIND] [--converge-timeout 120s] [--out DIR]
                      [--topology binding|split] [--async-commit] [--exclude-namespaces NS,NS] [--no-record] [--quiet]
Every flag also reads an environment variable CHAOS_<FLAG> (CHAOS_SEED, CHAOS_BACKEND, ...).
Fault kinds (--only restricts the schedule to some): ${FAULT_KINDS.join(', ')}.
--topology split: two synchros (one holds the lease) and two apiservers over one PostgreSQL instead of one binding;
  kills pick any of them, watch clients send each request to either apiserver.
--async-commit: PostgreSQL runs with synchronous_commit=off, so its immediate stops lose commits it had reported.
--exclude-namespaces: every member's PediaCluster excludes them; the members' objects there must never be stored.
  Every other member refuses field selectors on ConfigMaps, so the synchro leaves those namespaces out itself.
Defaults: --preset full --backend both --seed 1. Appends each run to RELIABILITY.md unless --no-record.`;

export interface CliRequest {
  runs: ChaosOptions[];
  record: boolean;
  preset: Preset;
}

/** Parses argv (after the script name) with CHAOS_* fallbacks; throws a message naming the bad flag. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliRequest {
  const flags = new Map<string, string>();
  const bools = new Set(['no-record', 'quiet', 'help', 'async-commit']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}\n${USAGE}`);
    const [k, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    if (bools.has(k)) flags.set(k, 'true');
    else {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`--${k} needs a value\n${USAGE}`);
      flags.set(k, v);
    }
  }
  const get = (k: string): string | undefined => flags.get(k) ?? env[`CHAOS_${k.toUpperCase().replace(/-/g, '_')}`];
  if (get('help')) throw new Error(USAGE);
  const known = new Set(['preset', 'backend', 'seed', 'clusters', 'pods', 'duration', 'faults', 'churn', 'watchers', 'converge-timeout', 'out', 'only', 'topology', 'exclude-namespaces', ...bools]);
  for (const k of flags.keys()) if (!known.has(k)) throw new Error(`unknown flag --${k}\n${USAGE}`);
  const preset = (get('preset') ?? 'full') as Preset;
  if (!(preset in PRESETS)) throw new Error(`--preset must be short or full, not ${preset}`);
  const int = (k: string): number | undefined => {
    const v = get(k);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${k} must be a non-negative integer, not ${v}`);
    return n;
  };
  const ms = (k: string): number | undefined => {
    const v = get(k);
    if (v === undefined) return undefined;
    const n = parseDuration(v);
    if (n === undefined || n <= 0) throw new Error(`--${k} must be a duration like 90s or 12m, not ${v}`);
    return n;
  };
  const over: Partial<ChaosOptions> = {};
  const set = <K extends keyof ChaosOptions>(k: K, v: ChaosOptions[K] | undefined): void => {
    if (v !== undefined) over[k] = v;
  };
  set('seed', int('seed'));
  set('clusters', int('clusters'));
  set('pods', int('pods'));
  set('durationMs', ms('duration'));
  set('faults', int('faults'));
  set('churnPerCluster', int('churn'));
  set('convergeTimeoutMs', ms('converge-timeout'));
  set('watchers', get('watchers')?.split(',').filter(Boolean));
  set('outDir', get('out'));
  set('excludeNamespaces', get('exclude-namespaces')?.split(',').filter(Boolean));
  const only = get('only')?.split(',').filter(Boolean);
  for (const k of only ?? []) if (!FAULT_KINDS.includes(k as FaultKind)) throw new Error(`--only: unknown fault kind ${k} (kinds: ${FAULT_KINDS.join(', ')})`);
  set('only', only as FaultKind[] | undefined);
  over.verbose = !get('quiet');
  if (get('async-commit')) over.asyncCommit = true;
  const backendFlag = get('backend') ?? 'both';
  const backends: Backend[] = backendFlag === 'both' ? ['sqlite', 'postgres'] : [backendFlag as Backend];
  for (const b of backends) if (b !== 'sqlite' && b !== 'postgres') throw new Error(`--backend must be sqlite, postgres or both, not ${b}`);
  const topology = get('topology') ?? 'binding';
  if (topology !== 'binding' && topology !== 'split') throw new Error(`--topology must be binding or split, not ${topology}`);
  over.topology = topology;
  if (topology === 'split' && backends.includes('sqlite')) throw new Error('--topology split runs several processes over one PostgreSQL: use it with --backend postgres');
  if (over.asyncCommit && !backends.includes('postgres')) throw new Error('--async-commit is a PostgreSQL setting: use it with --backend postgres');
  if ((over.clusters ?? 1) < 1) throw new Error('--clusters must be at least 1');
  return { runs: backends.map((b) => chaosOptions(preset, b, over)), record: !get('no-record'), preset };
}
