/**
 * PDF documents: a URL that answers application/pdf gives its text as Markdown
 * (headings, pages), and a crawl whose formats a PDF gives follows links to them.
 * The fixture PDF is printed by Chromium (page.pdf()) from HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../src/engine/browser/browser.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;
let pdf: Uint8Array;

async function printPdf(body: string): Promise<Uint8Array> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.setContent(body);
    return await page.pdf({ format: 'A4', outline: true, tagged: true });
  } finally {
    await browser.close();
  }
}

beforeAll(async () => {
  pdf = await printPdf(`
    <h1>Annual report</h1>
    <p>Revenue grew by forty percent this year, and the margin_rate held.</p>
    <p><a href="https://example.com/appendix">The appendix</a> has the details.</p>
    <h2 style="page-break-before: always">Second page</h2>
    <p>More text on page two.</p>`);
  const sendPdf = (res: import('node:http').ServerResponse, bytes: Uint8Array) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(bytes);
  };
  site = await startFixtureServer({
    '/report.pdf': (_req, res) => sendPdf(res, pdf),
    // Another address of the same file, so that its requests are counted alone.
    '/once.pdf': (_req, res) => sendPdf(res, pdf),
    // No .pdf in the address: the content type says what it is.
    '/download?id=7': (_req, res) => sendPdf(res, pdf),
    '/broken.pdf': (_req, res) => sendPdf(res, Buffer.from('this is not a PDF at all')),
    '/': (_req, res) => sendHtml(res, html(`<article><h1>Reports</h1>${articleText('reports')}<p><a href="/report.pdf">The report</a></p></article>`, { title: 'Reports' })),
  });
});

afterAll(async () => {
  await site?.close();
});

interface Scraped {
  status: string;
  error?: string;
  data: { metadata: Record<string, string>; markdown?: string; html?: string; links?: string[] };
}

describe('PDF documents', () => {
  it('give their text as Markdown: headings by type size, pages divided, links from the document', async () => {
    const result = await runCli(['scrape', site.at('/report.pdf'), '--formats', 'markdown,links', '--json'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { data } = JSON.parse(result.stdout) as Scraped;
    expect(data.markdown).toBe(
      [
        '# Annual report',
        'Revenue grew by forty percent this year, and the margin\\_rate held.',
        'The appendix has the details.',
        '---',
        '## Second page',
        'More text on page two.',
      ].join('\n\n'),
    );
    expect(data.links).toEqual(['https://example.com/appendix']);
    expect(data.metadata).toMatchObject({ title: 'Annual report', contentType: 'application/pdf', numPages: '2', statusCode: '200', url: site.at('/report.pdf') });
  }, 180_000);

  it('are read from the HTTP engine\'s one fetch: no browser renders them, nothing fetches them again', async () => {
    // The browser fetched the file again and rendered it in its viewer, which a hostile PDF kept busy (issue 43).
    const result = await runCli(['scrape', site.at('/once.pdf'), '--formats', 'markdown', '--json'], { env });
    expect(result.code).toBe(0);
    const { data } = JSON.parse(result.stdout) as Scraped;
    expect(data.markdown).toMatch(/^# Annual report\n/);
    expect(data.metadata.engine).toBe('http');
    expect(site.requests.filter((r) => r.endsWith('/once.pdf'))).toEqual(['GET /once.pdf']);
  }, 180_000);

  it('are read by the browser engine too, from what its tab landed on', async () => {
    const result = await runCli(['scrape', site.at('/report.pdf'), '--engine', 'browser', '--formats', 'markdown,links', '--json'], { env });
    expect(result.code).toBe(0);
    const { data } = JSON.parse(result.stdout) as Scraped;
    expect(data.markdown).toMatch(/^# Annual report\n/);
    expect(data.links).toEqual(['https://example.com/appendix']);
    expect(data.metadata).toMatchObject({ engine: 'browser', contentType: 'application/pdf', numPages: '2' });
  }, 180_000);

  it('are known by their content type, not their address', async () => {
    const result = await runCli(['scrape', site.at('/download?id=7')], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# Annual report\n/);
  }, 180_000);

  it('a file that says it is a PDF but is none fails the page, saying so', async () => {
    const result = await runCli(['scrape', site.at('/broken.pdf')], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not read the PDF document at .*\/broken\.pdf/);
  }, 180_000);

  it('a crawl follows links to PDFs when its formats include markdown or html, and skips them otherwise', async () => {
    const markdown = await runCli(['crawl', site.url, '--json', '--quiet', '--ignore-sitemap'], { env });
    expect(markdown.code).toBe(0);
    const pages = (JSON.parse(markdown.stdout) as { data: { url: string; markdown: string }[] }).data;
    expect(pages.map((p) => p.url)).toEqual([site.at('/'), site.at('/report.pdf')]);
    expect(pages[1]!.markdown).toMatch(/^# Annual report/);
    const links = await runCli(['crawl', site.url, '--json', '--quiet', '--ignore-sitemap', '--formats', 'links'], { env });
    expect((JSON.parse(links.stdout) as { data: { url: string }[] }).data.map((p) => p.url)).toEqual([site.at('/')]);
  }, 180_000);
});
