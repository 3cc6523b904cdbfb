/**
 * The changeTracking format (Firecrawl's): a page's Markdown is compared with the
 * last result stored for the same URL, output-shaping options and tag in the same
 * store, and that result is then replaced by this one. The history lives in the
 * page cache (contracts.ts) under its own key (cacheKey's `history`), apart from
 * the entries of maxAge, and never expires.
 *
 * Only pages that worked are compared and kept (as withCache keeps them): a page
 * the server answered with an HTTP error, or read under a warning, gets no
 * changeTracking and leaves the history as it was, so that a passing outage does
 * not report the page as changed twice.
 *
 * An alert is owed until it is delivered (issue 56): where the job's end is known
 * to the process that ran its pages (the local back end), a new or changed page
 * does not move its history at once (`defer`); the history takes the job's new
 * versions when the job completes (commitHistory, historyCommit.ts; on PostgreSQL,
 * whose workers run pages apart from the job's end, an owed version kept beside the
 * job becomes the history in the completion's transaction: OweVersion). A run killed
 * before then leaves the change to the next run, which finds it again, or to
 * `webjobs resume`, whose completion commits the pages of every run of the job.
 */
import type { ChangeTracking, PageData, ParsedDiff, ScrapeOptions } from '../api/types.js';
import type { CacheEntry, CachedScrape, PageCache } from './contracts.js';

type Change = ParsedDiff['files'][number]['chunks'][number]['changes'][number];

/** Is change tracking asked for? */
export const tracksChanges = (scrapeOptions: ScrapeOptions | undefined): boolean => Boolean(scrapeOptions?.formats?.includes('changeTracking'));

/**
 * The key of a page's history: the cache's key of the options that shape its Markdown, and the tag.
 * Not the formats (only the Markdown is compared: a crawl, which asks for links too, and a scrape
 * share a history), nor the diff modes, screenshot options or explain.
 */
export function historyOf({ url, scrapeOptions = {}, sessionOptions, tenant }: CachedScrape): CachedScrape {
  const { changeTrackingOptions, screenshotOptions: _screenshot, explain: _explain, ...shaping } = scrapeOptions;
  return { url, scrapeOptions: { ...shaping, formats: ['markdown'] }, sessionOptions, tenant, history: changeTrackingOptions?.tag ?? '' };
}

/** Markdown ends with or without a newline as it comes; a diff line never says "No newline at end of file". */
const asLines = (markdown: string): string => (markdown.endsWith('\n') ? markdown : `${markdown}\n`);

/**
 * A git-style unified diff of two Markdown texts (Firecrawl's `diff`: the text and parse-diff's structure of it).
 * The diff library is loaded with the first page that changed: every job command of the CLI loads this module,
 * and the library's 21 files took 6 ms of each one's start.
 */
export async function markdownDiff(previous: string, current: string): Promise<NonNullable<ChangeTracking['diff']>> {
  const { structuredPatch } = await import('diff');
  const patch = structuredPatch('previous', 'current', asLines(previous), asLines(current), undefined, undefined, { context: 3 });
  let additions = 0;
  let deletions = 0;
  const chunks = patch.hunks.map((hunk) => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    const changes = hunk.lines.map((line): Change => {
      const content = line;
      if (line.startsWith('+')) {
        additions++;
        return { type: 'add', add: true, ln: newLine++, content };
      }
      if (line.startsWith('-')) {
        deletions++;
        return { type: 'del', del: true, ln: oldLine++, content };
      }
      return { type: 'normal', normal: true, ln1: oldLine++, ln2: newLine++, content };
    });
    const content = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
    return { content, oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, changes, text: [content, ...hunk.lines].join('\n') };
  });
  const text = ['--- a/previous', '+++ b/current', ...chunks.map((chunk) => chunk.text)].join('\n') + '\n';
  return {
    text,
    json: { files: [{ from: 'previous', to: 'current', additions, deletions, chunks: chunks.map(({ text: _text, ...chunk }) => chunk) }] },
  };
}

/**
 * Where a store that runs a job's pages apart from its end (PostgreSQL's workers) keeps a new or changed page's
 * version until the job completes (the owed history): the version becomes the history then, in the completion's
 * transaction (pg/historyOwed.ts).
 */
export type OweVersion = (history: CachedScrape, version: PageData) => Promise<void>;

/** What a history keeps of a version: the URL that answered and the Markdown compared. */
export function historyVersion(url: string, markdown: string): PageData {
  return { metadata: { url }, markdown };
}

/**
 * The page with its changeTracking, its Markdown now the history's last result.
 * `last`: the history's last result, when the caller began reading it already (while the page loaded).
 */
export async function trackChanges(
  cache: PageCache,
  scrape: CachedScrape,
  data: PageData,
  last?: Promise<CacheEntry | undefined>,
  { defer = false }: { defer?: boolean | OweVersion } = {},
): Promise<PageData> {
  const history = historyOf(scrape);
  const previous = await (last ?? cache.last(history));
  const markdown = data.markdown ?? '';
  const before = previous?.data.markdown;
  const changeTracking: ChangeTracking = {
    previousScrapeAt: previous ? new Date(previous.storedAt).toISOString() : null,
    changeStatus: before === undefined ? 'new' : before === markdown ? 'same' : 'changed',
    visibility: 'visible',
  };
  const modes = scrape.scrapeOptions?.changeTrackingOptions?.modes;
  if (changeTracking.changeStatus === 'changed' && (modes === undefined || modes.includes('git-diff'))) {
    changeTracking.diff = await markdownDiff(before!, markdown);
  }
  // Only what a comparison reads is kept: not the page's HTML or screenshot. The same one is only renewed.
  const kept = historyVersion(data.metadata.url ?? history.url, markdown);
  if (previous && changeTracking.changeStatus === 'same' && previous.data.metadata.url === kept.metadata.url) await cache.renew(history, previous);
  else if (!defer || changeTracking.changeStatus === 'same') await cache.put(history, kept);
  else if (typeof defer === 'function') await defer(history, kept);
  return { ...data, changeTracking };
}
