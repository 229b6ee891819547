// A file a flag names, read whole: one that cannot be read is the configuration's doing (exit 2, naming the flag).
import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';

/** The file's text, or a ConfigError `<flag>: cannot read <path>: <errno code>`. */
export function readFlagFile(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e: unknown) {
    throw new ConfigError(`${flag}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, { cause: e });
  }
}
