// Newline-delimited text from a byte stream (watch responses), read only as fast as the consumer takes the lines.

/**
 * The non-blank lines of `body`, without their line ends (\n or \r\n); a last line without a newline counts. The
 * next chunk is read only once the lines of this one are taken: a blocked consumer holds the producer back (TCP,
 * for a response) instead of filling memory. readline, in contrast, reads ahead up to 1,024 lines (~5 MB of pods).
 *
 * Lines are cut in the bytes and decoded one at a time (a newline byte never occurs inside a UTF-8 sequence), so a
 * consumer blocked on one line holds that line's text, not the whole chunk decoded: with 300 watches blocked on a
 * full write queue, decoding whole 64 KB chunks kept ~19 MB of text alive.
 */
export async function* nonBlankLines(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  // The bytes of a line begun in earlier chunks, copied so that the chunk itself can be freed.
  let head: Buffer[] = [];
  for await (const raw of body) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      let line: string;
      if (head.length > 0) {
        head.push(chunk.subarray(start, nl));
        line = decodeLine(Buffer.concat(head));
        head = [];
      } else {
        line = decodeLine(chunk, start, nl);
      }
      start = nl + 1;
      if (line.trim() !== '') yield line;
    }
    if (start < chunk.length) head.push(Buffer.from(chunk.subarray(start)));
  }
  if (head.length > 0) {
    const line = decodeLine(Buffer.concat(head));
    if (line.trim() !== '') yield line;
  }
}

/** The text of bytes [start, end) without a trailing \r. */
function decodeLine(buf: Buffer, start = 0, end = buf.length): string {
  return buf.toString('utf8', start, end > start && buf[end - 1] === 13 ? end - 1 : end);
}
