/** URL normalisation (api/normalizeUrl.ts): the page URL to fetch and the crawl's de-duplication key, rule by rule. */
import { describe, expect, it } from 'vitest';
import { cleanUrl, normalizeUrl } from '../src/api/normalizeUrl.js';

describe('cleanUrl and normalizeUrl', () => {
  // [href, base, cleanUrl, normalizeUrl]
  const cases: [string, string | undefined, string | null, string | null][] = [
    ['http://A.com:80/x/../y/?b=2&a=1#f', undefined, 'http://a.com/y/?b=2&a=1', 'http://a.com/y?a=1&b=2'],
    ['https://u:p@h.com/a//b/', undefined, 'https://h.com/a//b/', 'https://h.com/a//b'],
    ['http://h/a?', undefined, 'http://h/a?', 'http://h/a'],
    ['http://h/a?#', undefined, 'http://h/a?', 'http://h/a'],
    ['http://@h/', undefined, 'http://h/', 'http://h/'],
    ['http://h/p?utm_source=x&z=&a=%20&a=2&gclid=1', undefined, 'http://h/p?z=&a=%20&a=2', 'http://h/p?a=+&a=2&z='],
    // Tracking parameters only: no query left (issue 56: map and crawl listed ?utm_source=...).
    ['http://h/p?utm_source=news&utm_medium=mail', undefined, 'http://h/p', 'http://h/p'],
    ['HTTP://h:443/', undefined, 'http://h:443/', 'http://h:443/'],
    ['https://h:443/a/b//', undefined, 'https://h/a/b//', 'https://h/a/b'],
    ['http://[::1]:8080/a/', undefined, 'http://[::1]:8080/a/', 'http://[::1]:8080/a'],
    ['mailto:x@y', undefined, null, null],
    ['/rel/path/?q=1#x', 'http://base.com/dir/page?x#y', 'http://base.com/rel/path/?q=1', 'http://base.com/rel/path?q=1'],
    ['rel?x', 'http://base.com/dir/page?x#y', 'http://base.com/dir/rel?x', 'http://base.com/dir/rel?x='],
    ['http://h/?a=1&a=0&b', undefined, 'http://h/?a=1&a=0&b', 'http://h/?a=1&a=0&b='],
    ['http://h/ä?ö=ü#ß', undefined, 'http://h/%C3%A4?%C3%B6=%C3%BC', 'http://h/%C3%A4?%C3%B6=%C3%BC'],
    ['http://h/a?b#c?d', undefined, 'http://h/a?b', 'http://h/a?b='],
    ['https://h/?q=a+b&p=a%2Bb', undefined, 'https://h/?q=a+b&p=a%2Bb', 'https://h/?p=a%2Bb&q=a+b'],
    ['not a url', undefined, null, null],
  ];
  it.each(cases)('%s (base %s)', (href, base, clean, key) => {
    expect(cleanUrl(href, base)).toBe(clean);
    expect(normalizeUrl(href, base)).toBe(key);
  });
});
