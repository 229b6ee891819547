// Disk full: SQLite on a small tmpfs that the test fills to the last byte under churn. Writes fail with SQLITE_FULL,
// the synchro pauses its watches with a bounded queue, and once space is freed it resumes and loses nothing.
// Mounting needs root, as .ci/run runs; anywhere else the test fails and says so rather than skipping.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSynchroOptions } from '../../../src/roles/synchro/options.js';
import { Harness, sqliteBackend, waitFor } from './harness.js';

const MOUNT_MIB = 48;

/** Writes zeros to `path` until the file system refuses (ENOSPC); returns the bytes written. */
function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) {
      try {
        written += writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw e;
      }
    }
    // The last partial block: byte by byte is slow, so halve the chunk until even one byte does not fit.
    for (let size = chunk.length / 2; size >= 1; size = Math.floor(size / 2)) {
      for (;;) {
        try {
          written += writeSync(fd, chunk, 0, size);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw e;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

describe('synchro over sqlite: disk full', () => {
  const mountpoint = mkdtempSync(join(tmpdir(), 'cp-disk-full-'));
  let h: Harness | undefined;

  beforeAll(() => {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${MOUNT_MIB}m`, 'tmpfs', mountpoint], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`this test mounts a ${MOUNT_MIB} MiB tmpfs to fill it, which needs root (as in .ci/run): ${(e as Error).message}`);
    }
  });

  afterAll(async () => {
    await h?.close();
    try {
      execFileSync('umount', [mountpoint], { stdio: 'pipe' });
    } finally {
      rmSync(mountpoint, { recursive: true, force: true });
    }
  });

  it('writes fail with SQLITE_FULL under churn: watches pause, the queue stays bounded, and freeing space resumes with nothing lost', async () => {
    h = await Harness.start(sqliteBackend, { url: `sqlite:${join(mountpoint, 'db.sqlite')}` });
    const queue = { ...defaultSynchroOptions().queue, flushDelayMs: 2, maxEntries: 40, batchSize: 20, writeTimeoutMs: 3000 };
    const parts = await h.startSynchro({ queue });
    await h.converged();

    const filler = join(mountpoint, 'filler');
    const filled = fillDisk(filler);
    expect(statfsSync(mountpoint).bavail).toBe(0);
    expect(filled).toBeGreaterThan(0);

    for (const c of h.clusters) c.churn.start(200);
    // Back-pressure: the members keep changing, yet the queue stays within its bound.
    expect(await h.expectWritesPaused(parts, 'the full disk')).toMatch(/storage writes failing: .*full/i);

    rmSync(filler);
    await waitFor(() => parts.queue.storageAvailable, 30_000, () => 'writes did not resume after space was freed');
    for (const c of h.clusters) c.churn.stop();
    await h.converged(30_000);
    const [c1] = h.clusters;
    await waitFor(async () => (await h!.condition(c1!.name, 'Ready'))?.status === 'True', 10_000);
    await h.expectOutageRemembered();
  });
});
