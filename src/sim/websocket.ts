// The server side of RFC 6455 as far as kube's streaming endpoints use it: the handshake with a chosen subprotocol,
// unmasked frames out, masked frames in (the client must mask), ping answered, close echoed. Used by exec and attach
// (the channel protocols) and by port-forward (SPDY tunnelled in binary messages).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, isStatusError, statusBody } from './status.js';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Frames larger than this are refused (a test tool, not a file transfer). */
const MAX_FRAME = 1024 * 1024;

export const WS_BINARY = 2;
export const WS_CLOSE = 8;
const WS_PING = 9;
const WS_PONG = 10;
/** A close frame's payload: 1000, normal closure. */
export const WS_NORMAL_CLOSE = Buffer.from([0x03, 0xe8]);

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** Writes a plain HTTP answer on an upgrade socket and closes it. */
export function answerOnSocket(socket: Duplex, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(`HTTP/1.1 ${code} ${REASONS[code] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`);
}

/** The error of a thrown simulator Status, as an answer on the socket. */
export function failOnSocket(socket: Duplex, e: unknown): void {
  if (isStatusError(e)) answerOnSocket(socket, e.status.code, e.status);
  else answerOnSocket(socket, 500, statusBody(500, 'InternalError', String(e)));
}

/** True when the request asks for a WebSocket (the alternative being SPDY). */
export function isWebSocket(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** Completes the handshake with the first of `protocols` the client offered; throws a 400 Status when it offered none. */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, protocols: readonly string[]): string {
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const protocol = protocols.find((p) => offered.includes(p));
  if (!protocol) throw errors.badRequest(`unable to upgrade: no supported stream protocol offered (${offered.join(', ')})`);
  const accept = createHash('sha1').update(String(req.headers['sec-websocket-key'] ?? '') + WS_GUID).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`);
  return protocol;
}

export function wsFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  let head: Buffer;
  if (n < 126) head = Buffer.from([0x80 | opcode, n]);
  else if (n < 65536) head = Buffer.from([0x80 | opcode, 126, n >> 8, n & 0xff]);
  else {
    head = Buffer.alloc(10);
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/**
 * Reads client frames from `socket` (and `head`, what came with the upgrade): data messages go to `onMessage`, a ping
 * is answered, a close is echoed and the socket ended. An unmasked or oversized frame ends the connection.
 */
export function readWebSocket(socket: Duplex, head: Buffer, onMessage: (opcode: number, payload: Buffer) => void): void {
  let buf: Buffer = Buffer.alloc(0);
  const read = (chunk: Buffer): void => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const opcode = (buf[0] as number) & 0x0f;
      const masked = ((buf[1] as number) & 0x80) !== 0;
      let len = (buf[1] as number) & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      if (len > MAX_FRAME || !masked) return void socket.destroy();
      if (buf.length < off + 4 + len) return;
      const mask = buf.subarray(off, off + 4);
      const payload = Buffer.from(buf.subarray(off + 4, off + 4 + len));
      for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
      buf = buf.subarray(off + 4 + len);
      if (opcode === WS_CLOSE) return void (socket.destroyed || socket.end(wsFrame(WS_CLOSE, WS_NORMAL_CLOSE)));
      if (opcode === WS_PING) socket.write(wsFrame(WS_PONG, payload));
      else if (opcode !== WS_PONG) onMessage(opcode, payload);
    }
  };
  socket.on('data', read);
  socket.on('error', () => undefined);
  if (head.length > 0) read(head);
}
