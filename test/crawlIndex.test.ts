/**
 * Index pages through the real CLI (issue 58): a home page whose main region is an introduction and a
 * list of its stories keeps the list, as Markdown links, in a scrape and in a crawl, where it went as a
 * menu before. Both engines read it the same way; the HTTP engine here (the content tests run Chromium).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };

const STORIES = [
  ['/2025/ferry', 'The winter ferry timetable is out'],
  ['/2025/market', 'The fish market moves indoors'],
  ['/2025/lifeboat', 'A new lifeboat for the station'],
  ['/2025/school', 'School roof repaired before term'],
] as const;

const home = html(
  `<header><a href="/">Harbour Weekly</a><nav><ul><li><a href="/news">News</a></li><li><a href="/about">About</a></li></ul></nav></header>
   <main>
     <p>Harbour Weekly covers the town, its port and the villages along the coast, from the council chamber to the quayside. Our reporters live here, and every story is written by someone who knows the place.</p>
     <p>These are this week's stories, picked by our editors for readers who missed the paper. The archive goes back to 1998 and is free to read in the library or online.</p>
     <ul>${STORIES.map(([href, title]) => `<li><a href="${href}">${title}</a></li>`).join('')}</ul>
   </main>
   <footer><p>Harbour Weekly, 1 Quay Street</p></footer>`,
  { title: 'Harbour Weekly' },
);

let site: FixtureServer;

beforeAll(async () => {
  const routes: Record<string, (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void> = {
    '/': (_req, res) => sendHtml(res, home),
  };
  for (const [href, title] of STORIES) routes[href] = (_req, res) => sendHtml(res, html(`<article><h1>${title}</h1>${articleText(title, 3)}</article>`, { title }));
  site = await startFixtureServer(routes);
});

afterAll(async () => {
  await site?.close();
});

interface Entry {
  url: string;
  markdown?: string;
}

/** Each story as a Markdown list item linking to it. */
const storyItems = () => STORIES.map(([href, title]) => `- [${title}](${site.at(href)})`);

describe('a home page whose main region is a list of stories', () => {
  it('keeps the list as Markdown links in a scrape', async () => {
    const result = await runCli(['scrape', site.at('/'), '--engine', 'http'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Harbour Weekly covers the town');
    for (const item of storyItems()) expect(result.stdout).toContain(item);
    expect(result.stdout).not.toContain('[About]');
  });

  it('keeps it in a crawl too, beside the stories it links to', async () => {
    const result = await runCli(['crawl', site.at('/'), '--engine', 'http', '--ignore-sitemap', '--max-pages', '10', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as { data: Entry[] };
    const start = record.data.find((entry) => entry.url === site.at('/'));
    for (const item of storyItems()) expect(start?.markdown).toContain(item);
    for (const [href] of STORIES) expect(record.data.map((entry) => entry.url)).toContain(site.at(href));
  });
});
