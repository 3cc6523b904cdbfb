/**
 * The engine as the rest of webjobs sees it: scrape a URL, or fetch a plain
 * resource (robots.txt, a sitemap), with scrape and session options. It owns the
 * browsers: one per distinct proxy, since Chromium takes its proxy at launch.
 */
import puppeteer from 'puppeteer';
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import { BrowserPool, type BrowserSettings } from './browser.js';
import { findBrowser } from './findBrowser.js';
import { scrapeUrl } from './scrape.js';
import { solverConfig } from './session/captcha.js';
import { proxiedFetch } from './session/proxiedFetch.js';
import { resolveProxy, type ProxyConfig } from './session/proxy.js';

export interface FetchOptions {
  timeoutMs: number;
  sessionOptions?: SessionOptions;
  headers?: Record<string, string>;
}

export interface Engine {
  /** Throws (EnvironmentError, ConfigError) when a job with these options could not run here. */
  preflight(sessionOptions?: SessionOptions): void;
  scrape(url: string, scrapeOptions?: ScrapeOptions, sessionOptions?: SessionOptions): Promise<PageData>;
  /** A plain HTTP GET outside the browser, through the session's proxy when it has one. */
  fetch(url: string, options: FetchOptions): Promise<Response>;
  close(): Promise<void>;
}

export class BrowserEngine implements Engine {
  private readonly pools = new Map<string, BrowserPool>();

  constructor(private readonly settings: BrowserSettings = {}) {}

  private get env(): NodeJS.ProcessEnv {
    return this.settings.env ?? process.env;
  }

  private pool(proxy: ProxyConfig | undefined): BrowserPool {
    const key = proxy?.url ?? 'direct';
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new BrowserPool({ ...this.settings, proxy });
      this.pools.set(key, pool);
    }
    return pool;
  }

  preflight(sessionOptions?: SessionOptions): void {
    findBrowser(this.env, () => puppeteer.executablePath());
    resolveProxy(sessionOptions, this.env);
    if (sessionOptions?.solveCaptchas) solverConfig(this.env);
  }

  scrape(url: string, scrapeOptions?: ScrapeOptions, sessionOptions?: SessionOptions): Promise<PageData> {
    const proxy = resolveProxy(sessionOptions, this.env);
    const solver = sessionOptions?.solveCaptchas ? solverConfig(this.env) : undefined;
    return scrapeUrl(this.pool(proxy), url, scrapeOptions, solver);
  }

  fetch(url: string, options: FetchOptions): Promise<Response> {
    return proxiedFetch(url, resolveProxy(options.sessionOptions, this.env), options);
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
