// Per-test-file PostgreSQL databases: each file gets a fresh database on the shared throwaway server.
import { inject } from 'vitest';
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';

/**
 * Creates a fresh database on the test server (or on the server `base` names: one a test stops and starts) and
 * returns its URL plus a drop function.
 */
export async function freshPostgresDatabase(prefix = 'cp', base: string = inject('postgresUrl')): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

export interface Forwarder {
  port: number;
  /** Closes the listener and every connection through it. */
  stop(): Promise<void>;
  /**
   * From now on drops what the server sends on the connections open now, keeping them open, as a proxy whose server
   * went away without a word does: requests still go through, answers never come back.
   */
  silence(): void;
}

/**
 * A TCP forwarder on 127.0.0.1:`port` to the server of `url`: the database "comes up" at that port when this starts
 * (or goes away when it stops), with no server restarted.
 */
export function forwarder(port: number, url: string): Promise<Forwarder> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  const stop = (): Promise<void> => new Promise((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  const silence = (): void => {
    for (const { client, upstream } of pairs) {
      upstream.unpipe(client);
      upstream.on('data', () => undefined);
    }
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ port, stop, silence }));
  });
}
