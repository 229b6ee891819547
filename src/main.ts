// Entry point: parse argv, run the command, map errors to exit codes (0 done, 1 runtime failure, 2 bad flags).
import { CommanderError, type Command } from 'commander';
import { newRootCommand } from './cmd/root.js';
import { hasCode, messageOf } from './lib/errors.js';
import { guardPostgresTypeFetch } from './storage/postgres/type-fetch-guard.js';

async function main(argv: string[]): Promise<number> {
  const root = newRootCommand();
  // Commands attached with addCommand do not inherit these settings: apply them to the whole tree, so a bad flag
  // anywhere throws a CommanderError (exit 2) instead of commander calling process.exit(1) itself.
  const configure = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ writeErr: (s) => process.stderr.write(s) });
    c.commands.forEach(configure);
  };
  configure(root);
  try {
    await root.parseAsync(argv);
    return 0;
  } catch (e: unknown) {
    if (e instanceof CommanderError || hasCode(e, 'commander.helpDisplayed')) {
      const code = (e as CommanderError).code;
      if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return 0;
      // commander already printed the message naming the flag.
      return 2;
    }
    if (hasCode(e, 'ConfigError')) {
      process.stderr.write(`error: ${messageOf(e)}\n`);
      return 2;
    }
    process.stderr.write(`error: ${messageOf(e)}\n`);
    return 1;
  }
}

// A PostgreSQL connection failing while postgres.js reads the catalog's array types must not end the process.
guardPostgresTypeFetch();

// A reader that goes away (`show clusters -w | head`) ends the output, as it ends any Unix tool's: quietly.
process.stdout.on('error', (e: unknown) => {
  if (hasCode(e, 'EPIPE')) process.exit(0);
  process.stderr.write(`fatal: writing to standard output: ${messageOf(e)}\n`);
  process.exit(1);
});

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`fatal: ${messageOf(e)}\n`);
    process.exitCode = 1;
  },
);
