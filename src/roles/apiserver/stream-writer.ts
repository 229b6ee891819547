// Writes a response body piece by piece, waiting for 'drain' so a slow client slows the database cursor, not memory.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A piece of a body: text, or bytes copied out as they are (objects read as UTF-8, ListQuery.objectBytes). */
export type Piece = string | Buffer;

export class StreamWriter {
  private buffered: Piece[] = [];
  private bufferedBytes = 0;
  private hasBytes = false;

  constructor(
    private readonly res: ServerResponse,
    /** Pieces are gathered into writes of about this many bytes (fewer syscalls than one per object). */
    private readonly chunkBytes = 64 * 1024,
  ) {}

  /** Queues `p`; flushes to the socket when the chunk is full, waiting if the socket is saturated. */
  async write(p: Piece): Promise<void> {
    if (typeof p !== 'string' && p.length >= this.chunkBytes) {
      // A buffer as big as a chunk goes out as it is, after what is queued: copying it into chunks only costs time.
      await this.flush();
      await this.send(p);
      return;
    }
    this.buffered.push(p);
    this.bufferedBytes += p.length;
    if (typeof p !== 'string') this.hasBytes = true;
    if (this.bufferedBytes >= this.chunkBytes) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    await this.send(this.take());
  }

  private async send(chunk: Piece): Promise<void> {
    if (responseGone(this.res)) throw new ClientGoneError();
    if (!this.res.write(chunk)) await drained(this.res);
  }

  /**
   * Ends the body once the socket took it. Node calls end()'s callback only on 'finish', which a response whose client
   * went away never emits: waiting for that alone parked the request for good, its slot in --max-requests-inflight
   * with it (a fuzzing run on PostgreSQL, where reads are slow enough for clients to leave first, leaked one request
   * in ~70 until every new one got a 429). The response's or its connection's 'close' ends the wait too (whenGone).
   */
  async end(p: Piece = ''): Promise<void> {
    if (p.length) await this.write(p);
    const chunk = this.take();
    if (responseGone(this.res)) throw new ClientGoneError();
    await new Promise<void>((resolve, reject) => {
      const stop = whenGone(this.res, () => (this.res.writableFinished ? resolve() : reject(new ClientGoneError())));
      this.res.end(chunk, () => {
        stop();
        resolve();
      });
    });
  }

  /** The queued pieces as one write: joined text, or, once any bytes are queued, one buffer (text encoded into it). */
  private take(): Piece {
    const pieces = this.buffered;
    const bytes = this.hasBytes;
    this.buffered = [];
    this.bufferedBytes = 0;
    this.hasBytes = false;
    if (!bytes) return pieces.join('');
    let size = 0;
    for (const p of pieces) size += typeof p === 'string' ? Buffer.byteLength(p) : p.length;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (const p of pieces) {
      if (typeof p !== 'string') at += p.copy(out, at);
      else if (p.length === 1 && p.charCodeAt(0) < 0x80) out[at++] = p.charCodeAt(0); // a separator: no encoder call
      else at += out.write(p, at);
    }
    return out;
  }
}

/** The client went away while we were writing. */
export class ClientGoneError extends Error {
  readonly code = 'ClientGone';
  constructor() {
    super('client closed the connection');
  }
}

/**
 * The connection a response goes out on. A pipelined response waiting for the one ahead of it has no socket yet (Node
 * attaches it when its turn comes); its request's socket is the same connection.
 */
function connectionOf(res: ServerResponse): Socket | null {
  return res.socket ?? res.req?.socket ?? null;
}

/** True when the response can no longer reach its client. */
export function responseGone(res: ServerResponse): boolean {
  return res.destroyed || connectionOf(res)?.destroyed === true;
}

/**
 * Calls `f` once the response is over: its own 'close' (after it finished, or when its client left), or its
 * connection's. A pipelined response still queued behind another when the client leaves never gets a socket, so
 * it never emits 'close' itself: a wait on that alone would park its request for good. Returns the un-listen.
 */
export function whenGone(res: ServerResponse, f: () => void): () => void {
  const conn = connectionOf(res);
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    stop();
    f();
  };
  res.once('close', once);
  const unlisten = conn ? onConnectionClose(conn, once) : undefined;
  const stop = (): void => {
    res.off('close', once);
    unlisten?.();
  };
  if (conn?.destroyed) queueMicrotask(once);
  return stop;
}

/** Who waits for each connection's 'close': one listener per connection however many requests it pipelines. */
const waitingOn = new WeakMap<Socket, Set<() => void>>();

function onConnectionClose(conn: Socket, f: () => void): () => void {
  let waiting = waitingOn.get(conn);
  if (!waiting) {
    const set = new Set<() => void>();
    waiting = set;
    waitingOn.set(conn, set);
    conn.once('close', () => {
      waitingOn.delete(conn);
      for (const g of [...set]) g();
    });
  }
  const set = waiting;
  set.add(f);
  return () => void set.delete(f);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = whenGone(res, () => {
      res.off('drain', onDrain);
      reject(new ClientGoneError());
    });
    const onDrain = (): void => {
      stop();
      resolve();
    };
    res.once('drain', onDrain);
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
