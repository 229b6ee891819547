// Newline-delimited text from a byte stream (watch responses), read only as fast as the consumer takes the lines.
import { StringDecoder } from 'node:string_decoder';

/**
 * The non-blank lines of `body`, without their line ends (\n or \r\n); a last line without a newline counts. The
 * next chunk is read only once the lines of this one are taken: a blocked consumer holds the producer back (TCP,
 * for a response) instead of filling memory. readline, in contrast, reads ahead up to 1,024 lines (~5 MB of pods).
 */
export async function* nonBlankLines(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of body) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, text.charCodeAt(nl - 1) === 13 && nl > start ? nl - 1 : nl);
      start = nl + 1;
      if (line.trim() !== '') yield line;
    }
    rest = text.slice(start);
  }
  rest += decoder.end();
  if (rest.trim() !== '') yield rest;
}
