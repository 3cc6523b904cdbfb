/**
 * What the chunks format and --max-tokens add per page: the tokens of each page's Markdown, its chunks,
 * and the CPU time chunking (and the cut) take, on top of reading the page. Pages: the 181 articles
 * (.bench-data/aeb or WEBJOBS_BENCH_DATA; npm run bench:fetch-aeb) when present, else the corpus of
 * test/fixtures/pages. Each page's Markdown is made once on the Node path (as the HTTP engine reads it),
 * then chunked; the tokenizer's load is timed apart (a job pays it once).
 *
 *   npm run bench:chunks   (WEBJOBS_BENCH_CHUNK_TOKENS: the budget, default 512; WEBJOBS_BENCH_MAX_TOKENS: the cut, default 2000)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cutMarkdown } from '../src/agents/budget.js';
import { chunkMarkdown } from '../src/agents/chunks.js';
import { tokenCounter } from '../src/agents/tokens.js';
import { extractInNode } from '../src/engine/content/inNode.js';
import { REPO_ROOT } from './paths.js';
import { articlesDir, loadArticles, pageHtml } from './sets.js';

const OPTIONS = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false };

function pages(): { name: string; pages: { url: string; html: string }[] } {
  const set = loadArticles(articlesDir());
  if (set) return { name: set.title, pages: set.pages.map((page) => ({ url: page.url, html: pageHtml(set.htmlDir, page.id) })) };
  const dir = path.join(REPO_ROOT, 'test', 'fixtures', 'pages');
  const cases = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return {
    name: `${cases.length} corpus pages (test/fixtures/pages)`,
    pages: cases.map((entry) => {
      const expect = JSON.parse(readFileSync(path.join(dir, entry.name, 'expect.json'), 'utf8')) as { path: string };
      return { url: `http://127.0.0.1:8000${expect.path}`, html: readFileSync(path.join(dir, entry.name, 'page.html'), 'utf8') };
    }),
  };
}

const cpuMs = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

async function main(): Promise<void> {
  const budget = Number(process.env.WEBJOBS_BENCH_CHUNK_TOKENS ?? 512);
  const maxTokens = Number(process.env.WEBJOBS_BENCH_MAX_TOKENS ?? 2000);
  const loadStart = performance.now();
  const count = await tokenCounter();
  const loadMs = performance.now() - loadStart;
  const set = pages();
  let readMs = 0;
  let countMs = 0;
  let chunkMs = 0;
  let cutMs = 0;
  let tokens = 0;
  let chunks = 0;
  let cut = 0;
  const perPage: number[] = [];
  for (const page of set.pages) {
    let t = process.cpuUsage();
    const markdown = extractInNode(page.html, page.url, OPTIONS).result.markdown ?? '';
    readMs += cpuMs(t);
    t = process.cpuUsage();
    tokens += count(markdown);
    countMs += cpuMs(t);
    t = process.cpuUsage();
    chunks += chunkMarkdown(markdown, budget, count).length;
    const ms = cpuMs(t);
    chunkMs += ms;
    perPage.push(ms);
    t = process.cpuUsage();
    if (cutMarkdown(markdown, maxTokens, count).truncated) cut++;
    cutMs += cpuMs(t);
  }
  const n = set.pages.length;
  perPage.sort((a, b) => a - b);
  const f = (ms: number) => ms.toFixed(2);
  console.log(`bench:chunks on ${set.name}, chunks of ${budget} tokens, cut at ${maxTokens} (o200k_base, gpt-tokenizer)`);
  console.log(`  tokenizer load (once per process): ${loadMs.toFixed(0)} ms`);
  console.log(`  Markdown: ${Math.round(tokens / n)} tokens a page on average, ${(chunks / n).toFixed(1)} chunks a page`);
  console.log(`  CPU a page: reading it (Node path) ${f(readMs / n)} ms; counting its tokens ${f(countMs / n)} ms; chunking ${f(chunkMs / n)} ms (median ${f(perPage[Math.floor(n / 2)]!)}, slowest ${f(perPage.at(-1)!)}); --max-tokens ${f(cutMs / n)} ms (${cut} of ${n} pages cut)`);
  console.log(`  chunking adds ${((100 * chunkMs) / readMs).toFixed(1)}% to the CPU of reading the pages`);
}

await main();
