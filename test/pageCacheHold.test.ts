/**
 * The file page cache's entries read to be renewed (FilePageCache hold, renew,
 * release): the entry's file stays open until it is renewed (in place, through
 * it) or released, and never after.
 */
import { readdirSync, readFileSync, readlinkSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CachedScrape } from '../src/jobs/contracts.js';
import { FilePageCache } from '../src/store/pageCache.js';
import { tempHome } from './helpers/cli.js';
import { until } from './helpers/resumeSite.js';

/**
 * How many of this process's descriptors are open on files under `homes`. Only the
 * cache's own files count: the test process opens and closes others (its runner's
 * pipes, timers) at any moment, and counting those made a count one short in CI.
 */
function openFiles(...homes: string[]): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return false; // closed since the listing
    }
    return homes.some((home) => target.startsWith(home + path.sep));
  }).length;
}
const scrape = (n: number): CachedScrape => ({ url: `https://a.example/${n}`, scrapeOptions: { formats: ['markdown'] } });
const page = (n: number) => ({ metadata: { url: `https://a.example/${n}`, title: `Page ${n}` }, markdown: `# Page ${n}` });

/** The one entry file of the cache in `home`. */
function entryFile(home: string): string {
  const dir = path.join(home, 'cache');
  const [sub] = readdirSync(dir);
  return path.join(dir, sub!, readdirSync(path.join(dir, sub!))[0]!);
}

async function noneLeftOpen(...homes: string[]): Promise<void> {
  await until(() => openFiles(...homes) === 0, () => `${openFiles(...homes)} files still open`, 5_000);
}

describe('FilePageCache hold', () => {
  it('renews an entry held in place, through the file it read, and closes it', async () => {
    const home = tempHome();
    const cache = new FilePageCache(home);
    await cache.put(scrape(1), page(1), { etag: '"1"' });
    expect(openFiles(home)).toBe(0);
    const entry = (await cache.hold(scrape(1)))!;
    expect(entry.data).toEqual(page(1));
    expect(openFiles(home)).toBe(1);
    // Replaced since it was read (another process's put): the renewal goes to the file read, not the new one.
    const file = entryFile(home);
    const stored = readFileSync(file, 'utf8');
    writeFileSync(`${file}.new`, stored.replace('"Page 1"', '"Page 1, again"'));
    renameSync(`${file}.new`, file);
    await cache.renew(scrape(1), entry);
    await noneLeftOpen(home);
    expect(readFileSync(file, 'utf8')).toBe(stored.replace('"Page 1"', '"Page 1, again"'));
    // Not replaced: renewed in place.
    const again = (await cache.hold(scrape(1)))!;
    const renewing = Date.now();
    await cache.renew(scrape(1), again);
    await noneLeftOpen(home);
    const renewed = (await cache.last(scrape(1)))!;
    expect(renewed.storedAt).toBeGreaterThanOrEqual(renewing);
    expect(renewed.data.metadata.title).toBe('Page 1, again');
    expect(renewed.validators).toEqual({ etag: '"1"' });
  });

  it('closes what it held on release, renewed or not, and holds nothing for a missing or damaged entry', async () => {
    const home = tempHome();
    const cache = new FilePageCache(home);
    await Promise.all([1, 2, 3].map((n) => cache.put(scrape(n), page(n))));
    expect(openFiles(home)).toBe(0);
    const entries = await Promise.all([1, 2, 3].map((n) => cache.hold(scrape(n))));
    expect(openFiles(home)).toBe(3);
    await cache.renew(scrape(2), entries[1]!);
    for (const entry of entries) cache.release(entry!);
    await noneLeftOpen(home);
    expect(await cache.hold(scrape(4))).toBeUndefined();
    const damagedHome = tempHome();
    const damaged = new FilePageCache(damagedHome);
    await damaged.put(scrape(5), page(5));
    writeFileSync(entryFile(damagedHome), '{"storedAt":1234567890123,"da');
    expect(await damaged.hold(scrape(5))).toBeUndefined();
    await noneLeftOpen(home, damagedHome);
  });

  it('last() holds nothing', async () => {
    const home = tempHome();
    const cache = new FilePageCache(home);
    await cache.put(scrape(1), page(1));
    const entry = (await cache.last(scrape(1)))!;
    await noneLeftOpen(home);
    cache.release(entry);
    await cache.renew(scrape(1), entry);
    await noneLeftOpen(home);
  });
});
