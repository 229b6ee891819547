// The synchro convergence suite on PostgreSQL.
import { postgresBackend } from './harness.js';
import { syncSuite } from './suite-sync.js';

syncSuite(postgresBackend);
