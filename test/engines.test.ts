/**
 * --engine auto|http|browser through the real CLI against pages on 127.0.0.1:
 * which engine reads which page and why, a machine without Chromium (the browser
 * lookup pointed at a missing file), and the choice rules themselves.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentLength, mediaNeedsBrowser, optionsNeedBrowser, pageNeedsBrowser } from '../src/engine/http/choice.js';
import { decodeAs, decodePrefix, sniffEncoding, type Encoding } from '../src/engine/http/charset.js';
import { decodedText, fetchPage, refreshTarget } from '../src/engine/http/fetchPage.js';
import type { PageSignals } from '../src/engine/http/signals.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const article = (title: string) => html(`<nav><a href="/">Home</a></nav><article><h1>${title}</h1>${articleText(title)}</article>`, { title });

/** A single-page application: nothing but an empty mount point until its script runs. */
const appShell = html(
  `<div id="root"></div><script>document.getElementById('root').innerHTML = '<article><h1>Rendered by script</h1>' + ${JSON.stringify(articleText('the rendered app'))} + '</article>';</script>`,
  { title: 'App' },
);

/** Some static text, the article itself written by a script. */
const scriptedArticle = html(
  `<header><a href="/">Site name</a> <a href="/a">Section A</a> <a href="/b">Section B</a></header><p>${'A line of site chrome that every page shows. '.repeat(8)}</p><main id="story"></main>` +
    `<script>document.getElementById('story').innerHTML = '<article><h1>Late story</h1>' + ${JSON.stringify(articleText('the late story'))} + '</article>';</script>`,
  { title: 'Scripted' },
);

/** A static article, its comments added by a script. */
const withComments = article('Commented story').replace(
  '</body>',
  `<div id="comments-mount"></div><script>document.getElementById('comments-mount').innerHTML = '<div class="comments"><p>First comment, written by script.</p></div>';</script></body>`,
);

const challenge = html('<div id="challenge-stage"></div><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/jsch/v1"></script>', { title: 'Just a moment...' });

/** A page streamed by React: its article arrives after the shell in hidden parts, put in place by `$RC` calls (or not). */
const streamed = (withCalls: boolean) =>
  html(
    `<main><h1>Streamed story</h1>${articleText('the shell', 5)}<!--$?--><template id="B:0"></template><div>Loading paragraph...</div><!--/$--><p>The closing words of the streamed story.</p></main>
    <div hidden id="S:0">${articleText('streamed parts', 3)}</div>${withCalls ? '<script>$RC("B:0","S:0")</script>' : ''}`,
    { title: 'Streamed story' },
  );

let site: FixtureServer;
let other: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const noBrowser = { WEBJOBS_HOME: home, WEBJOBS_CHROME: '/nonexistent/chromium' };

