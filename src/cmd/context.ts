// What every command needs from the process: global flags turned into a logger, and a stop signal.
import type { Command } from 'commander';
import { createLogger, type LogFormat, type Logger, type LogLevel } from '../lib/log.js';

export interface GlobalOptions {
  logLevel: LogLevel;
  logFormat?: LogFormat;
}

/** The root logger for a command, from the global --log-level/--log-format flags. */
export function loggerFor(cmd: Command): Logger {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const format: LogFormat = g.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  return createLogger({ level: g.logLevel ?? 'info', format });
}

/** An AbortSignal that aborts on SIGTERM or SIGINT (a second signal exits at once). */
export function shutdownSignal(): AbortSignal {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort(new Error(`received ${sig}`));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return ac.signal;
}
