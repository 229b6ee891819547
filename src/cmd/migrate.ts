// `clusterpedia migrate`: create or upgrade the storage schema, then exit (`--dry-run` prints the plan only).
import { Command } from 'commander';
import { runMigrate } from '../storage/migrate.js';
import { loggerFor } from './context.js';
import { option, storageOptions } from './flags.js';

interface MigrateFlags {
  storage: string;
  storageConfig?: string;
  dryRun?: boolean;
}

export function newMigrateCommand(): Command {
  const cmd = new Command('migrate').description('create or upgrade the storage schema, then exit');
  for (const o of storageOptions()) cmd.addOption(o);
  cmd.addOption(option('--dry-run', 'print the migrations that would be applied, change nothing'));
  cmd.action(async (_f: unknown, self: Command) => {
    const f = self.opts<MigrateFlags>();
    // Bad URL or config → ConfigError (exit 2); unreachable or newer schema → StorageError (exit 1), both from here.
    const result = await runMigrate(f.storageConfig ? { configFile: f.storageConfig } : { url: f.storage }, { logger: loggerFor(self), dryRun: f.dryRun === true });
    process.stdout.write(`${result.message}\n`);
  });
  return cmd;
}
