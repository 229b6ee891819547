// Coming back from a PostgreSQL restart: bounded reserve() (postgres.js can lose the request), prompt reconnects.
import { describe, expect, it } from 'vitest';
import type postgres from 'postgres';
import { reconnectDelaySeconds } from '../../src/storage/postgres/connection.js';
import { mapPostgresError } from '../../src/storage/postgres/errors.js';
import { reserveConnection } from '../../src/storage/postgres/transaction.js';

const fakeConn = (): postgres.ReservedSql & { released: number } => {
  const c = { released: 0, release: () => void c.released++ };
  return c as unknown as postgres.ReservedSql & { released: number };
};

describe('reserveConnection', () => {
  it('gives the connection when the pool does', async () => {
    const c = fakeConn();
    await expect(reserveConnection({ reserve: async () => c }, 50)).resolves.toBe(c);
    expect(c.released).toBe(0);
  });

  it('fails as a retryable Unavailable when the request is never answered', async () => {
    const err = await reserveConnection({ reserve: () => new Promise<never>(() => undefined) }, 20).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('CONNECT_TIMEOUT');
    expect(mapPostgresError(err, 'write')).toMatchObject({ code: 'Unavailable', retryable: true });
  });

  it('hands back a connection that arrives after the timeout', async () => {
    const c = fakeConn();
    let arrive!: (x: postgres.ReservedSql) => void;
    const late = new Promise<postgres.ReservedSql>((r) => (arrive = r));
    await expect(reserveConnection({ reserve: () => late }, 10)).rejects.toMatchObject({ code: 'CONNECT_TIMEOUT' });
    arrive(c);
    await late;
    await new Promise((r) => setImmediate(r));
    expect(c.released).toBe(1);
  });
});

describe('reconnectDelaySeconds', () => {
  it('starts at 50 ms and never exceeds 1 s however many connects failed', () => {
    expect(reconnectDelaySeconds(0)).toBe(0.05);
    expect(reconnectDelaySeconds(3)).toBe(0.4);
    expect(reconnectDelaySeconds(50)).toBe(1);
  });
});
