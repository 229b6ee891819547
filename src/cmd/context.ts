// What every command needs from the process: global flags turned into a logger, and a stop signal.
import type { Command } from 'commander';
import { manyListenersController } from '../lib/lifecycle.js';
import { createLogger, type LogFormat, type Logger, type LogLevel } from '../lib/log.js';

export interface GlobalOptions {
  logLevel: LogLevel;
  logFormat?: LogFormat;
}

let warningsLogged = false;

/**
 * The root logger for a command, from the global --log-level/--log-format flags. Node's process warnings (a
 * deprecation, undici's note that SOCKS5 is experimental) go to it as well: bin/clusterpedia runs node with
 * --no-warnings, so they are log lines like any other rather than plain text on stderr.
 */
export function loggerFor(cmd: Command): Logger {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const format: LogFormat = g.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  const logger = createLogger({ level: g.logLevel ?? 'info', format });
  if (!warningsLogged) {
    warningsLogged = true;
    process.on('warning', (w) => logger.warn({ warning: { name: w.name, message: w.message } }, 'node process warning'));
  }
  return logger;
}

let shutdown: AbortController | undefined;

/**
 * The process's AbortSignal that aborts on SIGTERM or SIGINT (a second signal exits at once). One for the process:
 * a command run again in the same process (tests) shares it instead of adding listeners for each run.
 */
export function shutdownSignal(): AbortSignal {
  if (shutdown) return shutdown.signal;
  // Every part of the process that stops with it may listen (a fleet's cluster synchros, each storage wait).
  const ac = (shutdown = manyListenersController());
  const onSignal = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort(new Error(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return ac.signal;
}
