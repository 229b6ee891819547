// The synchro faults/host suite on PostgreSQL.
import { postgresBackend } from './harness.js';
import { faultsSuite } from './suite-faults.js';

faultsSuite(postgresBackend);
