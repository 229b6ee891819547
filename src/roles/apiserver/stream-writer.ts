// Writes a response body piece by piece, waiting for 'drain' so a slow client slows the database cursor, not memory.
import type { ServerResponse } from 'node:http';

export class StreamWriter {
  private buffered: string[] = [];
  private bufferedBytes = 0;

  constructor(
    private readonly res: ServerResponse,
    /** Pieces are gathered into writes of about this many characters (fewer syscalls than one per object). */
    private readonly chunkChars = 64 * 1024,
  ) {}

  /** Queues `s`; flushes to the socket when the chunk is full, waiting if the socket is saturated. */
  async write(s: string): Promise<void> {
    this.buffered.push(s);
    this.bufferedBytes += s.length;
    if (this.bufferedBytes >= this.chunkChars) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    const chunk = this.buffered.join('');
    this.buffered = [];
    this.bufferedBytes = 0;
    if (this.res.destroyed) throw new ClientGoneError();
    if (!this.res.write(chunk)) await drained(this.res);
  }

  async end(s = ''): Promise<void> {
    if (s) this.buffered.push(s);
    const chunk = this.buffered.join('');
    this.buffered = [];
    await new Promise<void>((resolve) => this.res.end(chunk, () => resolve()));
  }
}

/** The client went away while we were writing. */
export class ClientGoneError extends Error {
  readonly code = 'ClientGone';
  constructor() {
    super('client closed the connection');
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onClose = (): void => {
      cleanup();
      reject(new ClientGoneError());
    };
    const cleanup = (): void => {
      res.off('drain', onDrain);
      res.off('close', onClose);
    };
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * Reads the first row before anything is written: a storage error that surfaces only when the cursor starts (a query
 * too big for the database, an unreachable server) still becomes a Status with its own code instead of a 200 whose
 * body is cut. The rows are then yielded unchanged, the first one included.
 */
export async function primed<T>(rows: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const it = rows[Symbol.asyncIterator]();
  const first = await it.next();
  return {
    async *[Symbol.asyncIterator]() {
      try {
        if (first.done) return;
        yield first.value;
        for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
      } finally {
        await it.return?.();
      }
    },
  };
}
