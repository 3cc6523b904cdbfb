/**
 * Browser tabs shared fairly per key (issue 54, finding 1; src/engine/browser/tabTurns.ts): with serve's cap on
 * tabs in use, a tab that frees goes to the first waiting page of the key served longest ago, so one key's page
 * waits behind one page of every other key with work, never behind a whole batch. A real Chromium (BrowserPool)
 * scraping pages served on 127.0.0.1 with one tab at a time; what is asserted is the order in which pages
 * finish, not time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../src/engine/browser/browser.js';
import { scrapeUrl } from '../src/engine/browser/scrape.js';
import { TabTurns } from '../src/engine/browser/tabTurns.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
let pool: BrowserPool;

beforeAll(async () => {
  site = await startFixtureServer({}, (req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    sendHtml(res, html(`<article><h1>${name}</h1>${articleText(name, 3)}</article>`, { title: name }));
  });
  pool = new BrowserPool({ tabTurns: new TabTurns(1) });
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
});

function scrape(key: string, name: string, finished: string[], signal?: AbortSignal): Promise<void> {
  return scrapeUrl(pool, site.at(`/${name}`), { formats: ['markdown'] }, { turn: key, signal }).then((data) => {
    expect(data.markdown).toContain(`# ${name}`);
    finished.push(name);
  });
}

describe('browser tabs shared per key', () => {
  it("takes the keys' waiting pages in turn: key B's page loads after one of key A's, not after A's batch", async () => {
    const finished: string[] = [];
    const heavy = ['a1', 'a2', 'a3', 'a4'].map((name) => scrape('key-a', name, finished));
    const small = [scrape('key-b', 'b1', finished), scrape('key-c', 'c1', finished)];
    await Promise.all([...heavy, ...small]);
    // a1 had the tab when the others came; then each key with work in turn.
    expect(finished).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'a4']);
  });

  it('a page whose job stops while it waits for a tab leaves the queue, and the turn goes on', async () => {
    const finished: string[] = [];
    const stopped = new AbortController();
    const first = scrape('key-a', 'a1', finished);
    const waiting = scrape('key-b', 'b1', finished, stopped.signal);
    const after = scrape('key-c', 'c1', finished);
    stopped.abort(new Error('stopped by user'));
    await expect(waiting).rejects.toThrow();
    await Promise.all([first, after]);
    expect(finished).toEqual(['a1', 'c1']);
  });
});
