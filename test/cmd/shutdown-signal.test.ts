// The signal every long-running command stops on: SIGTERM or SIGINT aborts it, a second signal exits at once.
import { afterEach, expect, it, vi } from 'vitest';
import { shutdownSignal } from '../../src/cmd/context.js';

afterEach(() => vi.restoreAllMocks());

it('is one signal per process, with one listener per signal however many commands ask for it', () => {
  const before = { term: process.listeners('SIGTERM'), int: process.listeners('SIGINT') };
  const signal = shutdownSignal();
  for (let i = 0; i < 20; i++) expect(shutdownSignal()).toBe(signal);
  const added = process.listeners('SIGTERM').filter((l) => !before.term.includes(l));
  expect(added).toHaveLength(1);
  expect(process.listeners('SIGINT').filter((l) => !before.int.includes(l))).toHaveLength(1);

  // Called directly rather than through process.emit, which would reach the test runner's own listeners too.
  const onSignal = added[0] as (sig: NodeJS.Signals) => void;
  const exit = vi.spyOn(process, 'exit').mockImplementation(() => undefined as never);
  onSignal('SIGTERM');
  expect(signal.aborted).toBe(true);
  expect(String((signal.reason as Error).message)).toBe('received SIGTERM');
  expect(exit).not.toHaveBeenCalled();
  // Still listening: the second signal exits instead of waiting for the graceful stop.
  expect(process.listeners('SIGTERM')).toContain(onSignal);
  onSignal('SIGINT');
  expect(exit).toHaveBeenCalledWith(130);
});

/** The names of the process warnings that `add` causes. */
async function warningsOf(add: () => void): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => { warnings.push(w.name); };
  // Node's own listener, which prints each warning, is set aside meanwhile: the warning looked for is expected.
  const others = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', onWarning);
  try {
    add();
    await new Promise((r) => setImmediate(r));
    return warnings;
  } finally {
    process.off('warning', onWarning);
    for (const l of others) process.on('warning', l);
  }
}

it('takes as many abort listeners as the parts that stop with the process, without a leak warning', async () => {
  const listen = (signal: AbortSignal): void => {
    for (let i = 0; i < 20; i++) signal.addEventListener('abort', () => undefined);
  };
  expect(await warningsOf(() => listen(shutdownSignal()))).toEqual([]);
  // Node 20 warns past ten listeners on an AbortSignal (22 and later no longer do): there, a fresh signal does.
  const fresh = await warningsOf(() => listen(new AbortController().signal));
  expect(fresh).toEqual(Number(process.versions.node.split('.')[0]) < 22 ? ['MaxListenersExceededWarning'] : []);
});
