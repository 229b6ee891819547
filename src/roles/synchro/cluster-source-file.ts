// Clusters from a YAML file or directory (--clusters): re-read on change (fs.watch, debounced) and periodically.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { messageOf } from '../../lib/errors.js';
import { sleep, systemClock, type Clock, type Runnable } from '../../lib/lifecycle.js';
import { pediaClusterLabels, type ClusterSyncResources, type PediaCluster } from '../../kube/pediacluster.js';
import { listClusterFiles, parseClusterDocuments, readTexts, type ClusterFileContents } from '../../kube/cluster-files.js';
import type { ClusterManager } from './cluster-manager.js';
import { kubeTime } from '../../kube/types.js';

export interface FileClusterSourceOptions {
  path: string;
  manager: Pick<ClusterManager, 'apply' | 'remove' | 'release'>;
  logger: Logger;
  /** Only clusters whose spec.shardingName is this ("" when absent) are this synchro's (SynchroOptions.shardingName). */
  shardingName?: string;
  rereadMs: number;
  debounceMs: number;
  clock?: Clock;
}

/** Reads a debounce apart until two agree, at most this many times more. */
const STABLE_READ_ATTEMPTS = 5;

/** Feeds the manager from the files: add, change, remove. */
export class FileClusterSource implements Runnable {
  readonly name = 'synchro file cluster source';
  private readonly clock: Clock;
  /**
   * Last good parse per file, with the digest of the text it came from: a file caught half-written keeps its previous
   * clusters, and an unchanged one is not parsed again at each periodic re-read (35–80 ms of the event loop for a file
   * of 100 clusters with their CAs, every 30 s).
   */
  private readonly perFile = new Map<string, { digest: string; contents: ClusterFileContents }>();
  /** What the manager was last given, by cluster name (JSON of spec + resolved reference). */
  private readonly applied = new Map<string, string>();
  private readonly firstSeen = new Map<string, string>();

  constructor(private readonly o: FileClusterSourceOptions) {
    this.clock = o.clock ?? systemClock;
  }

  async start(signal: AbortSignal): Promise<void> {
    const path = resolve(this.o.path);
    let pending: ReturnType<typeof setTimeout> | undefined;
    let kick: (() => void) | undefined;
    const notify = (): void => {
      if (pending) clearTimeout(pending);
      // Editors save in several steps (truncate, write, rename): wait for quiet before re-reading.
      pending = setTimeout(() => kick?.(), this.o.debounceMs);
    };
    let watcher: FSWatcher | undefined;
    try {
      const isDir = (await stat(path)).isDirectory();
      // Watch the directory even for a single file, so an atomic rename-over does not orphan the watcher.
      watcher = watch(isDir ? path : dirname(path), (_event, file) => {
        if (isDir || !file || file === basename(path)) notify();
      });
      watcher.on('error', (e: unknown) => this.o.logger.warn({ err: messageOf(e) }, 'clusters path watcher failed; periodic re-read continues'));
    } catch (e: unknown) {
      this.o.logger.warn({ path, err: messageOf(e) }, 'cannot watch the clusters path; periodic re-read only');
    }
    try {
      while (!signal.aborted) {
        await this.reread(path);
        const wake = new AbortController();
        kick = () => wake.abort();
        const onAbort = (): void => wake.abort();
        signal.addEventListener('abort', onAbort, { once: true });
        await this.clock.sleep(this.o.rereadMs, wake.signal);
        signal.removeEventListener('abort', onAbort);
      }
    } finally {
      if (pending) clearTimeout(pending);
      watcher?.close();
    }
  }

  /** Reads every file and tells the manager what changed. */
  async reread(path = resolve(this.o.path)): Promise<void> {
    let files: string[];
    try {
      files = await listClusterFiles(path);
    } catch (e: unknown) {
      // A missing path is "no clusters" only if it was deliberately removed; keep the last state on other errors.
      if ((e as { code?: string }).code !== 'ENOENT') {
        this.o.logger.error({ path, err: messageOf(e) }, 'cannot read the clusters path');
        return;
      }
      files = [];
    }
    // A file read while it is being written in place (truncated, then written) would say its clusters are gone, and
    // the manager would delete their rows: only what two reads a debounce apart agree on is taken.
    let texts = await readTexts(files);
    for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt++) {
      await sleep(this.o.debounceMs);
      const again = await readTexts(files);
      const same = files.every((f) => texts.get(f) === again.get(f));
      texts = again;
      if (same) break;
      if (attempt === STABLE_READ_ATTEMPTS - 1) this.o.logger.warn({ path }, 'clusters files still changing; taking the last read');
    }
    for (const f of [...this.perFile.keys()]) if (!files.includes(f)) this.perFile.delete(f);
    for (const f of files) {
      const text = texts.get(f);
      try {
        if (text === undefined) throw new Error('cannot be read');
        const digest = createHash('sha256').update(text).digest('base64');
        if (this.perFile.get(f)?.digest === digest) continue;
        this.perFile.set(f, { digest, contents: parseClusterDocuments(text, f, this.o.logger) });
      } catch (e: unknown) {
        this.o.logger.error({ file: f, err: messageOf(e) }, 'clusters file cannot be parsed; keeping its previous contents');
      }
    }
    await this.sync();
  }

  private async sync(): Promise<void> {
    const clusters = new Map<string, PediaCluster>();
    const refs = new Map<string, ClusterSyncResources['spec']>();
    for (const [file, { contents: c }] of [...this.perFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (const [name, pc] of c.clusters) {
        if (clusters.has(name)) this.o.logger.warn({ cluster: name, file }, 'cluster defined twice; the first file wins');
        else clusters.set(name, pc);
      }
      for (const [name, r] of c.syncResources) if (!refs.has(name)) refs.set(name, r.spec);
    }
    const ops: Promise<void>[] = [];
    const shard = this.o.shardingName ?? '';
    for (const [name, pc] of [...clusters]) {
      if ((pc.spec.shardingName ?? '') === shard) continue;
      // Another shard's: never ours, or handed over (its rows stay for the new owner).
      clusters.delete(name);
      if (!this.applied.delete(name)) continue;
      this.firstSeen.delete(name);
      ops.push(this.o.manager.release(name));
    }
    for (const [name, pc] of clusters) {
      const refName = pc.spec.syncResourcesRefName;
      const ref = refName ? refs.get(refName) : undefined;
      const refResources = refName ? (ref ? (ref.syncResources ?? []) : null) : undefined;
      const refExcludeNamespaces = ref?.excludeNamespaces;
      const labels = pediaClusterLabels(pc);
      const fingerprint = JSON.stringify([pc.spec, refResources, refExcludeNamespaces, labels]);
      if (this.applied.get(name) === fingerprint) continue;
      this.applied.set(name, fingerprint);
      if (!this.firstSeen.has(name)) this.firstSeen.set(name, kubeTime(this.clock.now()));
      ops.push(this.o.manager.apply({ name, spec: pc.spec, refResources, ...(refExcludeNamespaces ? { refExcludeNamespaces } : {}), source: 'file', creationTimestamp: this.firstSeen.get(name), labels }));
    }
    for (const name of [...this.applied.keys()]) {
      if (clusters.has(name)) continue;
      this.applied.delete(name);
      this.firstSeen.delete(name);
      ops.push(this.o.manager.remove(name));
    }
    const results = await Promise.allSettled(ops);
    for (const r of results) if (r.status === 'rejected') this.o.logger.error({ err: messageOf(r.reason) }, 'cluster change not applied');
  }
}
