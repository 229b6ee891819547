// Writes a response body piece by piece, waiting for 'drain' so a slow client slows the database cursor, not memory.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TransformOptions } from 'node:stream';
import { createGzip, type Gzip, type ZlibOptions } from 'node:zlib';
import { GZIP_OPTIONS, GZIP_THRESHOLD_BYTES, gzipHeaders, mayCompress } from './compress.js';
import type { JsonIndenter } from '../../lib/json-indent.js';
import { indenterFor } from './pretty.js';

/** A piece of a body: text, or bytes copied out as they are (objects read as UTF-8, ListQuery.objectBytes). */
export type Piece = string | Buffer;

export interface StreamWriterOptions {
  /** Pieces are gathered into writes of about this many bytes (fewer syscalls than one per object). */
  chunkBytes?: number;
  /**
   * The response's status and headers, written by the writer: with them, a body the client may take gzipped (a list,
   * never a watch) is held until it passes the threshold, then compressed as it goes (compress.ts); one that ends
   * before it goes out as it is, with its length. Without them the caller wrote the head already.
   */
  head?: { code: number; headers: Record<string, string | number> };
}

export class StreamWriter {
  private buffered: Piece[] = [];
  private bufferedBytes = 0;
  private hasBytes = false;
  private readonly chunkBytes: number;
  /** The head still to write (undefined once written, or when the caller wrote it). */
  private head: StreamWriterOptions['head'];
  /** Held back until this many bytes are queued, to see whether the body is worth compressing (0: not held). */
  private holdBytes: number;
  /** The compressor the body goes through once it turned out large enough. */
  private gzip: Gzip | undefined;

  /** A JSON body asked for indented (pretty.ts) goes through this; only a body whose head the writer writes. */
  private readonly indenter: JsonIndenter | undefined;

  constructor(private readonly res: ServerResponse, o: StreamWriterOptions = {}) {
    this.chunkBytes = o.chunkBytes ?? 64 * 1024;
    this.head = o.head;
    this.holdBytes = o.head && mayCompress(res) ? GZIP_THRESHOLD_BYTES : 0;
    this.indenter = o.head ? indenterFor(res, o.head.headers['content-type']) : undefined;
  }

  /** Queues `p`; flushes to the socket when the chunk is full, waiting if the socket is saturated. */
  async write(p: Piece): Promise<void> {
    await this.queue(this.indenter ? this.indenter.push(p) : p);
  }

  private async queue(p: Piece): Promise<void> {
    if (this.holdBytes === 0 && typeof p !== 'string' && p.length >= this.chunkBytes) {
      // A buffer as big as a chunk goes out as it is, after what is queued: copying it into chunks only costs time.
      await this.flush();
      await this.send(p);
      return;
    }
    this.buffered.push(p);
    // Text counts in UTF-16 units, about its bytes, except while the threshold is watched (kube's is in bytes).
    this.bufferedBytes += this.holdBytes > 0 && typeof p === 'string' ? Buffer.byteLength(p) : p.length;
    if (typeof p !== 'string') this.hasBytes = true;
    if (this.holdBytes > 0 ? this.bufferedBytes > this.holdBytes : this.bufferedBytes >= this.chunkBytes) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    if (this.holdBytes > 0) {
      // Past the threshold (or asked to flush): from here on the body is compressed.
      this.holdBytes = 0;
      this.startGzip();
    }
    await this.send(this.take());
  }

  private async send(chunk: Piece): Promise<void> {
    if (responseGone(this.res)) throw new ClientGoneError();
    this.writeHead();
    if (this.gzip) {
      if (!this.gzip.write(chunk)) await drained(this.res, this.gzip);
    } else if (!this.res.write(chunk)) await drained(this.res, this.res);
  }

  /** Writes the head the writer was given, plain (with the length, when the whole body is known) or gzipped. */
  private writeHead(length?: number): void {
    const head = this.head;
    if (!head) return;
    this.head = undefined;
    if (this.gzip) this.res.writeHead(head.code, gzipHeaders(head.headers));
    else this.res.writeHead(head.code, length === undefined ? head.headers : { ...head.headers, 'content-length': length });
  }

  /** Sends the rest of the body through a compressor piped into the response; a client that leaves stops it. */
  private startGzip(): void {
    // Room for a few chunks ahead: rows are read while zlib compresses the chunks before them on libuv's pool (with
    // its default 16 KiB the two took turns: 3.5 s against 2.8 s for 100,000 pods), and 64 KiB writes to the socket.
    // (zlib hands its options to the Transform it is, so the stream's buffer sizes go in the same object.)
    const options: ZlibOptions & Pick<TransformOptions, 'writableHighWaterMark'> = { ...GZIP_OPTIONS, chunkSize: 64 * 1024, writableHighWaterMark: 256 * 1024 };
    const gzip = createGzip(options);
    gzip.on('error', () => this.res.destroy());
    gzip.pipe(this.res);
    whenGone(this.res, () => gzip.destroy());
    this.gzip = gzip;
  }

  /**
   * Ends the body once the socket took it. Node calls end()'s callback only on 'finish', which a response whose client
   * went away never emits: waiting for that alone parked the request for good, its slot in --max-requests-inflight
   * with it (a fuzzing run on PostgreSQL, where reads are slow enough for clients to leave first, leaked one request
   * in ~70 until every new one got a 429). The response's or its connection's 'close' ends the wait too (whenGone).
   */
  async end(p: Piece = ''): Promise<void> {
    if (p.length) await this.write(p);
    if (this.indenter) await this.queue(this.indenter.end());
    // A held body that ended under the threshold goes out as it is, its length known.
    this.holdBytes = 0;
    const chunk = this.take();
    if (responseGone(this.res)) throw new ClientGoneError();
    this.writeHead(this.gzip ? undefined : Buffer.byteLength(chunk));
    await new Promise<void>((resolve, reject) => {
      const stop = whenGone(this.res, () => (this.res.writableFinished ? resolve() : reject(new ClientGoneError())));
      const done = (): void => {
        stop();
        resolve();
      };
      // The compressor ends the response when its last output is written (pipe).
      if (this.gzip) {
        this.res.once('finish', done);
        this.gzip.end(chunk);
      } else this.res.end(chunk, done);
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

/** Waits for `into` (the response, or the compressor in front of it) to take more; rejects when the client left. */
function drained(res: ServerResponse, into: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = whenGone(res, () => {
      into.removeListener('drain', onDrain);
      reject(new ClientGoneError());
    });
    const onDrain = (): void => {
      stop();
      resolve();
    };
    into.once('drain', onDrain);
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
