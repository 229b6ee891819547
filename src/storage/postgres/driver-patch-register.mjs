// `tsx --import ./src/storage/postgres/driver-patch-register.mjs <script>`: postgres.js loaded with nextWrite() guarded
// (driver-patch.mjs), as in the bundle and under the tests. The package.json scripts that run PostgreSQL clients from
// source use it.
import { register } from 'node:module';

register('./driver-patch-hooks.mjs', import.meta.url);
