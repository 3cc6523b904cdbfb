/**
 * The chunks format and the token budget (src/agents/), on the Markdown of every page of the corpus
 * (test/fixtures/pages, read on the Node path) and on documentation-like pages with large tables, code
 * and long paragraphs, at several budgets. The invariants: every chunk within its budget, counted
 * exactly; a block never split unless it alone exceeds the budget; every block in exactly one chunk,
 * in order; each chunk's heading path as the page's headings give it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { blocksOf, type Block } from '../../src/agents/blocks.js';
import { cutMarkdown } from '../../src/agents/budget.js';
import { chunkMarkdown } from '../../src/agents/chunks.js';
import { tokenCounter, type CountTokens } from '../../src/agents/tokens.js';
import type { Chunk } from '../../src/api/types.js';
import { extractInNode } from '../../src/engine/content/inNode.js';
import { loadCorpus } from '../helpers/corpus.js';

let count: CountTokens;
beforeAll(async () => {
  count = await tokenCounter();
});

/** A block's or a piece's characters but whitespace, fence lines and table rules: what a piece must take from its block, in order. */
const compact = (text: string) => text.replace(/^ *(```|~~~).*$/gm, '').replace(/^\|?[\s:|-]+\|?$/gm, '').replace(/\s+/g, '');

/**
 * Walks the page's blocks along the chunks: a block that fits the budget must be one of a chunk's blocks,
 * whole; a larger one is the only block cut, its pieces in the chunks that follow one another. Returns
 * what is wrong, empty when nothing is.
 */
function checkChunks(markdown: string, chunks: Chunk[], budget: number): string[] {
  const problems: string[] = [];
  const blocks = blocksOf(markdown);
  const path: { level: number; title: string }[] = [];
  const enter = (block: Block) => {
    if (block.kind !== 'heading') return;
    while (path.length > 0 && path.at(-1)!.level >= block.level!) path.pop();
    path.push({ level: block.level!, title: block.title! });
  };
  let at = 0;
  /** What of an oversized block no chunk has shown yet (compact). */
  let rest: string | undefined;
  chunks.forEach((chunk, i) => {
    if (chunk.index !== i) problems.push(`chunk ${i} has index ${chunk.index}`);
    if (chunk.tokens !== count(chunk.text)) problems.push(`chunk ${i}: tokens ${chunk.tokens}, counted ${count(chunk.text)}`);
    if (chunk.tokens > budget) problems.push(`chunk ${i}: ${chunk.tokens} tokens, over ${budget}`);
    let pathAtStart: string[] | undefined;
    for (const piece of blocksOf(chunk.text)) {
      if (rest !== undefined) {
        // Part of an oversized block: its characters are the next ones of that block (a table's piece repeats its header row).
        let own = compact(piece.text);
        const header = blocks[at - 1]!.kind === 'table' ? compact(blocks[at - 1]!.text.split('\n')[0]!) : '';
        if (header && own.startsWith(header) && !rest.startsWith(header)) own = own.slice(header.length);
        if (rest.startsWith(own)) {
          rest = rest.slice(own.length) || undefined;
          continue;
        }
        problems.push(`chunk ${i}: a piece of block ${at - 1} is not its next words: ${JSON.stringify(piece.text.slice(0, 80))}`);
        return;
      }
      const block = blocks[at];
      if (!block) {
        problems.push(`chunk ${i}: a block after the page's last: ${JSON.stringify(piece.text.slice(0, 80))}`);
        return;
      }
      at++;
      enter(block);
      if (block.kind !== 'heading') pathAtStart ??= path.map((h) => h.title);
      if (piece.text === block.text) continue;
      if (count(block.text) <= budget) {
        problems.push(`chunk ${i}: block ${at - 1} (${block.kind}, ${count(block.text)} tokens) was split: ${JSON.stringify(piece.text.slice(0, 80))}`);
        return;
      }
      const whole = compact(block.text);
      const own = compact(piece.text);
      if (!whole.startsWith(own)) problems.push(`chunk ${i}: first piece of block ${at - 1} is not its first words`);
      rest = whole.slice(own.length) || undefined;
    }
    const expected = pathAtStart ?? path.map((h) => h.title);
    if (JSON.stringify(chunk.headings) !== JSON.stringify(expected)) problems.push(`chunk ${i}: headings ${JSON.stringify(chunk.headings)}, expected ${JSON.stringify(expected)}`);
  });
  if (rest !== undefined) problems.push(`the last oversized block lacks ${rest.length} characters`);
  if (at !== blocks.length) problems.push(`${blocks.length - at} blocks in no chunk, from ${JSON.stringify(blocks[at]?.text.slice(0, 80))}`);
  return problems;
}

const ORIGIN = 'http://127.0.0.1:8000';
const corpusMarkdown = loadCorpus().map((c) => ({
  name: c.name,
  markdown:
    extractInNode(c.html, ORIGIN + c.expect.path, { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false }).result.markdown ?? '',
}));

