/**
 * URL normalisation for crawl de-duplication. Two spellings with the same key are
 * the same page and are visited once. The rules:
 *   1. only http and https URLs take part; anything else has no key;
 *   2. scheme and host are lower-cased, the default port (80/443) is dropped,
 *      dot segments (/a/../b) are resolved and an empty path becomes "/"
 *      (the WHATWG URL parser does these);
 *   3. the fragment (#...) is dropped: it never changes what the server sends;
 *   4. a trailing slash is ignored, except for the root: /docs and /docs/ are one page;
 *   5. query parameters are sorted by name (stable, so repeated names keep their
 *      order), an empty "?" is dropped, and tracking parameters (utm_*, gclid,
 *      fbclid, msclkid) are removed;
 *   6. user name and password are dropped.
 * Path case is kept: servers may treat /A and /a as different pages.
 * The crawler fetches the first spelling it met (minus the fragment), not the key,
 * so a server that insists on its own trailing-slash form still gets it.
 */

const TRACKING = /^(utm_[a-z_]+|gclid|fbclid|msclkid)$/i;

/** The decoded name of one `name=value` piece of a query. */
function paramName(piece: string): string {
  const name = piece.split('=', 1)[0]!;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** `href` (against `base`) as the page URL to fetch, parsed; null when it is not a web page URL. */
function parsedPage(href: string, base?: string): URL | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Each setter serialises the URL again: only what is there is taken out.
  if (url.href.includes('#')) url.hash = '';
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  // Tracking parameters never reach the URL fetched or listed (map, crawl), as the docs say; the others keep their order.
  // Taken out as written, so the others are sent spelled as they were (%20 stays %20).
  if (url.search.length > 1) {
    const pieces = url.search.slice(1).split('&');
    const kept = pieces.filter((piece) => !TRACKING.test(paramName(piece)));
    if (kept.length < pieces.length) url.search = kept.join('&');
  }
  return url;
}

/** The page URL to fetch: absolute, http(s), no fragment nor tracking parameters; null when it is not a web page URL. */
export function cleanUrl(href: string, base?: string): string | null {
  return parsedPage(href, base)?.href ?? null;
}

/** The de-duplication key of a URL (rules above); null when it is not an http(s) URL. */
export function normalizeUrl(href: string, base?: string): string | null {
  const url = parsedPage(href, base);
  if (!url) return null;
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  // A query, or an empty "?" (dropped).
  if (url.href.includes('?')) {
    const params = [...url.searchParams].filter(([name]) => !TRACKING.test(name));
    params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = params.length > 0 ? new URLSearchParams(params).toString() : '';
  }
  return url.href;
}

/** Links to files a browser would download rather than render: never worth a tab. */
const NOT_A_PAGE = /\.(jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4[av]|webm|ogg|wav|avi|mov|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|deb|rpm|apk|iso|woff2?|ttf|otf|eot|css|js|mjs|wasm|docx?|xlsx?|pptx?)$/i;

/**
 * Whether `href` may be a page. `pdf`: PDF documents count, for a crawl whose
 * formats a PDF gives (markdown, html: its text is read, see content/pdf.ts).
 */
export function looksLikePage(href: string, { pdf = false } = {}): boolean {
  try {
    const path = new URL(href).pathname;
    return !NOT_A_PAGE.test(path) || (pdf && /\.pdf$/i.test(path));
  } catch {
    return false;
  }
}
