// The server side of SPDY/3.1 as kube's streaming endpoints speak it (kubectl exec/attach before 1.30, port-forward
// before 1.31, and port-forward tunnelled in WebSocket since): the upgrade handshake that negotiates the stream
// protocol from X-Stream-Protocol-Version, then frames. Streams are opened by the client only; each is answered with a
// SYN_REPLY at once, as the kubelet's stream server does. Header blocks are zlib with SPDY/3's dictionary; ours are sent
// as stored (uncompressed) deflate blocks of one continuous stream, which any inflater reads. Flow control is not
// enforced (kube's spdystream neither sends nor honours WINDOW_UPDATE), PING is echoed, SETTINGS and WINDOW_UPDATE ignored.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { constants, inflateSync } from 'node:zlib';
import { errors } from './status.js';

export const SPDY_UPGRADE = 'SPDY/3.1';

/** Frames larger than this end the session (a test tool, not a file transfer). */
const MAX_FRAME = 1024 * 1024;
/** Compressed header bytes a session may send in all (each block is inflated with all before it: see headerBlock). */
const MAX_HEADER_BYTES = 256 * 1024;
const MAX_DATA_FRAME = 32 * 1024;

const SYN_STREAM = 1;
const RST_STREAM = 3;
const SYN_REPLY = 2;
const PING = 6;
const GOAWAY = 7;
const HEADERS = 8;
const FLAG_FIN = 0x01;
const RST_CANCEL = 5;
/** An empty, non-final stored deflate block: what zlib's Z_SYNC_FLUSH ends its output with. */
const SYNC_FLUSH = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

// SPDY/3's header compression dictionary (draft 3, §2.6.10.1): length-prefixed header names and values, then a tail of
// common value fragments. zlib checks it by its Adler-32, so it must be exact.
const DICT_WORDS = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
  'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding',
  'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date',
  'etag', 'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate',
  'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1',
  'url', 'public', 'set-cookie', 'keep-alive', 'origin',
];
const DICT_TAIL = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden' +
  '404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
export const SPDY_DICTIONARY = Buffer.concat([
  ...DICT_WORDS.map((w) => {
    const b = Buffer.alloc(4 + w.length);
    b.writeUInt32BE(w.length, 0);
    b.write(w, 4, 'latin1');
    return b;
  }),
  Buffer.from(DICT_TAIL, 'latin1'),
]);

/**
 * The SPDY upgrade handshake: the first protocol the client lists in X-Stream-Protocol-Version (each header value one
 * protocol, as kube reads them: a comma-joined value is one unknown protocol) that `protocols` has, else kube's 403.
 */
