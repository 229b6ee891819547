// StreamWriter against a client that stopped reading: every write and the final end settle once the connection is
// destroyed (by the request deadline or a watch cut), so the handler ends and gives back its slot.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { StreamWriter } from '../../src/roles/apiserver/stream-writer.js';
import { stalledGet, within, type StalledClient } from './stalled-client.js';

let server: Server | undefined;
let client: StalledClient | undefined;

afterEach(async () => {
  client?.destroy();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

it('end() of a body the client never reads settles once the response is destroyed (the handler can end)', async () => {
  let settled: Promise<string> | undefined;
  let destroy: (() => void) | undefined;
  const started = new Promise<void>((resolve) => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const out = new StreamWriter(res);
      // 16 MiB in the final end(): more than the loopback socket buffers take, so 'finish' cannot come.
      settled = out.end('x'.repeat(16 * 1024 * 1024)).then(() => 'resolved', (e: unknown) => `rejected: ${(e as { code?: string }).code}`);
      destroy = () => res.destroy();
      resolve();
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  client = await stalledGet((server?.address() as AddressInfo).port, '/');
  await started;
  await new Promise((r) => setTimeout(r, 200));
  destroy?.();
  // Node calls end()'s callback when the socket is destroyed; what matters is that the handler is not parked forever.
  expect(await within(settled as Promise<string>, 2000, 'StreamWriter.end after destroy')).toMatch(/^(resolved|rejected: ClientGone)$/);
});

it('end() after the client has gone settles at once (Node never calls end()\'s callback on a destroyed response)', async () => {
  let settled: Promise<string> | undefined;
  const ended = new Promise<void>((resolve) => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const out = new StreamWriter(res);
      void out.write('{"items":[');
      // The client leaves while the handler waits on storage (slow on PostgreSQL); then the handler ends the body.
      res.once('close', () => {
        settled = out.end(']}').then(() => 'resolved', (e: unknown) => `rejected: ${(e as { code?: string }).code}`);
        resolve();
      });
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  client = await stalledGet((server?.address() as AddressInfo).port, '/');
  await new Promise((r) => setTimeout(r, 100));
  client.destroy();
  await ended;
  expect(await within(settled as Promise<string>, 2000, 'StreamWriter.end after the client left')).toBe('rejected: ClientGone');
});
