// A JSON logger whose lines a test reads back.
import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from '../../src/lib/log.js';

/** A debug-level JSON logger; `lines` parses what it wrote so far, `text` is the raw output. */
export function recordingLogger<L extends { level: number; msg: string }>(): { logger: Logger; readonly lines: L[]; text: () => string } {
  const raw: string[] = [];
  const out = new PassThrough();
  out.on('data', (b: Buffer) => raw.push(...b.toString('utf8').split('\n').filter((l) => l !== '')));
  const logger = createLogger({ level: 'debug', format: 'json', destination: out });
  return { logger, get lines() { return raw.map((l) => JSON.parse(l) as L); }, text: () => raw.join('\n') };
}
