/**
 * The site of the resume tests (resume.test.ts, resumeRemote.test.ts): page i links
 * to pages 2i+1 and 2i+2 (a binary tree of PAGES pages). It serves the first
 * `serveFirst` page requests and holds every later one unanswered, and counts the
 * pages it served by path (when the answer is sent): a page held is one the run
 * that asked for it never got.
 */
import type http from 'node:http';
import { expect } from 'vitest';
import { PageIndex } from '../../src/store/pageLog.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './fixtureServer.js';

export const PAGES = 15;
export const pagePath = (i: number): string => (i === 0 ? '/' : `/p${i}`);
export const allPaths = Array.from({ length: PAGES }, (_, i) => pagePath(i));

export interface ResumeSite {
  server: FixtureServer;
  served: Map<string, number>;
  /** When each page request came (Date.now()), served or held. */
  requests: { path: string; at: number }[];
  /** Answers held so far (requests past serveFirst). */
  held(): number;
  /** Serves the next `count` page requests and holds those after (Infinity: serves all). */
  serveNext(count: number): void;
  /** Drops the held requests (their asker is gone) and forgets what was served. */
  reset(): void;
  releaseHeld(): void;
}

export async function startResumeSite(): Promise<ResumeSite> {
  const served = new Map<string, number>();
  let allowed = Infinity;
  let held: http.ServerResponse[] = [];
  const requests: { path: string; at: number }[] = [];
  const page = (i: number) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
    requests.push({ path: pagePath(i), at: Date.now() });
    if (allowed <= 0) {
      held.push(res);
      return;
    }
    allowed--;
    const links = [2 * i + 1, 2 * i + 2].filter((n) => n < PAGES).map((n) => `<a href="${pagePath(n)}">page ${n}</a>`).join(' ');
    sendHtml(res, html(`<article><h1>Page ${i}</h1>${articleText(`page ${i}`, 3)}<p>${links}</p></article>`, { title: `Page ${i}` }));
    served.set(pagePath(i), (served.get(pagePath(i)) ?? 0) + 1);
  };
  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
    },
  };
  for (let i = 0; i < PAGES; i++) routes[pagePath(i)] = page(i);
  const server = await startFixtureServer(routes);
  const releaseHeld = () => {
    for (const res of held) res.destroy();
    held = [];
  };
  return {
    server,
    served,
    requests,
    held: () => held.length,
    serveNext: (count) => (allowed = count),
    releaseHeld,
    reset: () => {
      releaseHeld();
      served.clear();
      requests.length = 0;
      allowed = Infinity;
    },
  };
}

/** Every page of the site (or `paths`) served exactly once over all runs, and no other. */
export function expectEachServedOnce(site: ResumeSite, paths: readonly string[] = allPaths): void {
  expect(Object.fromEntries([...site.served].sort())).toEqual(Object.fromEntries(paths.map((p) => [p, 1]).sort()));
}

/** Polls `ready` (the store's files, a count of held requests) until it holds; fails after `limitMs`, saying `what`. */
export async function until(ready: () => boolean | Promise<boolean>, what: () => string, limitMs = 40_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many page entries the job in folder `jobDir` has stored (0 before it has a folder). */
export async function storedEntries(jobDir: string): Promise<number> {
  return (await new PageIndex().spans(jobDir).catch(() => new Map())).size;
}
