/**
 * Fitting pages into model calls. Pages that fit one call's budget go together;
 * a page too long for it is split at paragraph boundaries into numbered parts, so
 * nothing is cut off, and every part says which page it belongs to.
 */

export interface ScrapedPage {
  url: string;
  title: string;
  markdown: string;
}

export interface Section {
  url: string;
  title: string;
  /** "2 of 5" when the page was split; undefined when the section is the whole page. */
  part?: string;
  text: string;
}

/**
 * A rough, deliberately pessimistic token estimate (about 3 characters per token,
 * where English prose averages nearer 4) so that a batch judged to fit does fit.
 */
export const CHARS_PER_TOKEN = 3;
export const estimateTokens = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

/** Splits text into pieces of at most maxChars, preferring paragraph, then line, then word breaks. */
export function splitText(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const cut = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((i) => i > maxChars / 2) ?? maxChars;
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

function sectionsOf(page: ScrapedPage, maxChars: number): Section[] {
  const pieces = splitText(page.markdown, maxChars);
  if (pieces.length === 1) return [{ url: page.url, title: page.title, text: page.markdown }];
  return pieces.map((text, i) => ({ url: page.url, title: page.title, part: `${i + 1} of ${pieces.length}`, text }));
}

/**
 * Groups the pages' sections into batches of at most `budgetTokens` estimated
 * tokens each, in page order. One batch means one model call sees everything.
 */
export function planBatches(pages: ScrapedPage[], budgetTokens: number): Section[][] {
  const maxChars = Math.max(1000, budgetTokens * CHARS_PER_TOKEN);
  const batches: Section[][] = [];
  let current: Section[] = [];
  let used = 0;
  for (const section of pages.flatMap((page) => sectionsOf(page, maxChars))) {
    if (current.length > 0 && used + section.text.length > maxChars) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(section);
    used += section.text.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const escapeAttr = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The pages as the model reads them: one <page> element per section. */
export function renderSections(sections: Section[]): string {
  return sections
    .map((s) => {
      const part = s.part ? ` part="${s.part}"` : '';
      return `<page url="${escapeAttr(s.url)}" title="${escapeAttr(s.title)}"${part}>\n${s.text}\n</page>`;
    })
    .join('\n\n');
}
