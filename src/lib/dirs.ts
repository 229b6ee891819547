// Making a directory and its missing parents, one level at a time.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { hasCode } from './errors.js';

/**
 * `mkdir -p`, without Node's `{ recursive: true }`: under /proc that one never returns (the kernel answers ENOENT for a
 * directory it will not make, and libuv keeps making the parent it already has), so `--cert-dir /proc/x` hung the
 * process where it should have said why. Each missing level is made on its own, and the first refusal is thrown.
 */
export function makeDirectory(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let p = resolve(path); !isDirectory(p); p = dirname(p)) {
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      mkdirSync(p, { mode });
    } catch (e) {
      // Made meanwhile by someone else: as good as made here.
      if (!(hasCode(e, 'EEXIST') && isDirectory(p))) throw e;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