beforeAll(async () => {
  site = await startFixtureServer({
    '/static': (_req, res) => sendHtml(res, article('Static story')),
    '/static-with-scripts': (_req, res) => sendHtml(res, article('Static story with analytics').replace('</body>', '<script>window.analytics = 1;</script></body>')),
    '/app': (_req, res) => sendHtml(res, appShell),
    '/scripted': (_req, res) => sendHtml(res, scriptedArticle),
    '/challenge': (_req, res) => sendHtml(res, challenge, 503),
    '/comments': (_req, res) => sendHtml(res, withComments),
    '/redirect': (_req, res) => {
      res.writeHead(302, { location: '/static' }).end();
    },
    '/private': (req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from('alice:pa ss').toString('base64')}`) return sendHtml(res, article('Who are you'), 401);
      sendHtml(res, article('Members only story'));
    },
    // Markup a browser forgives: no html, head or body; a banner written inside <head>; a "!" right before a link.
    '/fragment': (_req, res) => sendHtml(res, `<div class="post"><h2>A page sent as a fragment</h2>${articleText('fragments')}</div>`),
    '/banner-in-head': (_req, res) =>
      sendHtml(res, `<!DOCTYPE html><html><head><title>Banner page</title><div class="bulletin">Important update: we are open as usual.</div></head><body><article><h1>Banner page</h1>${articleText('banners')}</article></body></html>`),
    '/cdata': (_req, res) => sendHtml(res, html(`<![CDATA[\n<div id="top"></div>\n<article><h1>After a stray CDATA</h1>${articleText('stray markup')}</article>`, { title: 'After a stray CDATA' })),
    '/bang': (_req, res) => sendHtml(res, article('Exclaimed').replace('</article>', '<p>Wow!<a href="/elsewhere">the link after it</a> stays a link, not an image.</p></article>')),
    // React's streaming rendering with its runtime's calls, and without them (as a saved page has it).
    '/streamed': (_req, res) => sendHtml(res, streamed(true)),
    '/streamed-bare': (_req, res) => sendHtml(res, streamed(false)),
    '/private-elsewhere': (_req, res) => {
      res.writeHead(302, { location: other.at('/who') }).end();
    },
  });
  other = await startFixtureServer({
    '/who': (req, res) => sendHtml(res, article(req.headers.authorization ? 'Credentials leaked' : 'No credentials here')),
  });
});

afterAll(async () => {
  await site?.close();
  await other?.close();
});

const scrapeJson = async (args: string[], environment: NodeJS.ProcessEnv = env) => {
  const result = await runCli(['scrape', ...args, '--json'], { env: environment });
  return { ...result, record: result.stdout ? JSON.parse(result.stdout) : undefined };
};

describe('--engine auto (the default)', () => {
  it('reads a static page over HTTP', async () => {
    const { code, record } = await scrapeJson([site.at('/static-with-scripts')]);
    expect(code).toBe(0);
    expect(record.data.metadata.engine).toBe('http');
    expect(record.data.markdown).toContain('# Static story with analytics');
    expect(record.data.markdown).not.toContain('Home');
  });

  it('loads none of what only the browser, serve, extract or a proxy needs when it reads a page over HTTP', async () => {
    // Every module the run resolves, recorded by a loader hook (the main thread's at least; workers' too where hooks reach them).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-modules-'));
    const log = path.join(dir, 'modules.log');
    writeFileSync(
      path.join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
  return resolved;
}`,
    );
    writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});\n`);
    const register = `--import=${pathToFileURL(path.join(dir, 'register.mjs')).href}`;
    const { code, record } = await scrapeJson([site.at('/static')], { ...env, NODE_OPTIONS: [process.env.NODE_OPTIONS, register].filter(Boolean).join(' ') });
    expect(code).toBe(0);
    expect(record.data.metadata.engine).toBe('http');
    const loaded = readFileSync(log, 'utf8');
    rmSync(dir, { recursive: true, force: true });
    expect(loaded).toContain('/engine/http/httpScrape.js');
    const heavy = ['puppeteer', 'puppeteer-core', 'fastify', '@anthropic-ai/sdk', 'ajv', 'pdfjs-dist', 'undici', '@modelcontextprotocol/sdk', 'pg', 'pg-boss', 'jsdom'];
    expect(heavy.filter((name) => loaded.includes(`/node_modules/${name}/`))).toEqual([]);
  });

  it("keeps the content code and undici out of the CLI's main thread: the extraction worker loads the first, nothing the second", async () => {
    // A preload of the main thread's: at exit, the CommonJS modules it loaded (turndown and Readability are) and
    // whether Node's internal undici was loaded (an ES import of node:http loads it, for its WebSocket getter).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-main-thread-'));
    const log = path.join(dir, 'main.json');
    writeFileSync(
      path.join(dir, 'preload.cjs'),
      `const { isMainThread } = require('node:worker_threads');
if (isMainThread) process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, JSON.stringify({
  cjs: Object.keys(require('node:module')._cache),
  undici: process.moduleLoadList.some((name) => name.includes('undici')),
})));`,
    );
    const preload = `--require=${path.join(dir, 'preload.cjs')}`;
    const { code, record } = await scrapeJson([site.at('/static')], { ...env, NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' ') });
    expect(code).toBe(0);
    expect(record.data.markdown).toContain('Static');
    const main = JSON.parse(readFileSync(log, 'utf8')) as { cjs: string[]; undici: boolean };
    rmSync(dir, { recursive: true, force: true });
    expect(main.cjs.filter((file) => /node_modules\/(turndown|turndown-plugin-gfm|@mozilla\/readability|linkedom)\//.test(file))).toEqual([]);
    expect(main.undici).toBe(false);
  });

  it('follows redirects over HTTP', async () => {
    const { record } = await scrapeJson([site.at('/redirect')]);
    expect(record.data.metadata.engine).toBe('http');
    expect(record.data.metadata.url).toBe(site.at('/static'));
    expect(record.data.metadata.sourceURL).toBe(site.at('/redirect'));
  });

  it("sends a URL's user name and password as Basic authentication to its origin only, as a browser does", async () => {
    const withCredentials = (path: string) => site.at(path).replace('http://', 'http://alice:pa%20ss@');
    const { code, record } = await scrapeJson([withCredentials('/private')]);
    expect(code).toBe(0);
    expect(record.data.metadata.engine).toBe('http');
    expect(record.data.markdown).toContain('Members only story');
    const elsewhere = await scrapeJson([withCredentials('/private-elsewhere')]);
    expect(elsewhere.record.data.markdown).toContain('No credentials here');
  });

  it('renders an application shell in Chromium, and says why', async () => {
    const { code, record } = await scrapeJson([site.at('/app')]);
    expect(code).toBe(0);
    expect(record.data.metadata.engine).toBe('browser');
    expect(record.data.metadata.engineReason).toMatch(/application shell: #root is empty/);
    expect(record.data.markdown).toContain('Rendered by script');
  });

  it('renders a page whose content a script writes', async () => {
    const { record } = await scrapeJson([site.at('/scripted')]);
    expect(record.data.metadata.engine).toBe('browser');
    expect(record.data.markdown).toContain('the late story');
  });

  it('renders in Chromium when waitFor asks to wait for scripts', async () => {
    const { record } = await scrapeJson([site.at('/static'), '--wait-for', '10']);
    expect(record.data.metadata.engine).toBe('browser');
    expect(record.data.metadata.engineReason).toMatch(/waitFor/);
  });

  it('renders in Chromium when includeTags match nothing in the HTML as served', async () => {
    const { record } = await scrapeJson([site.at('/comments'), '--include-tags', '.comments']);
    expect(record.data.metadata.engine).toBe('browser');
    expect(record.data.metadata.engineReason).toMatch(/includeTags/);
    expect(record.data.markdown).toContain('First comment, written by script.');
  });
});

describe('--engine http and --engine browser', () => {
  it('http reads even a page that needs scripts, with a warning that says so', async () => {
    const { code, record } = await scrapeJson([site.at('/app'), '--engine', 'http']);
    expect(code).toBe(0);
    expect(record.data.metadata.engine).toBe('http');
    expect(record.data.markdown).not.toContain('Rendered by script');
    expect(record.data.metadata.warning).toMatch(/may need a browser \(an application shell/);
  });

  it('browser renders a static page too', async () => {
    const { record } = await scrapeJson([site.at('/static'), '--engine', 'browser']);
    expect(record.data.metadata.engine).toBe('browser');
    expect(record.data.metadata.engineReason).toBeUndefined();
  });

  it('rejects an unknown engine', async () => {
    const { code, stderr } = await runCli(['scrape', site.at('/static'), '--engine', 'curl'], { env });
    expect(code).toBe(2);
    expect(stderr).toMatch(/--engine.*curl.*auto, http, browser/s);
  });
});

describe('markup a browser forgives, over HTTP', () => {
  it.each([
    ['/fragment', 'a page with no html, head or body tags', 'A page sent as a fragment'],
    ['/banner-in-head', 'a banner written inside <head>', 'Banner page'],
    ['/cdata', 'a stray "<![CDATA[" in the body', 'Paragraph 6 about stray markup'],
    ['/bang', 'a "!" right before a link', 'Wow\\![the link after it]('],
    ['/streamed', "a page React streamed, whose runtime's calls did not run", 'Paragraph 3 about streamed parts'],
    ['/streamed-bare', 'a page React streamed, saved without its calls', 'Paragraph 3 about streamed parts'],
  ])('%s: %s is read as a browser reads it', async (path, _what, expected) => {
    const overHttp = await scrapeJson([site.at(path), '--engine', 'http']);
    expect(overHttp.stderr).toBe('');
    expect(overHttp.code).toBe(0);
    expect(overHttp.record.data.markdown).toContain(expected);
    const inChromium = await scrapeJson([site.at(path), '--engine', 'browser']);
    expect(overHttp.record.data.markdown).toBe(inChromium.record.data.markdown);
  });
});

describe("React's streamed parts", () => {
  it('are put where their calls say, over the fallback, before what follows them', async () => {
    const { record } = await scrapeJson([site.at('/streamed'), '--engine', 'http']);
    const markdown: string = record.data.markdown;
    expect(markdown).not.toContain('Loading paragraph');
    expect(markdown.indexOf('Paragraph 1 about streamed parts')).toBeLessThan(markdown.indexOf('The closing words of the streamed story'));
  });
});

describe('without Chromium', () => {
  it('scrapes a page that needs no browser', async () => {
    const { code, record } = await scrapeJson([site.at('/static')], noBrowser);
    expect(code).toBe(0);
    expect(record.data.metadata.engine).toBe('http');
    expect(record.data.markdown).toContain('Static story');
  });

  it('fails only the page that needs one, saying why and how to get a browser', async () => {
    const { code, stdout } = await runCli(['batch', site.at('/static'), site.at('/app'), '--jsonl'], { env: noBrowser });
    expect(code).toBe(3);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    // Lines come as pages finish.
    const staticPage = lines.find((line) => line.url === site.at('/static'));
    const app = lines.find((line) => line.url === site.at('/app'));
    expect(staticPage).toMatchObject({ url: site.at('/static'), status: 'completed', metadata: { engine: 'http' } });
    expect(app).toMatchObject({ url: site.at('/app'), status: 'failed' });
    expect(app.error).toContain(`${site.at('/app')} needs a browser (an application shell: #root is empty until scripts fill it)`);
    expect(app.error).toContain('WEBJOBS_CHROME is set to /nonexistent/chromium, but no file is there');
  });

  it('fails a bot challenge page the same way: it is never returned as the content', async () => {
    const { code, stderr } = await runCli(['scrape', site.at('/challenge')], { env: noBrowser });
    expect(code).toBe(1);
    expect(stderr).toContain('needs a browser (the response looks like a Cloudflare challenge (HTTP 503))');
  });

  it('--engine browser fails before the job starts, with exit code 6', async () => {
    const { code, stderr } = await runCli(['scrape', site.at('/static'), '--engine', 'browser'], { env: noBrowser });
    expect(code).toBe(6);
    expect(stderr).toContain('WEBJOBS_CHROME is set to /nonexistent/chromium');
  });
});

