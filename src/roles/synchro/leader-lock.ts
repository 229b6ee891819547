// The locks a synchro leads on. Either way its writes are fenced by a lease in storage (Storage.fenceWrites): the
// storage lease itself without a host cluster, or, with one, that lease held beside the host cluster's Lease.
import type { Logger } from 'pino';
import type { LeaseLock } from '../../lib/leader-election.js';
import { deadline, systemClock, type Clock } from '../../lib/lifecycle.js';
import { messageOf } from '../../lib/errors.js';
import type { StorageWriter } from '../../storage/types.js';

type LeaseStorage = Pick<StorageWriter, 'tryAcquireLease' | 'releaseLease'>;

/** A LeaseLock on the storage's lease rows (no host cluster). */
export function storageLeaseLock(storage: LeaseStorage, name: string): LeaseLock {
  return {
    description: `storage lease ${name}`,
    tryAcquireOrRenew: (identity, ttlMs) => storage.tryAcquireLease(name, identity, ttlMs),
    release: (identity) => storage.releaseLease(name, identity),
  };
}

/**
 * The host cluster's Lease, which elects, with the storage lease of the same name taken beside it, which fences: a
 * leader's write commits only while the storage lease is its own, and a successor takes it over only after the writes
 * in flight. Leadership needs both. Once leading, the host Lease alone keeps it: storage that fails to answer a
 * renewal (down, or slow past `storageWithinMs`) does not end it, since nobody can take the storage lease without the
 * host Lease this leader still renews, and a write checks the holder, not the expiry. A storage lease found held by
 * another (a replica electing on another Lease over the same storage) ends it.
 */
export class FencedHostLock implements LeaseLock {
  readonly description: string;
  private holding = false;

  constructor(
    private readonly host: LeaseLock,
    private readonly storage: LeaseStorage,
    private readonly name: string,
    private readonly o: { storageWithinMs: number; logger: Logger; clock?: Clock },
  ) {
    this.description = `${host.description} (writes fenced by storage lease ${name})`;
  }

  async tryAcquireOrRenew(identity: string, leaseDurationMs: number): Promise<boolean> {
    if (!(await this.host.tryAcquireOrRenew(identity, leaseDurationMs))) {
      this.holding = false;
      return false;
    }
    const ms = this.o.storageWithinMs;
    try {
      this.holding = await deadline(this.storage.tryAcquireLease(this.name, identity, leaseDurationMs), ms,
        () => new Error(`storage did not answer within ${ms} ms`), this.o.clock ?? systemClock);
    } catch (e: unknown) {
      if (!this.holding) throw e;
      this.o.logger.warn({ lease: this.name, err: messageOf(e) }, 'could not renew the storage lease that fences writes; leading on the host Lease');
    }
    return this.holding;
  }

  async release(identity: string): Promise<void> {
    this.holding = false;
    try {
      await this.storage.releaseLease(this.name, identity);
    } finally {
      await this.host.release(identity);
    }
  }
}
