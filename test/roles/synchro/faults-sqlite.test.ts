// The synchro faults/host suite on SQLite.
import { sqliteBackend } from './harness.js';
import { faultsSuite } from './suite-faults.js';

faultsSuite(sqliteBackend);
