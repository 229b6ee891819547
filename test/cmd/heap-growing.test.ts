// --heap-growing-percent is one setting of the process: every command that starts a role applies it before the role
// runs — binding included, which has the flag once for both of its roles.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const applied: number[] = [];
vi.mock('../../src/lib/v8-heap.js', async (orig) => ({
  ...(await orig<typeof import('../../src/lib/v8-heap.js')>()),
  setHeapGrowingPercent: (p: number) => applied.push(p),
}));
// The roles themselves do not start: only what the command does before them is under test.
vi.mock('../../src/roles/apiserver/run.js', () => ({ runApiserver: async () => undefined }));
vi.mock('../../src/roles/synchro/run.js', async (orig) => ({ ...(await orig<typeof import('../../src/roles/synchro/run.js')>()), runSynchro: async () => undefined }));
vi.mock('../../src/roles/binding/run.js', () => ({ runBinding: async () => undefined }));

const { newRootCommand } = await import('../../src/cmd/root.js');

async function run(args: string[]): Promise<void> {
  const root = newRootCommand().exitOverride();
  await root.parseAsync(['node', 'clusterpedia', '--log-level', 'silent', ...args]);
}

// The commands check that --clusters exists before they start a role.
const dir = mkdtempSync(join(tmpdir(), 'cp-heap-'));
const clusters = join(dir, 'clusters.yaml');
writeFileSync(clusters, '');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--heap-growing-percent', () => {
  beforeEach(() => {
    applied.length = 0;
  });

  it.each([
    ['apiserver', ['apiserver', '--storage', 'sqlite::memory:']],
    ['synchro', ['synchro', '--storage', 'sqlite::memory:', '--clusters', clusters]],
    ['binding', ['binding', '--storage', 'sqlite::memory:', '--clusters', clusters]],
  ])('%s applies the default, and the value given', async (_role, args) => {
    await run(args);
    expect(applied).toEqual([50]);
    await run([...args, '--heap-growing-percent', '30']);
    expect(applied).toEqual([50, 30]);
  });
});
