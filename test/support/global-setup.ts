// vitest global setup: provides a PostgreSQL URL to every test file (a throwaway server unless one is given).
import type { TestProject } from 'vitest/node';
import { startPostgres, type PostgresServer } from './postgres-server.js';

let server: PostgresServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.CLUSTERPEDIA_TEST_POSTGRES_URL;
  if (!url) {
    server = await startPostgres();
    url = server.url;
  }
  project.provide('postgresUrl', url);
}

export async function teardown(): Promise<void> {
  server?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}
