/**
 * The engine a job sees: the shared engine with the job's own handling of what a
 * scrape returns around it, so that every job kind gets it without a runner
 * knowing.
 *
 * withCache, for `maxAge`: a scrape is answered from the page cache when a stored
 * result of the same URL and output-shaping options is young enough
 * (metadata.cacheState "hit"), else the page is scraped and stored ("miss"). Only
 * pages that worked are stored: a scrape that threw, a page the server answered
 * with an HTTP error (4xx, 5xx), and a page read under a warning (one whose load
 * did not finish within the request's timeout is read as it stands; a cap cut
 * it) are never returned from the cache: a later request, with a longer
 * timeout, may get the whole page. Under serve the entries are the job's API
 * key's own (`tenant`), unless the operator shares the cache.
 *
 * Revalidation: an entry too old for maxAge, or any entry of a page asked for
 * with change tracking, that came with an ETag or Last-Modified is revalidated
 * with a conditional request (the engine's, through the same guard and proxy as
 * the page's own fetch); on a 304 the stored result stands (renewed), without
 * downloading or extracting the page again (revalidation.ts: when, and what a
 * crawl's sitemap lastmod changes). With change tracking every page that worked
 * is stored whole, so that the next run has something to revalidate.
 *
 * The same page cache keeps the changeTracking format's history (changeTracking.ts):
 * a page that worked is compared with its last result there, which it then replaces.
 *
 * withJobFiles: a screenshot comes from the engine (or the cache) as a data: URL
 * and leaves as a file beside the job, the record holding its path.
 *
 * withJsonFormat, for the json format: the page is read (through the cache) with
 * what the extraction needs, and its data extracted (jsonFormat.ts).
 */
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import type { SiteAccess } from '../engine/net/access.js';
import type { Engine, EnginePage, EngineScrapeOptions } from '../engine/engine.js';
import { historyOf, trackChanges, tracksChanges, type OweVersion } from './changeTracking.js';
import type { CacheEntry, CachedScrape, JobFileWriter, PageCache } from './contracts.js';
import { revalidationPlan } from './revalidation.js';

type Scrape = Engine['scrape'];

/** `engine` with another scrape; everything else passes through. */
function withScrape(engine: Engine, scrape: Scrape): Engine {
  return {
    preflight: (sessionOptions, name) => engine.preflight(sessionOptions, name),
    fetch: (url, options) => engine.fetch(url, options),
    close: () => engine.close(),
    scrape,
  };
}

/**
 * The engine of one tenant's job (serve: its API key): each page takes the tenant's turn at the extraction
 * workers every job shares (EngineScrapeOptions.turn), so that one key's batch never holds them all.
 */
export function withTurn(engine: Engine, tenant: string | undefined): Engine {
  if (tenant === undefined) return engine;
  const turned = withScrape(engine, (url, options, sessionOptions, signal, access) => engine.scrape(url, { ...options, turn: tenant }, sessionOptions, signal, access));
  return engine.addressRefusal ? { ...turned, addressRefusal: (url) => engine.addressRefusal!(url) } : turned;
}

function worthKeeping(data: PageData): boolean {
  const status = Number(data.metadata.statusCode);
  return Number.isInteger(status) && status >= 200 && status < 400 && !data.metadata.warning;
}

/**
 * `deferHistory`: a new or changed page leaves its history as it is, for the job's
 * completion to commit (changeTracking.ts, historyCommit.ts); a function keeps the
 * page's version owed until then (PostgreSQL).
 */
export function withCache(engine: Engine, cache: PageCache, tenant?: string, { deferHistory = false }: { deferHistory?: boolean | OweVersion } = {}): Engine {
  return withScrape(engine, async (url: string, options?: EngineScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess) => {
    const { sitemapLastmod, revalidate: _ours, ...scrapeOptions } = options ?? {};
    const tracks = tracksChanges(scrapeOptions);
    // A page read after actions, or in a profile's session, is what that run did and saw: never from the cache.
    const acts = (scrapeOptions.actions?.length ?? 0) > 0 || scrapeOptions.profile !== undefined;
    if ((!scrapeOptions.maxAge && !tracks) || acts) return engine.scrape(url, options, sessionOptions, signal, access);
    const scrape: CachedScrape = { url, scrapeOptions, sessionOptions, tenant };
    /** Entries read to be renewed if they stand (the cache may hold their files open meanwhile), released once the page is done. */
    const held: Promise<CacheEntry | undefined>[] = [];
    const hold = (key: CachedScrape) => {
      const entry = cache.hold ? cache.hold(key) : cache.last(key);
      held.push(entry);
      return entry;
    };
    // The history is read while the page loads (a failure to read it fails the page, below, not here).
    const last = tracks ? hold(historyOf(scrape)) : undefined;
    last?.catch(() => undefined);
    const writes: Promise<void>[] = [];
    try {
      const data = await throughCache(engine, cache, scrape, { signal, access, sitemapLastmod }, { writes, hold });
      if (!tracks || !worthKeeping(data)) return data;
      return await trackChanges(cache, scrape, data, last, { defer: deferHistory });
    } finally {
      // The entry's write went on beside the history's; the page is done when both are.
      await Promise.all(writes);
      for (const entry of held) void entry.then((read) => read && cache.release?.(read), () => undefined);
    }
  });
}

