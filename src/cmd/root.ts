// The command tree (STYLE §1): one root, one factory per subcommand.
import { Command } from 'commander';
import { VERSION } from '../lib/version.js';
import { newApiserverCommand } from './apiserver.js';
import { newBindingCommand } from './binding.js';
import { newMigrateCommand } from './migrate.js';
import { logFormatOption, logLevelOption } from './flags.js';
import { newShowCommand } from './show.js';
import { newSimulateCommand } from './simulate.js';
import { newSynchroCommand } from './synchro.js';

/** Builds a fresh command tree. Tests build their own and parse argv through it. */
export function newRootCommand(): Command {
  const root = new Command('clusterpedia')
    .description('Search the Kubernetes resources of many clusters through one Kubernetes-compatible API.')
    .version(VERSION, '--version', 'print the version and exit')
    .addOption(logLevelOption())
    .addOption(logFormatOption())
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions(false);
  // Commands are added below, one factory each.
  root.addCommand(newBindingCommand());
  root.addCommand(newApiserverCommand());
  root.addCommand(newSynchroCommand());
  root.addCommand(newMigrateCommand());
  root.addCommand(newShowCommand());
  root.addCommand(newSimulateCommand());
  return root;
}