export function acceptSpdy(req: IncomingMessage, socket: Duplex, protocols: readonly string[]): string {
  const offered = req.headersDistinct['x-stream-protocol-version'] ?? [];
  const protocol = offered.find((p) => protocols.includes(p));
  if (protocol === undefined) {
    throw errors.forbidden(`unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${protocols.join(' ')}]`);
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${SPDY_UPGRADE}\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  return protocol;
}

/** One client-opened stream. `onData`/`onEnd` are set by whoever serves it; `write`/`end` send on it. */
export class SpdyStream {
  onData: (data: Buffer) => void = () => undefined;
  onEnd: () => void = () => undefined;
  remoteEnded = false;
  localEnded = false;

  constructor(readonly id: number, readonly headers: ReadonlyMap<string, string>, private readonly session: SpdySession) {}

  write(data: string | Buffer): void {
    if (this.localEnded) return;
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < b.length; at += MAX_DATA_FRAME) this.session.send(dataFrame(this.id, 0, b.subarray(at, at + MAX_DATA_FRAME)));
  }

  /** Half-closes our side (FIN), as a stream's Close() does in spdystream. */
  end(data?: string | Buffer): void {
    if (data !== undefined) this.write(data);
    if (this.localEnded) return;
    this.localEnded = true;
    this.session.send(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
  }

  /** RST_STREAM: the stream is dropped on both sides. */
  reset(): void {
    this.localEnded = true;
    this.session.send(control(RST_STREAM, 0, u32(this.id), u32(RST_CANCEL)));
    this.session.drop(this.id);
  }

  /** The peer's end (FIN or RST); idempotent. */
  remoteEnd(): void {
    if (this.remoteEnded) return;
    this.remoteEnded = true;
    this.onEnd();
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

function control(type: number, flags: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.from([0x80, 0x03, type >> 8, type & 0xff, flags, 0, 0, 0]);
  head.writeUIntBE(body.length, 5, 3);
  return Buffer.concat([head, body]);
}

function dataFrame(id: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id & 0x7fffffff, 0);
  head[4] = flags;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

/**
 * A SPDY session over whatever carries its bytes: `send` writes them (a socket, or WebSocket binary messages),
 * `feed` takes what arrives. `onStream` gets each stream the client opens, after its SYN_REPLY went out.
 */
export class SpdySession {
  private readonly streams = new Map<number, SpdyStream>();
  private buf: Buffer = Buffer.alloc(0);
  private inHeaders: Buffer = Buffer.alloc(0);
  private inflated = 0;
  private outStarted = false;
  private failed = false;
  goneAway = false;

  constructor(private readonly out: (bytes: Buffer) => void, private readonly onStream: (s: SpdyStream) => void, private readonly onFail: (why: string) => void) {}

  send(bytes: Buffer): void {
    if (!this.failed) this.out(bytes);
  }

  drop(id: number): void {
    this.streams.delete(id);
  }

  /** GOAWAY: no new streams; the client closes the connection once it is done with the ones it has. */
  goAway(): void {
    if (this.goneAway) return;
    this.goneAway = true;
    let last = 0;
    for (const id of this.streams.keys()) last = Math.max(last, id);
    this.send(control(GOAWAY, 0, u32(last), u32(0)));
  }

  /** The connection is gone: every stream ends. */
  close(): void {
    for (const s of this.streams.values()) s.remoteEnd();
    this.streams.clear();
  }

  feed(chunk: Buffer): void {
    if (this.failed) return;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    while (this.buf.length >= 8 && !this.failed) {
      const len = this.buf.readUIntBE(5, 3);
      if (len > MAX_FRAME) return this.fail(`frame of ${len} bytes`);
      if (this.buf.length < 8 + len) return;
      const frame = this.buf.subarray(0, 8 + len);
      this.buf = this.buf.subarray(8 + len);
      this.frame(frame);
    }
  }

  private fail(why: string): void {
    this.failed = true;
    this.onFail(why);
  }

  private frame(f: Buffer): void {
    const flags = f[4] as number;
    const body = f.subarray(8);
    if (((f[0] as number) & 0x80) === 0) {
      const s = this.streams.get(f.readUInt32BE(0) & 0x7fffffff);
      if (!s) return;
      if (body.length > 0 && !s.remoteEnded) s.onData(Buffer.from(body));
      if (flags & FLAG_FIN) s.remoteEnd();
      return;
    }
    if ((f.readUInt16BE(0) & 0x7fff) !== 3) return this.fail(`SPDY version ${f.readUInt16BE(0) & 0x7fff}`);
    switch (f.readUInt16BE(2)) {
      case SYN_STREAM: {
        if (body.length < 10) return this.fail('short SYN_STREAM');
        const id = body.readUInt32BE(0) & 0x7fffffff;
        const headers = this.headerBlock(body.subarray(10));
        if (!headers) return;
        if (this.goneAway || id % 2 === 0 || this.streams.has(id)) {
          this.send(control(RST_STREAM, 0, u32(id), u32(1)));
          return;
        }
        const s = new SpdyStream(id, headers, this);
        this.streams.set(id, s);
        this.send(control(SYN_REPLY, 0, u32(id), this.encodeHeaders()));
        if (flags & FLAG_FIN) s.remoteEnded = true;
        this.onStream(s);
        return;
      }
      case HEADERS:
        // Nothing here reads them, but their block is part of the compression stream.
        if (body.length >= 4) this.headerBlock(body.subarray(4));
        return;
      case RST_STREAM: {
        const id = body.length >= 4 ? body.readUInt32BE(0) & 0x7fffffff : 0;
        const s = this.streams.get(id);
        this.streams.delete(id);
        if (s) {
          s.localEnded = true;
          s.remoteEnd();
        }
        return;
      }
      case PING:
        this.send(f);
        return;
      case GOAWAY:
        this.goneAway = true;
        return;
      default:
        // SYN_REPLY (we open no streams), SETTINGS, WINDOW_UPDATE, CREDENTIAL.
        return;
    }
  }

  /**
   * One compressed header block, read as the next part of the session's zlib stream. Node has no synchronous streaming
   * inflater, so each block is inflated together with all the session's blocks before it (bounded: MAX_HEADER_BYTES)
   * and the new output taken; header blocks are tens of bytes.
   */
  private headerBlock(block: Buffer): Map<string, string> | undefined {
    this.inHeaders = Buffer.concat([this.inHeaders, block]);
    if (this.inHeaders.length > MAX_HEADER_BYTES) return void this.fail('too many header bytes');
    let all: Buffer;
    try {
      all = inflateSync(this.inHeaders, { dictionary: SPDY_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    } catch (e: unknown) {
      return void this.fail(`header block: ${String(e)}`);
    }
    const raw = all.subarray(this.inflated);
    this.inflated = all.length;
    const headers = new Map<string, string>();
    let at = 4;
    const count = raw.length >= 4 ? raw.readUInt32BE(0) : 0;
    for (let i = 0; i < count; i++) {
      const name = readString(raw, at);
      if (!name) return void this.fail('header block truncated');
      const value = readString(raw, name.next);
      if (!value) return void this.fail('header block truncated');
      headers.set(name.text.toLowerCase(), value.text.split('\0')[0] ?? '');
      at = value.next;
    }
    return headers;
  }

  /**
   * An empty header block, as the next stored deflate block of our compression stream (zlib's header first), followed
   * by the empty stored block a sync flush writes: inflaters (Go's among them) hand out a stored block's bytes only
   * once they have read the block after it.
   */
  private encodeHeaders(): Buffer {
    const raw = u32(0);
    const stored = Buffer.from([0x00, raw.length & 0xff, raw.length >> 8, ~raw.length & 0xff, (~raw.length >> 8) & 0xff]);
    const start = this.outStarted ? [] : [Buffer.from([0x78, 0x01])];
    this.outStarted = true;
    return Buffer.concat([...start, stored, raw, SYNC_FLUSH]);
  }
}

function readString(b: Buffer, at: number): { text: string; next: number } | undefined {
  if (b.length < at + 4) return undefined;
  const n = b.readUInt32BE(at);
  if (b.length < at + 4 + n) return undefined;
  return { text: b.toString('latin1', at + 4, at + 4 + n), next: at + 4 + n };
}

/** A session on a socket that switched to SPDY: bytes in from the socket (and `head`), frames out to it. */
export function spdyOnSocket(socket: Duplex, head: Buffer, onStream: (s: SpdyStream) => void): SpdySession {
  const session = new SpdySession((b) => {
    if (!socket.destroyed) socket.write(b);
  }, onStream, () => socket.destroy());
  socket.on('data', (chunk: Buffer) => session.feed(chunk));
  socket.on('error', () => undefined);
  socket.on('close', () => session.close());
  if (head.length > 0) session.feed(head);
  return session;
}
