// The synchro convergence suite on SQLite.
import { sqliteBackend } from './harness.js';
import { syncSuite } from './suite-sync.js';

syncSuite(sqliteBackend);
