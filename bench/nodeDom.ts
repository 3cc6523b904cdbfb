/**
 * Which DOM the HTTP engine reads pages with, by measurement (issue 13): the same
 * extraction (extractInPage, main content, Markdown) on the 181 article pages,
 * parsed by linkedom (the engine's, with nodeDom.ts's adapter) and by jsdom (with
 * the same visibility substitute and noscript handling), one page at a time on
 * one thread. Prints Node CPU per page (parse included), pages that threw, and F1.
 *
 *   npm run build:bench && node .bench-build/bench/nodeDom.js   (WEBJOBS_BENCH_DATA as for bench:quality)
 */
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { extractInPage, type InPageOptions } from '../src/engine/content/inPage.js';
import { extractInNode } from '../src/engine/content/inNode.js';
import { isShownWithoutLayout, noscriptAsText } from '../src/engine/content/nodeDom.js';
import { readerText } from './readerText.js';
import { scorePage, summarise, type PageScore } from './score.js';
import { articlesDir, loadArticles, pageHtml } from './sets.js';

const OPTIONS: InPageOptions = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: true };

function withJsdom(html: string, url: string): string {
  const { window } = new JSDOM(html, { url });
  const proto = window.Element.prototype as unknown as { checkVisibility?: unknown };
  proto.checkVisibility = function (this: Element) {
    return isShownWithoutLayout(this);
  };
  (globalThis as { NodeFilter?: unknown }).NodeFilter = window.NodeFilter;
  noscriptAsText(window.document);
  try {
    return extractInPage(OPTIONS, window.document).markdown;
  } finally {
    window.close();
  }
}

const READERS: Record<string, (html: string, url: string) => string> = {
  linkedom: (html, url) => extractInNode(html, url, OPTIONS).result.markdown,
  jsdom: withJsdom,
};

function main(): void {
  const dir = articlesDir();
  const set = loadArticles(dir);
  if (!set) throw new Error(`no article set in ${dir} (npm run bench:fetch-aeb, or WEBJOBS_BENCH_DATA)`);
  const pages = set.pages.map((page) => ({ page, html: pageHtml(set.htmlDir, page.id) }));
  for (const [name, read] of Object.entries(READERS)) {
    const scores: PageScore[] = [];
    let cpuUs = 0;
    let errors = 0;
    for (const { page, html } of pages) {
      const before = process.cpuUsage();
      let markdown = '';
      try {
        markdown = read(html, `http://127.0.0.1/${page.id}.html`);
      } catch {
        errors++;
      }
      const used = process.cpuUsage(before);
      cpuUs += used.user + used.system;
      scores.push(scorePage(page.truth, readerText(markdown)));
    }
    const summary = summarise(scores);
    console.log(
      `${name.padEnd(9)} ${(cpuUs / 1000 / pages.length).toFixed(0).padStart(4)} ms of CPU per page, ${errors} pages threw, ` +
        `F1 ${summary.f1.toFixed(4)} P ${summary.precision.toFixed(4)} R ${summary.recall.toFixed(4)} (${pages.length} pages)`,
    );
  }
}

main();
