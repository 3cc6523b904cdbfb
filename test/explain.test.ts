/**
 * Main content at the command line (issue 39): --explain (§2), which main-content pass removed which
 * block of the page, and why, on stderr; in metadata.explain with --json and on serve
 * (scrapeOptions.explain); asking for the trace never changes the content. The headline (§3): the
 * Markdown opens with it, and scrape --front-matter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { validateScrapeOptions } from '../src/api/validate.js';

const KEY = 'explain-test-key-0123456789';
const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;

const PAGE = html(
  `<header><nav><a href="/">Home</a> <a href="/garden">Garden</a> <a href="/kitchen">Kitchen</a></nav></header>
  <main>
    <div class="cookie-banner">We use cookies to improve your experience. Accept all cookies, or choose which ones we may set.</div>
    <article><h1>Growing tomatoes on a balcony</h1>${articleText('tomatoes on a balcony')}<p>Share this article</p></article>
    <aside><h2>Recent posts</h2><ul><li><a href="/a">Ten tips for a tidy garage</a></li><li><a href="/b">Pruning roses in winter</a></li></ul></aside>
  </main>
  <footer>© 2025 Garden Weekly. All rights reserved.</footer>`,
  { title: 'Growing tomatoes on a balcony', head: '<script type="application/ld+json">{"@type":"NewsArticle","headline":"Growing tomatoes"}</script>' },
);

const GERMAN = Array.from(
  { length: 4 },
  (_, i) => `<p>Absatz ${i + 1}: Die Stadt baut bis zum Sommer drei neue Radwege durch die Innenstadt, und die Arbeiten sollen den Verkehr nur wenig behindern, sagte die Baudezernentin am Dienstag.</p>`,
).join('');

beforeAll(async () => {
  site = await startFixtureServer({
    '/tomatoes': (_req, res) => sendHtml(res, PAGE),
    '/radwege': (_req, res) =>
      sendHtml(res, html(`<main><article><h1>Neue Radwege</h1>${GERMAN}<p>Schreiben Sie einen Kommentar</p></article></main>`, { title: 'Neue Radwege | Stadtblatt', lang: 'de' })),
    '/peppers': (_req, res) => sendHtml(res, html(`<main><article><h1>Peppers</h1>${articleText('peppers')}</article></main>`, { title: 'Peppers' })),
    '/untitled': (_req, res) => sendHtml(res, html(`<main><article>${articleText('an untitled note')}</article></main>`, { title: '' })),
  });
});

afterAll(async () => {
  await site?.close();
});

describe.each(['http', 'browser'])('scrape --explain, engine %s', (engine) => {
  it('says which pass removed which block and why, and Readability’s pick against the region; the content is the same as without it', async () => {
    const url = `${site.url}/tomatoes`;
    const plain = await runCli(['scrape', url, '--engine', engine], { env });
    const explained = await runCli(['scrape', url, '--engine', engine, '--explain'], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toBe(plain.stdout);
    expect(plain.stderr).not.toContain('explain');
    const trace = explained.stderr;
    expect(trace).toContain(`webjobs: explain ${url}`);
    expect(trace).toContain('page: the page says it is an article');
    expect(trace).toMatch(/region: the main region is <main>: \d+ characters, \d+% of the page's text; removed 2 blocks/);
    expect(trace).toMatch(/<footer> "© 2025 Garden Weekly\. All rights reserved\." \(42 characters\): outside the main region/);
    expect(trace).toMatch(/<div class="cookie-banner"> "We use cookies.*" \(\d+ characters\): furniture by its name "cookie-banner"/);
    expect(trace).toMatch(/<aside> "Recent posts.*" \(\d+ characters\): furniture by its <aside> tag/);
    expect(trace).toMatch(/<p> "Share this article" \(18 characters\): a boilerplate line/);
    expect(trace).toMatch(/choose: Readability's pick holds \d+% of the region's prose \(text outside links\) and \d+% of its text: the pick is the content/);
    expect(trace).toMatch(/result: \d+ characters of text/);
    expect(plain.stdout).not.toContain('We use cookies');
    expect(plain.stdout).toContain('Paragraph 6 about tomatoes on a balcony');
  });

  it('says where the headline came from, and why there is none', async () => {
    const titled = await runCli(['scrape', `${site.url}/tomatoes`, '--engine', engine, '--explain'], { env });
    expect(titled.stderr).toContain('headline: the content opens with the headline "Growing tomatoes on a balcony", the visible h1 the title names');
    const untitled = await runCli(['scrape', `${site.url}/untitled`, '--engine', engine, '--explain'], { env });
    expect(untitled.code, untitled.stderr).toBe(0);
    expect(untitled.stderr).toContain("headline: no headline found: the page's <title> is empty and the page has no h1");
    expect(untitled.stdout).not.toMatch(/^#/);
  });

  it('the Markdown opens with the headline, once', async () => {
    const { stdout, code, stderr } = await runCli(['scrape', `${site.url}/tomatoes`, '--engine', engine], { env });
    expect(code, stderr).toBe(0);
    expect(stdout.split('\n')[0]).toBe('# Growing tomatoes on a balcony');
    expect(stdout.match(/Growing tomatoes on a balcony/g)).toHaveLength(1);
  });
});

describe('scrape --front-matter', () => {
  it('starts the Markdown with YAML front matter', async () => {
    const { stdout, code, stderr } = await runCli(['scrape', `${site.url}/tomatoes`, '--engine', 'http', '--front-matter'], { env });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^---\ntitle: "Growing tomatoes on a balcony"\nurl: "http:\/\/127\.0\.0\.1:\d+\/tomatoes"\n(.*\n)*---\n\n# Growing tomatoes on a balcony\n/);
  });

  it('with --json or another format: one line, exit 2, nothing fetched', async () => {
    const before = site.requests.length;
    for (const extra of [['--json'], ['--formats', 'links']]) {
      const { stdout, code, stderr } = await runCli(['scrape', `${site.url}/tomatoes`, '--front-matter', ...extra], { env });
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain('--front-matter goes with Markdown output');
    }
    expect(site.requests.length).toBe(before);
  });
});

describe('--explain in the record', () => {
  it('--json carries the trace in metadata.explain; without --explain there is none', async () => {
    const url = `${site.url}/tomatoes`;
    const explained = await runCli(['scrape', url, '--engine', 'http', '--explain', '--json'], { env });
    expect(explained.code, explained.stderr).toBe(0);
    const trace = JSON.parse(explained.stdout).data.metadata.explain as string;
    expect(trace).toContain('furniture by its name "cookie-banner"');
    expect(explained.stderr).toContain(trace.split('\n')[0]!);
    const plain = await runCli(['scrape', url, '--engine', 'http', '--json'], { env });
    expect(JSON.parse(plain.stdout).data.metadata.explain).toBeUndefined();
  });

  it('without main content, the trace says no pass ran', async () => {
    const result = await runCli(['scrape', `${site.url}/tomatoes`, '--engine', 'http', '--explain', '--no-only-main-content'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('onlyMainContent is off: the whole page is kept');
    expect(result.stdout).toContain('We use cookies');
  });

  it('batch --explain tells each page', async () => {
    const result = await runCli(['batch', '-', '--engine', 'http', '--explain'], { env, input: `${site.url}/tomatoes\n${site.url}/peppers\n` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`webjobs: explain ${site.url}/tomatoes`);
    expect(result.stderr).toContain(`webjobs: explain ${site.url}/peppers`);
  });

  it('tells a boilerplate line of the page\'s own language, and the language', async () => {
    const result = await runCli(['scrape', `${site.url}/radwege`, '--engine', 'http', '--explain'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('its language is read as de');
    expect(result.stderr).toMatch(/<p> "Schreiben Sie einen Kommentar" \(29 characters\): a boilerplate line/);
    expect(result.stdout).not.toContain('Schreiben Sie einen Kommentar');
  });

  it('a request field of scrapeOptions: a boolean, or a 400', () => {
    expect(validateScrapeOptions({ explain: true }).explain).toBe(true);
    expect(validateScrapeOptions({}).explain).toBeUndefined();
    expect(() => validateScrapeOptions({ explain: 'yes' })).toThrow(/explain/);
  });
});

describe('serve', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('scrapeOptions.explain puts the trace in metadata.explain', async () => {
    const result = await runCli(['scrape', `${site.url}/tomatoes`, '--engine', 'http', '--explain', '--json', '--remote', serve.url, '--api-key', KEY], { env });
    expect(result.code, result.stderr).toBe(0);
    const trace = JSON.parse(result.stdout).data.metadata.explain as string;
    expect(trace).toMatch(/furniture by its <aside> tag/);
    expect(result.stderr).toContain(`webjobs: explain ${site.url}/tomatoes`);
  });
});