describe('choice rules', () => {
  const signals = (over: Partial<PageSignals>): PageSignals => ({ textLength: 5000, scripts: 3, asksForJavaScript: false, ...over });
  const extraction = (over: Partial<PageSignals>, markdown = 'x'.repeat(2000)) => ({ signals: signals(over), contentLength: contentLength(markdown) });
  const options = { formats: ['markdown' as const] };

  it('options that wait for scripts need a browser; the defaults do not', () => {
    expect(optionsNeedBrowser({ waitFor: 0, waitUntil: 'load' })).toBeUndefined();
    expect(optionsNeedBrowser({ waitFor: 500, waitUntil: 'load' })).toMatch(/waitFor 500/);
    expect(optionsNeedBrowser({ waitFor: 0, waitUntil: 'networkidle' })).toMatch(/waitUntil networkidle/);
  });

  it('a page without scripts never needs a browser, however little it holds', () => {
    expect(pageNeedsBrowser({ status: 200 }, extraction({ scripts: 0, textLength: 10, emptyMount: '#root' }, 'hi'), options)).toBeUndefined();
  });

  it('a challenge needs a browser, scripts or not', () => {
    expect(pageNeedsBrowser({ status: 403 }, extraction({ scripts: 0, challenge: 'a DataDome challenge' }), options)).toMatch(/DataDome challenge \(HTTP 403\)/);
  });

  it('app shells, near-empty pages and short content need a browser when the page has scripts', () => {
    expect(pageNeedsBrowser({ status: 200 }, extraction({ textLength: 400, emptyMount: '#__next' }), options)).toMatch(/#__next is empty/);
    expect(pageNeedsBrowser({ status: 200 }, extraction({ textLength: 400, asksForJavaScript: true }), options)).toMatch(/asks for JavaScript/);
    expect(pageNeedsBrowser({ status: 200 }, extraction({ textLength: 100 }), options)).toMatch(/almost no text/);
    expect(pageNeedsBrowser({ status: 200 }, extraction({ textLength: 3000 }, 'a short teaser'), options)).toMatch(/short content: 14 characters of the page's 3000/);
    expect(pageNeedsBrowser({ status: 200 }, extraction({ includeTagsMatched: false }), options)).toMatch(/includeTags/);
  });

  it('a long page with an empty mount point, or a short page that is all content, is read over HTTP', () => {
    expect(pageNeedsBrowser({ status: 200 }, extraction({ textLength: 5000, emptyMount: '#app' }), options)).toBeUndefined();
    expect(pageNeedsBrowser({ status: 200 }, extraction({ textLength: 300 }, 'x'.repeat(200)), options)).toBeUndefined();
  });

  it('XML goes to the browser, XHTML does not', () => {
    expect(mediaNeedsBrowser('application/rss+xml')).toMatch(/XML/);
    expect(mediaNeedsBrowser('text/xml')).toMatch(/XML/);
    expect(mediaNeedsBrowser('application/xhtml+xml')).toBeUndefined();
    expect(mediaNeedsBrowser('text/html')).toBeUndefined();
  });

  it('counts content text without link targets and markup', () => {
    expect(contentLength('# Title\n\n[a link](https://example.com/a/very/long/path)')).toBe('Title a link'.length);
  });
});

describe('character sets over HTTP', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');
  /** What the HTTP engine makes of a body: the charset fetchPage picks, and the text the worker decodes with it. */
  const decodeHtml = (body: Uint8Array, contentType: string | undefined) => {
    const encoding = sniffEncoding(body, contentType);
    return { text: decodeAs(body, encoding), charset: encoding.charset };
  };
  it('takes a byte order mark over the header, the header over a meta tag', () => {
    expect(decodeHtml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>café</p>')]), 'text/html; charset=iso-8859-1')).toEqual({ text: '<p>café</p>', charset: 'utf-8' });
    expect(decodeHtml(bytes('<meta charset="utf-8"><p>caf\u00e9</p>'), 'text/html; charset=ISO-8859-1').text).toContain('café');
  });

  it('reads a meta charset or http-equiv, and windows-1252 bytes 0x80-0x9F as a browser does', () => {
    expect(decodeHtml(Buffer.concat([bytes('<meta charset=windows-1252><p>'), Buffer.from([0x93, 0x80, 0x94])]), 'text/html').text).toContain('“€”');
    expect(decodeHtml(Buffer.concat([bytes('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>'), Buffer.from([0x96])]), undefined).text).toContain('–');
  });

  it('without any declaration: UTF-8 when the bytes are UTF-8, else windows-1252', () => {
    expect(decodeHtml(Buffer.from('<p>naïve</p>'), 'text/html')).toEqual({ text: '<p>naïve</p>', charset: 'utf-8' });
    expect(decodeHtml(bytes('<p>na\u00efve</p>'), 'text/html')).toEqual({ text: '<p>naïve</p>', charset: 'windows-1252' });
  });

  it('decodes the first characters of a page alone as they are in the whole page', () => {
    // Characters of 1 to 4 bytes (in UTF-8) across each window's edge, a byte order mark, a sequence cut short at the end.
    const text = 'a€😀ü'.repeat(9_000) + 'x';
    const pages: Array<[Buffer, Encoding]> = [
      [Buffer.from(text), { charset: 'utf-8', bom: 0 }],
      [Buffer.concat([Buffer.from(text), Buffer.from([0xe2, 0x82])]), { charset: 'utf-8', bom: 0 }],
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), { charset: 'utf-16le', bom: 2 }],
      [Buffer.from('\x93ü'.repeat(40_000), 'latin1'), { charset: 'windows-1252', bom: 0 }],
    ];
    for (const [page, encoding] of pages) {
      for (const units of [1, 2, 3, 1000, 65_535, 65_536, 200_000]) expect(decodePrefix(page, encoding, units)).toBe(decodeAs(page, encoding).slice(0, units));
    }
  });
});

