// kube-apiserver's proxy rewrites the links of the HTML pages it proxies (its Transport: the URL attributes of the
// tags below, as golang.org/x/net/html finds them) into its own paths, `/api/v1/namespaces/<ns>/services/<s>/proxy/…`.
// Through clusterpedia such a member path needs the cluster's path in front, and so do the member's redirects. This is
// that second rewrite: absolute paths (`/x`, not `//host/x`, `https://…` or `x`) in those attributes get `prefix`.
// Comments and the raw text of script and style elements are left alone, as a tokenizer leaves them. Bytes are read
// as latin1, so that whatever the page's charset every byte but the rewritten links is sent back as it came.
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';

const gunzip = promisify(gunzipCallback);
const gzip = promisify(gzipCallback);

const URL_ATTRS: Readonly<Record<string, readonly string[]>> = {
  a: ['href'], applet: ['codebase'], area: ['href'], audio: ['src'], base: ['href'], blockquote: ['cite'], body: ['background'],
  button: ['formaction'], command: ['icon'], del: ['cite'], embed: ['src'], form: ['action'], frame: ['longdesc', 'src'],
  head: ['profile'], html: ['manifest'], iframe: ['longdesc', 'src'], img: ['longdesc', 'src', 'usemap'], input: ['src', 'usemap', 'formaction'],
  ins: ['cite'], link: ['href'], object: ['classid', 'codebase', 'data', 'usemap'], q: ['cite'], script: ['src'], source: ['src'], video: ['poster', 'src'],
};

/** Whether a URL is a path on the same host from its root: what kube's proxy prefixes. */
export const isRootPath = (url: string): boolean => url.startsWith('/') && !url.startsWith('//');

const TAG = /<!--[\s\S]*?(?:-->|$)|<([a-zA-Z][a-zA-Z0-9]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTR = /(\s)([^\s=/>"']+)(\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g;

function rewriteAttrs(tag: string, attrs: string, prefix: string): string {
  const names = URL_ATTRS[tag];
  if (!names) return attrs;
  return attrs.replace(ATTR, (all: string, space: string, name: string, eq: string, dq?: string, sq?: string, bare?: string) => {
    const value = dq ?? sq ?? bare ?? '';
    if (!names.includes(name.toLowerCase()) || !isRootPath(value.trim())) return all;
    const q = dq !== undefined ? '"' : sq !== undefined ? "'" : '';
    return `${space}${name}${eq}${q}${prefix}${value.trim()}${q}`;
  });
}

/** `html` with the root paths of its link attributes under `prefix`. */
export function prefixHtmlLinks(html: string, prefix: string): string {
  let out = '';
  let from = 0;
  // For finding end tags whatever their case (latin1 text: lowercasing keeps every index where it was).
  let lower: string | undefined;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m !== null; m = TAG.exec(html)) {
    const [whole, rawTag, attrs] = m;
    out += html.slice(from, m.index);
    from = m.index + whole.length;
    if (rawTag === undefined || attrs === undefined) {
      out += whole;
      continue;
    }
    const tag = rawTag.toLowerCase();
    out += `<${rawTag}${rewriteAttrs(tag, attrs, prefix)}>`;
    if (tag === 'script' || tag === 'style') {
      // Raw text up to the element's end tag.
      lower ??= html.toLowerCase();
      const end = lower.indexOf(`</${tag}`, from);
      const stop = end < 0 ? html.length : end;
      out += html.slice(from, stop);
      from = stop;
      TAG.lastIndex = stop;
    }
  }
  return out + html.slice(from);
}

/**
 * A page's body rewritten whatever its encoding allows (none or gzip, as kube's proxy); undefined when it cannot be.
 * A gzipped page (up to the proxy's 10 MiB) is unpacked and packed again on libuv's pool, not on the event loop.
 */
export async function prefixHtmlBody(body: Buffer, encoding: string, prefix: string): Promise<Buffer | undefined> {
  const e = encoding.trim().toLowerCase();
  if (e === '' || e === 'identity') return Buffer.from(prefixHtmlLinks(body.toString('latin1'), prefix), 'latin1');
  if (e !== 'gzip') return undefined;
  try {
    return await gzip(Buffer.from(prefixHtmlLinks((await gunzip(body)).toString('latin1'), prefix), 'latin1'));
  } catch {
    return undefined;
  }
}
