// --sharding-name with the file source: each synchro takes its shard's clusters, hands one over without its rows
// being deleted, and removes only its own. And the periodic re-read parses only what changed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import type { DesiredCluster } from '../../../src/roles/synchro/cluster-manager.js';
import { FileClusterSource } from '../../../src/roles/synchro/cluster-source-file.js';

/** Records what a source asks of the manager. */
class Recorder {
  calls: string[] = [];
  async apply(d: DesiredCluster): Promise<void> {
    this.calls.push(`apply ${d.name}`);
  }
  async remove(name: string): Promise<void> {
    this.calls.push(`remove ${name}`);
  }
  async release(name: string): Promise<void> {
    this.calls.push(`release ${name}`);
  }
  take(): string[] {
    const c = this.calls.sort();
    this.calls = [];
    return c;
  }
}

const cluster = (name: string, shardingName?: string): string =>
  `apiVersion: cluster.clusterpedia.io/v1alpha2
kind: PediaCluster
metadata:
  name: ${name}
spec:
  apiserver: https://127.0.0.1:1
  tokenData: dG9rZW4=
${shardingName === undefined ? '' : `  shardingName: ${shardingName}\n`}  syncResources:
  - group: ""
    resources: [pods]
`;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('file cluster source: sharding', () => {
  it('each shard applies its own clusters; a cluster moving away is released, not removed; removal is the owner\'s', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-shard-'));
    const file = join(dir, 'clusters.yaml');
    const write = (...docs: string[]): void => writeFileSync(file, docs.join('---\n'));
    const main = new Recorder();
    const east = new Recorder();
    const sources = [
      new FileClusterSource({ path: file, manager: main, logger: silentLogger(), rereadMs: 60_000, debounceMs: 10 }),
      new FileClusterSource({ path: file, manager: east, logger: silentLogger(), shardingName: 'east', rereadMs: 60_000, debounceMs: 10 }),
    ];
    const reread = async (): Promise<void> => {
      for (const s of sources) await s.reread(file);
    };

    write(cluster('a'), cluster('b', ''), cluster('c', 'east'), cluster('d', 'west'));
    await reread();
    expect(main.take()).toEqual(['apply a', 'apply b']);
    expect(east.take()).toEqual(['apply c']);

    // a moves to east: the default shard lets go of it (rows kept), east takes it.
    write(cluster('a', 'east'), cluster('b', ''), cluster('c', 'east'), cluster('d', 'west'));
    await reread();
    expect(main.take()).toEqual(['release a']);
    expect(east.take()).toEqual(['apply a']);

    // Nothing changed: nothing asked.
    await reread();
    expect(main.take()).toEqual([]);
    expect(east.take()).toEqual([]);

    // c and d leave the file: only c's owner removes it; d was nobody's here.
    write(cluster('a', 'east'), cluster('b', ''));
    await reread();
    expect(main.take()).toEqual([]);
    expect(east.take()).toEqual(['remove c']);
  });
});

describe('file cluster source: a file caught while it is written in place', () => {
  it('is not taken for "no clusters": a truncated file rewritten within the reads removes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-halfwritten-'));
    try {
      const file = join(dir, 'clusters.yaml');
      writeFileSync(file, [cluster('a'), cluster('b')].join('---\n'));
      const manager = new Recorder();
      const source = new FileClusterSource({ path: file, manager, logger: silentLogger(), rereadMs: 60_000, debounceMs: 50 });
      await source.reread();
      expect(manager.take()).toEqual(['apply a', 'apply b']);
      // An in-place save: truncated now, its text back 20 ms later (a reader in between sees an empty file).
      writeFileSync(file, '');
      const rewritten = new Promise<void>((r) => setTimeout(() => {
        writeFileSync(file, [cluster('a'), cluster('b')].join('---\n'));
        r();
      }, 20));
      await source.reread();
      await rewritten;
      expect(manager.take()).toEqual([]);
      // A file emptied for good still removes its clusters.
      writeFileSync(file, '');
      await source.reread();
      expect(manager.take()).toEqual(['remove a', 'remove b']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('file cluster source: periodic re-reads', () => {
  it('an unchanged file is not parsed again at each re-read; a changed one is', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-reread-'));
    const file = join(dir, 'clusters.yaml');
    // A document parsing warns about, once per parse.
    const unknown = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray\n';
    writeFileSync(file, [cluster('a'), unknown].join('---\n'));
    const warnings: string[] = [];
    const logger = silentLogger();
    logger.warn = ((obj: unknown, msg?: string) => { warnings.push(msg ?? String(obj)); }) as typeof logger.warn;
    const manager = new Recorder();
    const source = new FileClusterSource({ path: file, manager, logger, rereadMs: 60_000, debounceMs: 10 });
    for (let i = 0; i < 4; i++) await source.reread(file);
    expect(manager.take()).toEqual(['apply a']);
    expect(warnings.filter((w) => w === 'document of an unknown kind ignored')).toHaveLength(1);
    writeFileSync(file, [cluster('a'), cluster('b'), unknown].join('---\n'));
    await source.reread(file);
    expect(manager.take()).toEqual(['apply b']);
    expect(warnings.filter((w) => w === 'document of an unknown kind ignored')).toHaveLength(2);
  });
});
