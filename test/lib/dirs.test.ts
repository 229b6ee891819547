// makeDirectory: mkdir -p that answers, even where Node's recursive mkdir never returns.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectory } from '../../src/lib/dirs.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-dirs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('makeDirectory', () => {
  it('makes every missing level with the mode asked, and is a no-op where the directory is', () => {
    const deep = join(dir, 'a', 'b', 'c');
    makeDirectory(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700);
    expect(() => makeDirectory(deep)).not.toThrow();
  });

  it('throws where a level is a file', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(() => makeDirectory(join(dir, 'file', 'x'))).toThrow(/ENOTDIR|EEXIST/);
    expect(() => makeDirectory(join(dir, 'file'))).toThrow(/EEXIST/);
  });

  // Node's mkdirSync(…, { recursive: true }) loops for good here (the test would time out, not fail).
  it.runIf(process.platform === 'linux')('throws under /proc, where the kernel makes nothing', () => {
    expect(() => makeDirectory('/proc/cp-not-here/certs')).toThrow(/ENOENT/);
  });
});
