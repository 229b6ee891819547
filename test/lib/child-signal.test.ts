// withChildSignal with a deadline: a child signal that lets go of its parent, where AbortSignal.any keeps an entry per call.
import { getEventListeners } from 'node:events';
import { expect, it } from 'vitest';
import { withChildSignal } from '../../src/lib/lifecycle.js';

/** The entries a signal keeps for the AbortSignal.any signals made from it (Node's internal set; none: 0). */
function dependants(signal: AbortSignal): number {
  const sym = Object.getOwnPropertySymbols(signal).find((s) => s.toString() === 'Symbol(kDependantSignals)');
  const set = sym ? (signal as unknown as Record<symbol, Set<unknown> | undefined>)[sym] : undefined;
  return set?.size ?? 0;
}

it('aborts with a TimeoutError after its time, and with the reason of its parent when that aborts first', async () => {
  const timedOut = await withChildSignal(undefined, (signal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))), 20);
  expect(timedOut).toBeInstanceOf(DOMException);
  expect((timedOut as DOMException).name).toBe('TimeoutError');
  const parent = new AbortController();
  const reason = new Error('stopping');
  const got = withChildSignal(parent.signal, (signal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))), 60_000);
  parent.abort(reason);
  expect(await got).toBe(reason);
  expect(await withChildSignal(parent.signal, async (signal) => signal.aborted, 60_000)).toBe(true);
});

it('holds nothing on a long-lived parent once done, however many times it runs (AbortSignal.any does, on Node 20)', async () => {
  const parent = new AbortController();
  for (let i = 0; i < 1000; i++) await withChildSignal(parent.signal, async (signal) => signal.aborted, 60_000);
  expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  expect(dependants(parent.signal)).toBe(0);
});