/** A documentation page: sections, a long table, long code, a long paragraph, nested lists, a quote. */
function docPage(): string {
  const rows = Array.from({ length: 120 }, (_, i) => `| \`option${i}\` | ${i % 2 ? 'string' : 'number'} | Sets the ${i}th setting of the client, which the server reads once. |`);
  const code = Array.from({ length: 200 }, (_, i) => `  const value${i} = await client.call('method${i}', { retries: ${i % 5}, timeout: ${i * 10} });`);
  const sentences = Array.from({ length: 150 }, (_, i) => `Sentence ${i} of the long explanation says what the ${i}th step does and why it matters.`);
  return [
    '# Client library',
    'The client talks to the service over HTTP. Read **Install** first.',
    '## Install',
    '```sh\nnpm install client\n```',
    '- Node 22 or newer\n- A key:\n  - from the dashboard\n  - or from the CLI',
    '- Network access',
    '## Options',
    '### Table',
    `| Name | Type | What it does |\n|---|---|---|\n${rows.join('\n')}`,
    '### Example',
    `\`\`\`ts\nasync function main() {\n${code.join('\n')}\n}\n\`\`\``,
    '## Explanation',
    sentences.join(' '),
    '> A quote that says one thing.\n> And another.',
    '---',
    '## FAQ',
    '1. First question?\n\n   Its answer, indented under the item.',
    '2. Second question?',
    `A word too long for any budget: ${'x'.repeat(3000)}`,
  ].join('\n\n');
}

describe('chunks', () => {
  it('keep every invariant on the corpus pages, at 16, 64 and 512 tokens', () => {
    expect(corpusMarkdown.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const budget of [16, 64, 512]) {
      for (const page of corpusMarkdown) {
        const problems = checkChunks(page.markdown, chunkMarkdown(page.markdown, budget, count), budget);
        if (problems.length > 0) failures.push(`${page.name} at ${budget}: ${problems.slice(0, 3).join('; ')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('keep every invariant on a documentation page with tables, code and long paragraphs', () => {
    const markdown = docPage();
    for (const budget of [16, 40, 128, 512, 4096]) {
      const chunks = chunkMarkdown(markdown, budget, count);
      expect(checkChunks(markdown, chunks, budget), `budget ${budget}`).toEqual([]);
    }
  });

  it('cut a large table between rows with its header, and code between lines in fences', () => {
    const chunks = chunkMarkdown(docPage(), 200, count);
    const tables = chunks.filter((c) => c.headings.at(-1) === 'Table');
    expect(tables.length).toBeGreaterThan(3);
    for (const chunk of tables.slice(1)) {
      expect(chunk.text.startsWith('| Name | Type | What it does |\n|---|---|---|\n| `option')).toBe(true);
      expect(chunk.text.split('\n').every((line) => line.startsWith('|') && line.endsWith('|'))).toBe(true);
    }
    const code = chunks.filter((c) => c.headings.at(-1) === 'Example');
    expect(code.length).toBeGreaterThan(3);
    for (const chunk of code.slice(1)) {
      expect(chunk.text.startsWith('```ts\n')).toBe(true);
      expect(chunk.text.endsWith('\n```')).toBe(true);
    }
    const explanation = chunks.filter((c) => c.headings.at(-1) === 'Explanation' && c.text.startsWith('Sentence'));
    expect(explanation.length).toBeGreaterThan(3);
    for (const chunk of explanation) expect(chunk.text).toMatch(/^Sentence \d+ .*matters\.$/s);
  });

  it('keep a section and its headings together, the path outermost first', () => {
    const chunks = chunkMarkdown('# A\n\n## B\n\nText of B.\n\n### C\n\nText of C.\n\n## D\n\nText of D.', 512, count);
    expect(chunks.map((c) => [c.text, c.headings])).toEqual([
      ['# A\n\n## B\n\nText of B.', ['A', 'B']],
      ['### C\n\nText of C.', ['A', 'B', 'C']],
      ['## D\n\nText of D.', ['A', 'D']],
    ]);
  });

  it('give an empty page no chunk', () => {
    expect(chunkMarkdown('', 512, count)).toEqual([]);
  });
});

describe('the token budget', () => {
  it('cuts after the last whole block that fits', () => {
    const markdown = '# Title\n\nFirst paragraph here.\n\nSecond paragraph, a little longer than the first.\n\nThird.';
    const whole = count(markdown);
    expect(cutMarkdown(markdown, whole, count)).toEqual({ markdown, truncated: false });
    const upToSecond = markdown.slice(0, markdown.indexOf('\n\nThird'));
    expect(cutMarkdown(markdown, count(upToSecond), count)).toEqual({ markdown: upToSecond, truncated: true });
    expect(cutMarkdown(markdown, count(upToSecond) + 1, count).markdown).toBe(upToSecond);
  });

  it('never goes over the budget on the corpus pages, and keeps whole blocks', () => {
    for (const page of corpusMarkdown) {
      for (const budget of [16, 100]) {
        const cut = cutMarkdown(page.markdown, budget, count);
        expect(count(cut.markdown), page.name).toBeLessThanOrEqual(budget);
        expect(cut.truncated).toBe(count(page.markdown) > budget);
        if (cut.markdown !== '' && blocksOf(page.markdown).some((b) => count(page.markdown.slice(0, b.end)) <= budget)) {
          expect(page.markdown.startsWith(cut.markdown), page.name).toBe(true);
        }
      }
    }
  });

  it('keeps the first piece of a first block larger than the budget', () => {
    const cut = cutMarkdown(`${'One sentence here. '.repeat(50)}\n\nMore.`, 20, count);
    expect(cut.truncated).toBe(true);
    expect(cut.markdown).toMatch(/^One sentence here\./);
    expect(count(cut.markdown)).toBeLessThanOrEqual(20);
  });
});
