// The chaos harness's wait for a database coming back from another fault: retried while it refuses, not otherwise.
import { expect, it } from 'vitest';
import { whenDatabaseUp } from '../../bench/chaos/inject.js';

it('retries while PostgreSQL is starting up, and gives up on any other error at once', async () => {
  let calls = 0;
  const startingUp = async (): Promise<string> => {
    if (++calls < 3) throw new Error('PostgresError: the database system is not yet accepting connections');
    return 'copied';
  };
  expect(await whenDatabaseUp(startingUp)).toBe('copied');
  expect(calls).toBe(3);
  calls = 0;
  await expect(whenDatabaseUp(async () => {
    calls++;
    throw new Error('PostgresError: relation "resources" does not exist');
  })).rejects.toThrow('does not exist');
  expect(calls).toBe(1);
  // Still refusing past the wait: its error.
  await expect(whenDatabaseUp(async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5433');
  }, 400)).rejects.toThrow('ECONNREFUSED');
});
