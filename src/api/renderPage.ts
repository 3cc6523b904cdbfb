/** A page's data as text: one format alone, or every asked format under a header. */
import type { Format, PageData } from '../api/types.js';

/** Extension of the file --output-dir writes for each format. */
export const FORMAT_EXTENSIONS: Record<Format, string> = { markdown: '.md', html: '.html', links: '.links.txt', rawHtml: '.raw.html', screenshot: '', structuredData: '.jsonld', changeTracking: '.changes.json', json: '.json', chunks: '.chunks.json' };

export function formatsOrDefault(formats: Format[] | undefined): Format[] {
  return formats && formats.length > 0 ? formats : ['markdown'];
}

/** One format of the page: Markdown, HTML, links one a line, where the screenshot is, or the structured data, changeTracking, json or chunks as JSON. */
export function renderFormat(data: PageData, format: Format): string {
  if (format === 'html') return data.html ?? '';
  if (format === 'rawHtml') return data.rawHtml ?? '';
  if (format === 'screenshot') return data.screenshot ?? '';
  if (format === 'links') return (data.links ?? []).join('\n');
  if (format === 'structuredData') return JSON.stringify(data.structuredData ?? [], null, 2);
  if (format === 'changeTracking') return JSON.stringify(data.changeTracking ?? null, null, 2);
  if (format === 'json') return JSON.stringify(data.json ?? null, null, 2);
  if (format === 'chunks') return JSON.stringify(data.chunks ?? [], null, 2);
  return data.markdown ?? '';
}

export function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * What the CLI prints for a page: the one format asked (Markdown by default); with
 * several, each in the order asked under a `==> format <==` line, as head(1) does
 * for several files.
 */
export function renderPage(data: PageData, formats?: Format[]): string {
  const asked = formatsOrDefault(formats);
  if (asked.length === 1) return renderFormat(data, asked[0]!);
  return asked.map((format, i) => `${i > 0 ? '\n' : ''}==> ${format} <==\n${withNewline(renderFormat(data, format))}`).join('');
}
