// The storage contract on SQLite: a temporary database file per harness.
import { storageContractTests } from './contract.js';
import { sqliteHarness } from './harness-sqlite.js';

storageContractTests('sqlite', sqliteHarness);
