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
  for await (const chunk of body) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (headChars + nl - start > maxLineChars) throw new LineTooLongError(maxLineChars);
      let line = text.slice(start, nl);
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
      head.push(start === 0 ? text : text.slice(start));
      headChars += text.length - start;
      // A line that never ends would otherwise be gathered until memory runs out.
      if (headChars > maxLineChars) throw new LineTooLongError(maxLineChars);
    }
  }
  const last = head.join('') + decoder.end();
  if (last.trim() !== '') yield last;
}

/** A line longer than the reader allows (nonBlankLines' maxLineChars). */
export class LineTooLongError extends Error {
  constructor(readonly maxLineChars: number) {
    super(`a line longer than ${maxLineChars} characters`);
  }
}
