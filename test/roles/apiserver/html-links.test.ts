// The second rewrite of a proxied page's links: the member's root paths under the cluster's path.
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { prefixHtmlBody, prefixHtmlLinks } from '../../../src/roles/apiserver/html-links.js';

const P = '/apis/clusterpedia.io/v1beta1/resources/clusters/c1';

describe('prefixHtmlLinks', () => {
  it("prefixes root paths in kube's link attributes, quoted either way or bare, whatever the case of tag and attribute", () => {
    expect(prefixHtmlLinks('<a href="/x">a</a><IMG SRC=\'/i.png\'><form action=/post method=post>', P))
      .toBe(`<a href="${P}/x">a</a><IMG SRC='${P}/i.png'><form action=${P}/post method=post>`);
    expect(prefixHtmlLinks('<link rel=stylesheet href="/s.css"><script src="/a.js"></script><video poster="/p.jpg" src="/v.mp4">', P))
      .toBe(`<link rel=stylesheet href="${P}/s.css"><script src="${P}/a.js"></script><video poster="${P}/p.jpg" src="${P}/v.mp4">`);
  });

  it('leaves relative paths, other hosts, other attributes, comments and script and style text alone', () => {
    const page = '<a href="x/y">r</a><a href="//cdn/x">h</a><a href="https://e.com/x">e</a><img alt="/x" src="/i">'
      + '<!-- <a href="/c"> --><script>if (a<b) document.write(\'<a href="/w">\')</script><style>a[href="/s"]{}</style><p title="a>b" data-x="/d">';
    expect(prefixHtmlLinks(page, P)).toBe(page.replace('src="/i"', `src="${P}/i"`));
  });

  it('rewrites a gzip page and gives it back gzipped; other encodings are not touched; bytes of any charset survive', async () => {
    const latin1 = Buffer.from('<p>caf\u00e9</p><a href="/x">', 'latin1');
    expect((await prefixHtmlBody(latin1, '', P))?.toString('latin1')).toBe(`<p>caf\u00e9</p><a href="${P}/x">`);
    const utf8 = Buffer.from('<p>\u00e9\u4e2d</p><a href="/x">');
    expect((await prefixHtmlBody(utf8, 'identity', P))?.toString('utf8')).toBe(`<p>\u00e9\u4e2d</p><a href="${P}/x">`);
    const gz = await prefixHtmlBody(gzipSync('<a href="/x">'), 'gzip', P);
    expect(gunzipSync(gz ?? Buffer.alloc(0)).toString()).toBe(`<a href="${P}/x">`);
    expect(await prefixHtmlBody(Buffer.from('<a href="/x">'), 'br', P)).toBeUndefined();
    expect(await prefixHtmlBody(Buffer.from('not gzip'), 'gzip', P)).toBeUndefined();
  });
});
