// pino loggers: JSON to stdout; human-readable only on a terminal or when asked (--log-format pretty).
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger } from 'pino';

export type LogFormat = 'json' | 'pretty';
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogOptions {
  level: LogLevel;
  format: LogFormat;
  /** Where lines go; stdout when absent. */
  destination?: NodeJS.WritableStream;
}

/**
 * Paths pino blanks out wherever they appear in a log record. Secrets should never reach a logger,
 * but a PediaCluster spec or a connection string logged by mistake must not leak (API.md §4 Security).
 */
const REDACT_PATHS = [
  'tokenData', '*.tokenData', 'caData', '*.caData', 'certData', '*.certData', 'keyData', '*.keyData',
  'kubeconfig', '*.kubeconfig', 'password', '*.password', 'token', '*.token',
  'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization',
  'req.headers.cookie', '*.*.tokenData', '*.*.keyData', '*.*.kubeconfig',
];

/** The root logger of a process. Transports are not used: they need worker files a bundle lacks. */
export function createLogger(opts: LogOptions): Logger {
  const level: LevelWithSilent = opts.level;
  const options = {
    level,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.format === 'pretty') {
    return pino(options, PinoPretty({ colorize: isTerminal(opts.destination), destination: opts.destination ?? 1, sync: true }));
  }
  return pino(options, opts.destination ?? bufferedDestination(1));
}

/** How long a line may wait in a buffered destination before it is written. */
export const LOG_FLUSH_MS = 100;

type Destination = ReturnType<typeof pino.destination>;

/**
 * A destination that gathers lines into writes of 4 KiB, written within LOG_FLUSH_MS of the first line waiting and at
 * exit: the apiserver logs every request, and a write per line cost ~50 µs of a 24-pod list's ~0.8 ms on the event
 * loop's thread. sonic-boom's own periodicFlush writes on its interval even with nothing waiting (an empty write on
 * libuv's pool and a wake-up of the loop, 10 times a second, for ever); here an idle process writes nothing.
 */
export function bufferedDestination(fd: number): Destination {
  const dest = pino.destination({ dest: fd, sync: false, minLength: 4096 });
  // Bytes handed to the destination and not yet written. A flush while a write is in flight does nothing; the lines
  // left behind are flushed after that write ends ('drain').
  let waiting = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    if (waiting > 0 && !closed) dest.flush();
  };
  const arm = (): void => {
    if (waiting > 0) timer ??= setTimeout(flush, LOG_FLUSH_MS).unref();
  };
  dest.on('write', (n: number) => {
    waiting = Math.max(0, waiting - n);
  });
  dest.on('drain', arm);
  dest.on('close', () => {
    closed = true;
  });
  const write = dest.write.bind(dest);
  dest.write = (line: string): boolean => {
    waiting += Buffer.byteLength(line);
    arm();
    return write(line);
  };
  return dest;
}

/** A logger that drops everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

function isTerminal(dest: NodeJS.WritableStream | undefined): boolean {
  const stream = (dest ?? process.stdout) as NodeJS.WritableStream & { isTTY?: boolean };
  return stream.isTTY === true;
}
