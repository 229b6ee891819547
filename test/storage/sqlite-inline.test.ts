// The storage contract on SQLite with writes on the event loop's own connection (the apiserver role's setting: its
// only writes are change-log compactions), so both places writes can run pass the same suite.
import { storageContractTests } from './contract.js';
import { sqliteHarness } from './harness-sqlite.js';

storageContractTests('sqlite, writes inline', (o) => sqliteHarness({ sqliteWrites: 'inline', ...o }));
