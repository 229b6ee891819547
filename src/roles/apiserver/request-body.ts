// A request body read whole, within a bound, without leaving the connection unusable.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, status } from '../../kube/status.js';

/** Past this a body too large is no longer read to its end: the 413 goes out and the connection closes. */
const MAX_DRAINED_BYTES = 16 * 1024 * 1024;

/**
 * Reads the body whole, at most `maxBytes` of it. A larger one is read off to its end and refused (413), so the
 * connection stays usable for the client's next request; one past MAX_DRAINED_BYTES is refused at once and its
 * connection closed after the answer. (Leaving a body half read, as a for-await loop left on a throw does, stalled
 * the client's next request on that connection.)
 */
export function readBody(req: IncomingMessage, res: ServerResponse, signal: AbortSignal, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const tooLarge = (): StatusError => new StatusError(status(413, 'RequestEntityTooLarge', `the request body is larger than ${maxBytes / 1024} KiB`));
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      f();
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (size > MAX_DRAINED_BYTES && !settled) {
        res.shouldKeepAlive = false;
        settle(() => reject(tooLarge()));
      }
    });
    req.on('end', () => settle(() => (size > maxBytes ? reject(tooLarge()) : resolve(Buffer.concat(chunks)))));
    req.on('error', (e) => settle(() => reject(e)));
    req.on('close', () => settle(() => reject(new Error('the client closed the request before its body ended'))));
    // The request's deadline (504) or the server's shutdown: a body still trickling in does not keep the slot.
    const onAbort = (): void => {
      res.shouldKeepAlive = false;
      settle(() => reject(signal.reason));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    req.once('end', () => signal.removeEventListener('abort', onAbort));
  });
}
