// Starts and stops a throwaway PostgreSQL server on a loopback port (tests, benchmarks, CI).
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresServer {
  url: string;
  port: number;
  dir: string;
  stop(): void;
  /** Stops the server but keeps its data, for outage tests; `start()` brings it back on the same port. */
  pause(): void;
  start(): void;
}

/** Finds the newest PostgreSQL server binaries directory, or undefined. */
export function findPgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: run its tools as the postgres user then. */
function asPostgres(cmd: string, args: string[]): void {
  const isRoot = process.getuid?.() === 0;
  const r = isRoot ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' })
    : spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'cp-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  asPostgres(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  const start = (): void => asPostgres(join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`, 'start']);
  const pause = (): void => asPostgres(join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']);
  start();
  const stop = (): void => {
    process.off('exit', stop);
    try { pause(); } catch { /* already stopped */ }
    rmSync(dir, { recursive: true, force: true });
  };
  // pg_ctl leaves the server running on its own: a process that ends without stopping it (vitest whose output was
  // closed, `npm test | head`; a benchmark that threw) would leave it behind for good.
  process.on('exit', stop);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, start, pause, stop };
}
