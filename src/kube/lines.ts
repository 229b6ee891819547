// Newline-delimited text from a byte stream (watch responses), read only as fast as the consumer takes the lines.
import { StringDecoder } from 'node:string_decoder';

/**
 * The non-blank lines of `body`, without their line ends (\n or \r\n); a last line without a newline counts. The
 * next chunk is read only once the lines of this one are taken: a blocked consumer holds the producer back (TCP,
 * for a response) instead of filling memory. readline, in contrast, reads ahead up to 1,024 lines (~5 MB of pods).
 */
export async function* nonBlankLines(body: AsyncIterable<Buffer | string>, maxLineChars = Infinity): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  // The start of a line begun in earlier chunks, kept in pieces: a line spread over many chunks is joined once, when
  // its end comes, instead of rescanned (and copied) with every chunk.
  let head: string[] = [];
  let headChars = 0;
  const chunks = body[Symbol.asyncIterator]();
  // Declared out here and emptied before each wait for the next chunk: a generator's locals outlive their block until
  // overwritten, and a chunk (~64 KB decoded) still referenced from one would stay alive through the wait, in every
  // watch at once while their consumer is blocked.
  let next: IteratorResult<Buffer | string> | undefined;
  let text = '';
  let line = '';
  let ended = false;
  try {
    for (;;) {
      next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      text = typeof next.value === 'string' ? next.value : decoder.write(next.value);
      next = undefined;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        if (headChars + nl - start > maxLineChars) throw new LineTooLongError(maxLineChars);
        line = text.slice(start, nl);
        if (headChars > 0) {
          head.push(line);
          line = head.join('');
          head = [];
          headChars = 0;
        }
        if (line.endsWith('\r')) line = line.slice(0, -1);
        start = nl + 1;
        if (line.trim() !== '') yield line;
      }
      if (start < text.length) {
        // The start of the next line is copied out of the chunk, for the same reason: a slice would keep the chunk.
        head.push(start === 0 ? text : detached(text.slice(start)));
        headChars += text.length - start;
        // A line that never ends would otherwise be gathered until memory runs out.
        if (headChars > maxLineChars) throw new LineTooLongError(maxLineChars);
      }
      text = '';
      line = '';
    }
  } finally {
    // As for await would: a consumer that stops early, or a line too long, ends the body (the member's response).
    if (!ended) await chunks.return?.();
  }
  const last = head.join('') + decoder.end();
  if (last.trim() !== '') yield last;
}

/** A copy of `s` that shares no memory with the string it was sliced from. */
function detached(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** A line longer than the reader allows (nonBlankLines' maxLineChars). */
export class LineTooLongError extends Error {
  constructor(readonly maxLineChars: number) {
    super(`a line longer than ${maxLineChars} characters`);
  }
}
