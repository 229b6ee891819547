// Notes when clusterpedia's storage revision last moved: once the final state is verified, that moment is when it
// converged (the verification itself, a full read of every type, only tells that it has).
import { request } from 'undici';
import { sleep } from '../../src/lib/lifecycle.js';
import { RESOURCES_PREFIX } from './stored.js';

export class RevisionTracker {
  /** Date.now() of the last observed change of the storage revision (0: none seen). */
  lastChangeAt = 0;
  revision: string | undefined;
  private readonly ac = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly base: string, private readonly intervalMs = 200) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.ac.signal;
    while (!signal.aborted) {
      try {
        // A one-item list answers with the storage revision of the moment (status writes do not move it).
        const res = await request(`${this.base}${RESOURCES_PREFIX}/api/v1/namespaces?limit=1`, { signal, headersTimeout: 5_000, bodyTimeout: 5_000 });
        if (res.statusCode === 200) {
          const rv = ((await res.body.json()) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
          if (rv !== undefined && rv !== this.revision) {
            if (this.revision !== undefined) this.lastChangeAt = Date.now();
            this.revision = rv;
          }
        } else await res.body.dump();
      } catch {
        // clusterpedia restarting or storage down: the next poll tells.
      }
      await sleep(this.intervalMs, signal);
    }
  }
}
