// Status writes: a change to a cluster not written for an interval goes out at once; then at most one per interval.
import { afterEach, expect, it } from 'vitest';
import { StatusWriter } from '../../../src/roles/synchro/status-writer.js';
import { silentLogger } from '../../../src/lib/log.js';
import { FakeClock, settle } from './fake-clock.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function started(fail: () => boolean = () => false): { writer: StatusWriter; clock: FakeClock; writes: Array<[string, number]> } {
  const clock = new FakeClock();
  const writes: Array<[string, number]> = [];
  const writer = new StatusWriter({
    intervalMs: 1000, logger: silentLogger(), clock,
    write: async (name) => {
      if (fail()) throw new Error('storage down');
      writes.push([name, clock.now()]);
    },
  });
  const ac = new AbortController();
  const loop = writer.start(ac.signal);
  stops.push(async () => {
    ac.abort();
    await loop;
  });
  return { writer, clock, writes };
}

it('writes a change at once when its cluster was not written for an interval, and at most once per interval after', async () => {
  const { writer, clock, writes } = started();
  await settle();
  writer.markDirty('a');
  await settle();
  expect(writes).toEqual([['a', 0]]);
  // Again within the interval: at its end, once, however many changes came.
  await clock.advance(200);
  writer.markDirty('a');
  writer.markDirty('a');
  await settle();
  expect(writes).toHaveLength(1);
  await clock.advance(800);
  expect(writes).toEqual([['a', 0], ['a', 1000]]);
  // Quiet for more than an interval: the next change goes out at once again.
  await clock.advance(1500);
  writer.markDirty('a');
  await settle();
  expect(writes.at(-1)).toEqual(['a', 2500]);
});

/** A writer that wrote cluster a at 0, its clock now at `ms`. */
async function aWrittenThenAt(ms: number): Promise<ReturnType<typeof started>> {
  const s = started();
  await settle();
  s.writer.markDirty('a');
  await settle();
  await s.clock.advance(ms);
  return s;
}

it("another cluster's change does not bring forward one written less than an interval ago", async () => {
  const { writer, clock, writes } = await aWrittenThenAt(300);
  writer.markDirty('a');
  writer.markDirty('b');
  await settle();
  // b had never been written: at once; a waits for its interval.
  expect(writes).toEqual([['a', 0], ['b', 300]]);
  await clock.advance(1000);
  expect(writes).toEqual([['a', 0], ['b', 300], ['a', 1300]]);
});

it('an urgent change (the types a cluster syncs) goes out at once, though its cluster was written less than an interval ago', async () => {
  const { writer, clock, writes } = await aWrittenThenAt(300);
  writer.markDirty('a', true);
  await settle();
  expect(writes).toEqual([['a', 0], ['a', 300]]);
  // Then spaced as ever: a plain change waits for the interval from that write.
  await clock.advance(100);
  writer.markDirty('a');
  await settle();
  expect(writes).toHaveLength(2);
  await clock.advance(900);
  expect(writes).toEqual([['a', 0], ['a', 300], ['a', 1300]]);
});

it('while writes fail, changes wait for the backed-off retry; flush writes everything at once', async () => {
  let down = true;
  const { writer, clock, writes } = started(() => down);
  await settle();
  writer.markDirty('a');
  await settle();
  expect(writes).toEqual([]);
  down = false;
  writer.markDirty('a');
  await settle();
  // The failed cycle doubled the period: the retry comes 2 s on, not at the change.
  expect(writes).toEqual([]);
  await clock.advance(2000);
  expect(writes).toEqual([['a', 2000]]);
  writer.markDirty('a');
  writer.markDirty('b');
  await writer.flush();
  expect(writes.slice(1).map(([name]) => name).sort()).toEqual(['a', 'b']);
});
