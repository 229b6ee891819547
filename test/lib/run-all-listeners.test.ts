// runAll: a role of many runnables, each waiting on the shared signal, must not trip Node's listener-leak warning.
import { afterEach, expect, it } from 'vitest';
import { runAll, sleep, type Runnable } from '../../src/lib/lifecycle.js';

const warnings: Error[] = [];
const onWarning = (w: Error): void => void warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
});

it('lets a dozen runnables wait on the signal in two places each without a MaxListenersExceededWarning', async () => {
  process.on('warning', onWarning);
  const ac = new AbortController();
  const runnables: Runnable[] = Array.from({ length: 12 }, (_, i) => ({
    name: `part-${i}`,
    start: async (signal) => {
      await Promise.all([sleep(60_000, signal), sleep(60_000, signal)]);
    },
  }));
  const done = runAll(runnables, ac.signal);
  await new Promise((r) => setTimeout(r, 20));
  ac.abort();
  await done;
  await new Promise((r) => setImmediate(r));
  expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
});
