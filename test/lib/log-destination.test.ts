// bufferedDestination(): the processes' stdout. Lines are gathered into few writes, every line reaches the file soon
// after it is logged, and a process with nothing to log writes nothing.
import fs, { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bufferedDestination, LOG_FLUSH_MS } from '../../src/lib/log.js';

let dir: string;
let file: string;
let fd: number;

beforeEach(() => {
  dir = mkdtempSync(join(os.tmpdir(), 'cp-log-'));
  file = join(dir, 'out.log');
  fd = openSync(file, 'a');
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (): string[] => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');

/** fs.write as sonic-boom calls it, counted, each call started `delayMs` late (a slow stdout). */
function spyWrites(delayMs = 0): { calls: number } {
  const counter = { calls: 0 };
  const real = fs.write.bind(fs) as (...args: unknown[]) => void;
  vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
    counter.calls++;
    if (delayMs === 0) real(...args);
    else setTimeout(() => real(...args), delayMs);
  }) as typeof fs.write);
  return counter;
}

describe('bufferedDestination', () => {
  it('writes a lone line within its flush time, in one write', async () => {
    const writes = spyWrites();
    const dest = bufferedDestination(fd);
    dest.write('{"msg":"one"}\n');
    expect(lines()).toEqual([]);
    await sleep(LOG_FLUSH_MS * 3);
    expect(lines()).toEqual(['{"msg":"one"}']);
    expect(writes.calls).toBe(1);
    dest.end();
  });

  it('writes nothing while there is nothing to write', async () => {
    const writes = spyWrites();
    const dest = bufferedDestination(fd);
    await sleep(LOG_FLUSH_MS * 4);
    expect(writes.calls).toBe(0);
    dest.write('{"msg":"one"}\n');
    await sleep(LOG_FLUSH_MS * 2);
    const after = writes.calls;
    expect(after).toBeGreaterThan(0);
    // sonic-boom's periodicFlush wrote an empty buffer on each of its ticks from here on.
    await sleep(LOG_FLUSH_MS * 5);
    expect(writes.calls).toBe(after);
    dest.end();
  });

  it('gathers a burst into writes of kilobytes', async () => {
    const writes = spyWrites();
    const dest = bufferedDestination(fd);
    const line = `{"msg":"${'x'.repeat(190)}"}\n`;
    for (let i = 0; i < 100; i++) dest.write(line);
    await sleep(LOG_FLUSH_MS * 3);
    expect(lines()).toHaveLength(100);
    expect(writes.calls).toBeLessThanOrEqual(6);
    dest.end();
  });

  it('writes the lines logged while a slow write was in flight once it ends', async () => {
    // Each write starts 2.5 flush times late: the flush due while the first one is in flight finds it still writing.
    spyWrites(LOG_FLUSH_MS * 2.5);
    const dest = bufferedDestination(fd);
    const line = `{"msg":"${'y'.repeat(500)}"}\n`;
    for (let i = 0; i < 10; i++) dest.write(line); // past 4 KiB: a write starts at once
    dest.write('{"msg":"late"}\n');
    await sleep(LOG_FLUSH_MS * 9);
    const got = lines();
    expect(got).toHaveLength(11);
    expect(got.at(-1)).toBe('{"msg":"late"}');
    dest.end();
  });
});
