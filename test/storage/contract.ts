// The storage contract suite (STYLE §7): every backend runs exactly these tests; backend files only build a harness.
import { describe } from 'vitest';
import { leaseContract } from './contract-leases.js';
import { lifecycleContract } from './contract-lifecycle.js';
import { ownerContract } from './contract-owner.js';
import { pagingContract } from './contract-paging.js';
import { queryContract } from './contract-queries.js';
import { watchContract } from './contract-watch.js';
import { writeContract } from './contract-writes.js';
import type { OpenHarness } from './fixtures.js';

export type { Harness, OpenHarness } from './fixtures.js';

export function storageContractTests(name: string, open: OpenHarness): void {
  describe(`storage contract: ${name}`, () => {
    queryContract(open);
    pagingContract(open);
    ownerContract(open);
    writeContract(open);
    watchContract(open);
    lifecycleContract(open);
    leaseContract(open);
  });
}
