// JsonIndenter indents as JSON.stringify(v, null, 2) does (Go's json.Indent with two spaces: kube's `pretty`),
// wherever the chunks are cut: inside strings, escapes and multi-byte characters too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonIndenter } from '../../src/lib/json-indent.js';

function indent(text: string, cuts: number[]): string {
  const bytes = Buffer.from(text);
  const ind = new JsonIndenter();
  const out: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    out.push(ind.push(bytes.subarray(from, Math.max(from, at))));
    from = Math.max(from, at);
  }
  out.push(ind.end());
  return Buffer.concat(out).toString();
}

describe('JsonIndenter', () => {
  it('gives what JSON.stringify(v, null, 2) gives, plus a newline, for any value cut anywhere', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 8 }), (v, cuts) => {
      expect(indent(JSON.stringify(v), cuts)).toBe(`${JSON.stringify(v, null, 2)}\n`);
    }), { numRuns: 500 });
  });

  it('keeps strings as they are: brackets, commas, colons, escaped quotes and backslashes, emoji cut in half', () => {
    const v = { 'a:b': 'x,y:{}[] "q" \\ \\" ✓ 🚀', e: {}, f: [], n: [1, [2, []], { m: null }] };
    const text = JSON.stringify(v);
    for (let cut = 0; cut <= Buffer.byteLength(text); cut++) expect(indent(text, [cut])).toBe(`${JSON.stringify(v, null, 2)}\n`);
  });

  it('drops whitespace between tokens, as Go\'s json.Indent does', () => {
    expect(indent('{ "a" : [ 1 , 2 ] ,\n "b" : { } }', [])).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}\n');
  });
});
