// `clusterpedia synchro` flags: defaults, env fallbacks, mapping to SynchroOptions, bad values, missing sources.
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { addSynchroFlags, synchroOptionsFrom, type SynchroFlagValues } from '../../../src/cmd/synchro.js';
import { newRootCommand } from '../../../src/cmd/root.js';
import { storageOptions, storageWaitOption } from '../../../src/cmd/flags.js';
import { defaultSynchroOptions } from '../../../src/roles/synchro/options.js';
import { synchroRunnables } from '../../../src/roles/synchro/run.js';
import { openStorage } from '../../../src/storage/open.js';
import { silentLogger } from '../../../src/lib/log.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function parse(args: string[]): SynchroFlagValues {
  const cmd = new Command('synchro').exitOverride();
  for (const o of storageOptions()) cmd.addOption(o);
  cmd.addOption(storageWaitOption());
  addSynchroFlags(cmd);
  let values: SynchroFlagValues | undefined;
  cmd.action((_o: unknown, self: Command) => {
    values = self.opts<SynchroFlagValues>();
  });
  cmd.parse(args, { from: 'user' });
  return values!;
}

describe('host kubeconfig', () => {
  it('an unreadable host kubeconfig is a ConfigError that does not quote the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-synchro-cmd-'));
    const path = join(dir, 'host.kubeconfig');
    writeFileSync(path, 'users:\n- name: u\n  user: {token: sEcReT-123\n');
    const storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
    try {
      const options = { ...defaultSynchroOptions(), host: { kubeconfig: path }, metricsPort: 0 };
      const err = await synchroRunnables(options, { storage, logger: silentLogger() }).then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'ConfigError' });
      expect((err as Error).message).not.toContain('sEcReT-123');
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('synchro flags', () => {
  it('defaults map to the default options', () => {
    const o = synchroOptionsFrom(parse(['--clusters', 'c.yaml']), { requireSource: true, env: {} });
    const d = defaultSynchroOptions();
    expect(o).toEqual({ ...d, storage: { url: 'sqlite:./clusterpedia.db', configFile: undefined, migrate: true, initializationTimeoutMs: 60_000 }, clustersPath: 'c.yaml', host: undefined });
  });

  it('every flag reaches its field', () => {
    const o = synchroOptionsFrom(parse([
      '--storage', 'postgres://u@h:5432/db', '--kubeconfig', '/k', '--namespace', 'ns', '--page-size', '100', '--list-concurrency', '2',
      '--prune-managed-fields', 'false', '--prune-last-applied-configuration', 'false', '--redact-secret-data', 'true', '--health-interval', '2s', '--health-timeout', '1s',
      '--min-watch-timeout', '1m', '--discovery-interval', '10s', '--status-interval', '500ms', '--write-batch-size', '200',
      '--write-flush-delay', '10ms', '--write-queue-max-entries', '500', '--write-queue-max-bytes', '1000000', '--write-timeout', '5s', '--metrics-port', '0',
      '--metrics-host', '127.0.0.1', '--migrate', 'false', '--storage-initialization-timeout', '2m30s', '--member-http2', 'false',
    ]), { requireSource: true, env: {} });
    expect(o).toMatchObject({
      storage: { url: 'postgres://u@h:5432/db', migrate: false, initializationTimeoutMs: 150_000 }, memberHttp2: false,
      host: { kubeconfig: '/k' }, namespace: 'ns', pageSize: 100, listConcurrency: 2,
      prune: { managedFields: false, lastAppliedConfiguration: false, secretData: true }, health: { intervalMs: 2000, timeoutMs: 1000 },
      watchTimeoutSeconds: [60, 120], discoveryIntervalMs: 10_000, statusIntervalMs: 500,
      queue: { batchSize: 200, flushDelayMs: 10, maxEntries: 500, maxBytes: 1_000_000, writeTimeoutMs: 5000 }, metricsPort: 0, metricsHost: '127.0.0.1',
    });
  });

  it('--sharding-name names the shard and, unless a lease name is given, suffixes the lease with it', () => {
    const o = synchroOptionsFrom(parse(['--clusters', 'x', '--sharding-name', 'east-1']), { requireSource: true, env: {} });
    expect(o.shardingName).toBe('east-1');
    expect(o.leaderElection.name).toBe('clusterpedia-synchro-east-1');
    const named = synchroOptionsFrom(parse(['--clusters', 'x', '--sharding-name', 'east-1', '--leader-elect-resource-name', 'mine']), { requireSource: true, env: {} });
    expect(named.leaderElection.name).toBe('mine');
    expect(synchroOptionsFrom(parse(['--clusters', 'x']), { requireSource: true, env: {} }).leaderElection.name).toBe('clusterpedia-synchro');
    for (const bad of ['East', '-a', 'a b', 'a_b']) {
      expect(() => synchroOptionsFrom(parse(['--clusters', 'x', '--sharding-name', bad]), { requireSource: true, env: {} }))
        .toThrow(expect.objectContaining({ code: 'ConfigError', message: expect.stringContaining('--sharding-name') }));
    }
  });

  it('the lease name, given or made from --sharding-name, must be a name the host would take', () => {
    // clusterpedia-synchro-<name> is at most 253 characters: the longest shard name is 232.
    const longest = 'a'.repeat(232);
    expect(synchroOptionsFrom(parse(['--clusters', 'x', '--sharding-name', longest]), { requireSource: true, env: {} }).leaderElection.name)
      .toHaveLength(253);
    expect(() => synchroOptionsFrom(parse(['--clusters', 'x', '--sharding-name', `${longest}a`]), { requireSource: true, env: {} }))
      .toThrow(expect.objectContaining({ code: 'ConfigError', message: expect.stringMatching(/^--sharding-name: .*must be no more than 253 characters/) }));
    // A lease name of its own frees the shard name from that bound.
    expect(synchroOptionsFrom(parse(['--clusters', 'x', '--sharding-name', `${longest}a`, '--leader-elect-resource-name', 'mine']), { requireSource: true, env: {} }).shardingName)
      .toHaveLength(233);
    for (const bad of ['Mine', 'a_b', '-a', 'a'.repeat(254)]) {
      expect(() => synchroOptionsFrom(parse(['--clusters', 'x', '--leader-elect-resource-name', bad]), { requireSource: true, env: {} }))
        .toThrow(expect.objectContaining({ code: 'ConfigError', message: expect.stringContaining(`--leader-elect-resource-name: "${bad}"`) }));
    }
    expect(synchroOptionsFrom(parse(['--clusters', 'x', '--leader-elect-resource-name', 'leases.example.com']), { requireSource: true, env: {} }).leaderElection.name)
      .toBe('leases.example.com');
  });

  it('the namespace falls back to CLUSTERPEDIA_NAMESPACE', () => {
    expect(synchroOptionsFrom(parse(['--clusters', 'x']), { requireSource: true, env: { CLUSTERPEDIA_NAMESPACE: 'from-env' } }).namespace).toBe('from-env');
  });

  it('flags read CLUSTERPEDIA_* environment variables', () => {
    process.env.CLUSTERPEDIA_PAGE_SIZE = '42';
    try {
      expect(parse(['--clusters', 'x']).pageSize).toBe(42);
    } finally {
      delete process.env.CLUSTERPEDIA_PAGE_SIZE;
    }
  });

  it('no cluster source is a configuration error', () => {
    expect(() => synchroOptionsFrom(parse([]), { requireSource: true, env: {} })).toThrow(expect.objectContaining({ code: 'ConfigError', message: expect.stringMatching(/--clusters/) }));
    expect(synchroOptionsFrom(parse([]), { requireSource: false, env: {} }).clustersPath).toBeUndefined();
  });

  it('a bad value names the flag (exit 2 through main)', () => {
    const root = newRootCommand().exitOverride();
    root.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    for (const sub of root.commands) sub.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    let err: unknown;
    try {
      root.parse(['synchro', '--clusters', 'x', '--page-size', 'lots'], { from: 'user' });
    } catch (e: unknown) {
      err = e;
    }
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).code).toBe('commander.invalidArgument');
    expect((err as CommanderError).message).toContain('--page-size');
  });
});
