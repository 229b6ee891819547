// In the binding role the synchro's write batches take turns with the apiserver's requests (src/lib/turns.ts): given
// a turn queue, every batch waits for its turn before it writes, and the sync still converges.
import { describe, expect, it } from 'vitest';
import { TurnQueue } from '../../../src/lib/turns.js';
import { Harness, sqliteBackend } from './harness.js';

class CountingTurns extends TurnQueue {
  waits = 0;
  override wait(): Promise<void> | undefined {
    this.waits++;
    return super.wait();
  }
}

describe('synchro with a shared turn queue', () => {
  it('writes every batch in its turn and converges', async () => {
    const h = await Harness.start(sqliteBackend, { clusters: 2, pods: 30 });
    try {
      const turns = new CountingTurns(0);
      await h.startSynchro({}, { turns });
      await h.converged();
      const text = await h.registry.metrics();
      const batches = Number(/^clusterpedia_synchro_write_batch_size_count (\d+)$/m.exec(text)?.[1] ?? 0);
      expect(batches).toBeGreaterThan(0);
      expect(turns.waits).toBeGreaterThanOrEqual(batches);
    } finally {
      await h.close();
    }
  }, 60_000);
});