/**
 * The page from the cache or the engine, stored again when it worked:
 * - an entry at most maxAge old: returned as it is (cacheState "hit");
 * - an older entry (or any, with change tracking) that came with validators: a conditional
 *   request; on 304 the entry stands, renewed ("hit"), else the new page replaces it ("miss");
 * - in a crawl, an entry no older than the page's sitemap lastmod and without validators: it
 *   stands with no request at all, the sitemap vouching for it (revalidation.ts);
 * - else the page is scraped and stored ("miss").
 * A cache that cannot answer is a miss; a full disk loses the entry, not the page.
 * The entry's write is pushed on `writes`, for the caller to await once the history's is under way too; the
 * entry is read with `hold`, whose entries the caller releases.
 */
async function throughCache(
  engine: Engine,
  cache: PageCache,
  scrape: CachedScrape,
  job: { signal?: AbortSignal; access?: SiteAccess; sitemapLastmod?: number },
  { writes, hold }: { writes: Promise<void>[]; hold: (scrape: CachedScrape) => Promise<CacheEntry | undefined> },
): Promise<EnginePage> {
  const { url, scrapeOptions = {}, sessionOptions } = scrape;
  const maxAge = scrapeOptions.maxAge;
  const withState = (page: PageData, cacheState: 'hit' | 'miss'): PageData => (maxAge ? { ...page, metadata: { ...page.metadata, cacheState } } : page);
  // Aged on the store's clock (PostgreSQL: the database's, which stamped the entry).
  const fresh = maxAge ? await cache.get(scrape, maxAge).catch(() => undefined) : undefined;
  if (fresh) return withState(fresh, 'hit');
  const entry = await hold(scrape).catch(() => undefined);
  const plan = revalidationPlan(entry, job.sitemapLastmod);
  /** The stored page stands (vouched for, or not modified): renewed, and answered as a hit. */
  const stands = (): PageData => {
    writes.push(cache.renew(scrape, entry!).catch(() => undefined));
    return withState(entry!.data, 'hit');
  };
  if (plan === 'vouched') return stands();
  const revalidate = plan === 'conditional' ? { validators: entry!.validators } : {};
  const { validators, notModified, ...page } = await engine.scrape(url, { ...scrapeOptions, revalidate }, sessionOptions, job.signal, job.access);
  if (notModified) return stands();
  if (worthKeeping(page)) writes.push(cache.put(scrape, page, validators).catch(() => undefined));
  return withState(page, 'miss');
}

const DATA_URL = /^data:image\/(png|jpeg|webp);base64,/;
const ACTION_FILE = /^data:(?:image|application)\/(png|pdf);base64,/;

/** Files are numbered from `first` on (a worker running one page of a batch: its place, so pages never share one). */
export function withJobFiles(engine: Engine, files: JobFileWriter, jobId: string, first = 1): Engine {
  let taken = first - 1;
  return withScrape(engine, async (...args: Parameters<Scrape>) => {
    const data = await engine.scrape(...args);
    const match = data.screenshot === undefined ? null : DATA_URL.exec(data.screenshot);
    const actions = data.actions;
    const actionFiles = actions !== undefined && actions.screenshots.length + actions.pdfs.length > 0;
    if (!match && !actionFiles) return data;
    const n = ++taken;
    const out = { ...data };
    if (match) out.screenshot = await files.put(jobId, 'screenshot', n, match[1]!, Buffer.from(data.screenshot!.slice(match[0].length), 'base64'));
    if (actions && actionFiles) {
      // The files of page actions: the page's number, then theirs (screenshot-3-1.png, pdf-3-1.pdf).
      const put = (kind: string) => async (url: string, i: number) => {
        const file = ACTION_FILE.exec(url);
        return file ? files.put(jobId, kind, `${n}-${i + 1}`, file[1]!, Buffer.from(url.slice(file[0].length), 'base64')) : url;
      };
      out.actions = {
        ...actions,
        screenshots: await Promise.all(actions.screenshots.map(put('screenshot'))),
        pdfs: await Promise.all(actions.pdfs.map(put('pdf'))),
      };
    }
    return out;
  });
}

/** The json format (jsonFormat.ts, which loads the model clients): loaded only when a scrape asks for it. */
export function withJsonFormat(engine: Engine, env: NodeJS.ProcessEnv): Engine {
  let scrape: Promise<Scrape> | undefined;
  return withScrape(engine, async (...args: Parameters<Scrape>) => {
    if (!args[1]?.formats?.includes('json')) return engine.scrape(...args);
    scrape ??= import('./jsonFormat.js').then(({ scrapeWithJson }) => scrapeWithJson(engine, env));
    return (await scrape)(...args);
  });
}

/**
 * Chunks and token budgets (agentSizing.ts, which loads the tokenizer): loaded only when a scrape asks. Around
 * the json format and the cache, which see the page as if neither were asked.
 */
export function withAgentSizing(engine: Engine): Engine {
  let scrape: Promise<Scrape> | undefined;
  return withScrape(engine, async (...args: Parameters<Scrape>) => {
    const options = args[1];
    const asks = options?.formats?.includes('chunks') || options?.maxTokens !== undefined || options?.chunkTokens !== undefined;
    if (!asks) return engine.scrape(...args);
    scrape ??= import('./agentSizing.js').then(({ scrapeSized }) => scrapeSized((...inner) => engine.scrape(...inner)));
    return (await scrape)(...args);
  });
}

/** The preflight of a job that scrapes with these options: the json format's schema and model (jsonFormat.ts), when asked. */
export async function scrapePreflight(options: ScrapeOptions | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  if (!options?.formats?.includes('json')) return;
  (await import('./jsonFormat.js')).jsonPreflight(options, env);
}
