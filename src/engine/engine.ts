/**
 * The engine as the rest of webjobs sees it: scrape a URL with scrape and session
 * options. It owns the browser(s); one per distinct browser configuration.
 */
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import puppeteer from 'puppeteer';
import { BrowserPool, type BrowserSettings } from './browser.js';
import { findBrowser } from './findBrowser.js';
import { scrapeUrl } from './scrape.js';

export interface Engine {
  /** Throws (EnvironmentError, ConfigError) when a job with these options could not run here. */
  preflight(sessionOptions?: SessionOptions): void;
  scrape(url: string, scrapeOptions?: ScrapeOptions, sessionOptions?: SessionOptions): Promise<PageData>;
  close(): Promise<void>;
}

export class BrowserEngine implements Engine {
  private readonly pools = new Map<string, BrowserPool>();

  constructor(private readonly settings: BrowserSettings = {}) {}

  private pool(): BrowserPool {
    const key = 'direct';
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new BrowserPool(this.settings);
      this.pools.set(key, pool);
    }
    return pool;
  }

  preflight(_sessionOptions?: SessionOptions): void {
    findBrowser(this.settings.env ?? process.env, () => puppeteer.executablePath());
  }

  scrape(url: string, scrapeOptions?: ScrapeOptions, _sessionOptions?: SessionOptions): Promise<PageData> {
    return scrapeUrl(this.pool(), url, scrapeOptions);
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
