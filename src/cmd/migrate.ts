// `clusterpedia migrate`: create or upgrade the storage schema, then exit (`--dry-run` prints the plan only).
import { Command } from 'commander';
import { runMigrate } from '../storage/migrate.js';
import { loggerFor, shutdownSignal } from './context.js';
import { option, storageOptions, storageWaitOption } from './flags.js';

interface MigrateFlags {
  storage: string;
  storageConfig?: string;
  storageInitializationTimeout: number;
  dryRun?: boolean;
}

export function newMigrateCommand(): Command {
  const cmd = new Command('migrate').description('create or upgrade the storage schema, then exit');
  for (const o of storageOptions()) cmd.addOption(o);
  cmd.addOption(storageWaitOption());
  cmd.addOption(option('--dry-run', 'print the migrations that would be applied, change nothing'));
  cmd.action(async (_f: unknown, self: Command) => {
    const f = self.opts<MigrateFlags>();
    // Bad URL or config → ConfigError (exit 2); still unreachable after the wait, or newer schema → StorageError (exit 1).
    const result = await runMigrate(f.storageConfig ? { configFile: f.storageConfig } : { url: f.storage }, {
      logger: loggerFor(self), dryRun: f.dryRun === true, wait: { timeoutMs: f.storageInitializationTimeout, signal: shutdownSignal() },
    });
    if (!result) throw new Error('stopped while waiting for the database: nothing was migrated');
    process.stdout.write(`${result.message}\n`);
  });
  return cmd;
}
