// A client that sends one request and then never reads: what a stalled or malicious consumer looks like to the server.
import { connect, type Socket } from 'node:net';

export interface StalledClient {
  socket: Socket;
  /** Resolves when the server (or anything) closes the connection. */
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

/**
 * Sends `GET path` on a fresh connection and stops reading (the kernel buffers fill, then the server's writes block):
 * at once, or once the first bytes of the answer arrived (`afterFirstBytes`), which tells the server took the request.
 */
export async function stalledGet(port: number, path: string, afterFirstBytes = false): Promise<StalledClient> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {
    // a reset from the server is the expected outcome
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const answered = afterFirstBytes ? new Promise<void>((resolve) => socket.once('data', () => resolve())) : undefined;
  socket.write(`GET ${path} HTTP/1.1\r\nHost: stalled\r\n\r\n`);
  if (answered) await answered;
  socket.pause();
  let closed = false;
  const done = new Promise<void>((resolve) => socket.once('close', () => {
    closed = true;
    resolve();
  }));
  return { socket, closed: done, isClosed: () => closed, destroy: () => socket.destroy() };
}

/** Rejects when `p` does not settle within `ms`. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))])
    .finally(() => clearTimeout(t));
}