describe('meta refresh', () => {
  it('follows a refresh due soon, resolved against the page', () => {
    expect(refreshTarget('<meta http-equiv="refresh" content="0; url=/next">', 'http://h/a/b')).toBe('http://h/next');
    expect(refreshTarget('<meta http-equiv="refresh" content="600; url=/later">', 'http://h/')).toBeUndefined();
    expect(refreshTarget('<meta http-equiv="refresh" content="30">', 'http://h/')).toBeUndefined();
    // CNN's pages send old Internet Explorers elsewhere, in a conditional comment.
    expect(refreshTarget('<!--[if lte IE 9]><meta http-equiv="refresh" content="1;url=/unsupp.html" /><![endif]-->', 'http://h/')).toBeUndefined();
  });

  // fetchPage reads only the head's bytes for a refresh: the first 65,536 characters, however many bytes they take.
  describe('over HTTP, in the characters of any charset', () => {
    let pages: FixtureServer;
    const refresh = (to: string, word = 'refresh') => `<meta http-equiv="${word}" content="0; url=${to}">`;
    const send = (type: string, body: Buffer) => (_req: unknown, res: import('node:http').ServerResponse) => res.writeHead(200, { 'content-type': type }).end(body);
    const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    beforeAll(async () => {
      pages = await startFixtureServer({
        '/done': (_req, res) => sendHtml(res, html('<p>Arrived</p>')),
        // 40,000 three-byte characters: the refresh is past the first 65,536 bytes, within the first 65,536 characters.
        '/far-utf8': send('text/html; charset=utf-8', Buffer.from(`<html><head><title>${'€'.repeat(40_000)}</title>${refresh('/done')}</head><body>x</body></html>`)),
        '/too-far': send('text/html; charset=utf-8', Buffer.from(`<html><head><title>${'a'.repeat(70_000)}</title>${refresh('/done')}</head><body>x</body></html>`)),
        '/utf16': send('text/html', utf16le(`<html><head>${refresh('/done')}</head><body>x</body></html>`)),
        '/shouting': send('text/html; charset=windows-1252', Buffer.from(`<html><head>${refresh('/done', 'REFRESH')}</head><body>\x93x\x94</body></html>`, 'latin1')),
        '/none': send('text/html', Buffer.from(`<html><head><title>${'ü'.repeat(50_000)}</title></head><body>x</body></html>`, 'latin1')),
      });
    });
    afterAll(() => pages?.close());
    const fetcher = (url: string, init: { timeoutMs: number; signal?: AbortSignal; headers: Record<string, string> }) =>
      fetch(url, { headers: init.headers, signal: AbortSignal.timeout(init.timeoutMs), redirect: 'manual' });
    const land = async (path: string) => (await fetchPage(fetcher, pages.at(path), { timeoutMs: 10_000, userAgent: 'test' })).url;

    it('follows a refresh within the first 65,536 characters, in UTF-8, UTF-16 and windows-1252, in any case', async () => {
      expect(await land('/far-utf8')).toBe(pages.at('/done'));
      expect(await land('/utf16')).toBe(pages.at('/done'));
      expect(await land('/shouting')).toBe(pages.at('/done'));
    });

    it('not one further on, nor on a page without one', async () => {
      expect(await land('/too-far')).toBe(pages.at('/too-far'));
      const page = await fetchPage(fetcher, pages.at('/none'), { timeoutMs: 10_000, userAgent: 'test' });
      expect(page.url).toBe(pages.at('/none'));
      expect(page.encoding).toEqual({ charset: 'windows-1252', bom: 0 });
      expect(decodedText(page)).toContain('ü'.repeat(50_000));
    });
  });
});

describe('a page read in the extraction worker from its bytes', () => {
  let pages: FixtureServer;
  beforeAll(async () => {
    const text = html(`<article><h1>Größe ${'ü'}</h1>${articleText('the UTF-16 page')}</article>`, { title: 'Wide' }).replace('<meta charset="utf-8">', '');
    pages = await startFixtureServer({
      '/utf16': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])),
      '/plain': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=windows-1252' }).end(Buffer.from('a < b \x93quoted\x94', 'latin1')),
    });
  });
  afterAll(() => pages?.close());

  it('decodes it by the charset found on the main thread, and the rawHtml format gets the same text', async () => {
    const { code, record } = await scrapeJson([pages.at('/utf16'), '--engine', 'http', '--formats', 'markdown,rawHtml']);
    expect(code).toBe(0);
    expect(record.data.markdown).toContain('# Größe ü');
    expect(record.data.rawHtml).toContain('<h1>Größe ü</h1>');
    const plain = await scrapeJson([pages.at('/plain'), '--engine', 'http', '--formats', 'markdown']);
    expect(plain.record.data.markdown).toContain('a < b “quoted”');
  });
});
