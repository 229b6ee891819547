// The throwaway PostgreSQL of the tests and benchmarks goes with the process that started it, however that ends.
import { expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function serverRunning(dir: string): boolean {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').some((l) => l.includes(`-D ${dir}/data`));
}

it('a process that exits without stopping its server stops it on the way out', () => {
  // The child starts a server and exits as vitest does when its output is closed (`npm test | head`): no stop().
  const script = `import { startPostgres } from './test/support/postgres-server.ts';
const s = await startPostgres();
console.log(s.dir);
process.exit(0);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const dir = r.stdout.trim();
  expect(dir).toMatch(/cp-pg-/);
  expect(serverRunning(dir)).toBe(false);
  expect(existsSync(dir)).toBe(false);
}, 90_000);
