/**
 * One Chromium per process, shared by every page of every job, relaunched when it
 * dies. Tabs are reused: opening a tab costs more than navigating an open one.
 */
import os from 'node:os';
import type { Browser, Page } from 'puppeteer';
import puppeteer from 'puppeteer';
import { EnvironmentError } from '../api/errors.js';
import { findBrowser } from './findBrowser.js';
import { createProfileDir, removeStaleProfileDirs } from './profileDir.js';
import { proxyLaunchArgs, type ProxyConfig } from './session/proxy.js';

/** Flags that keep Chromium from reaching the internet by itself or showing first-run UI. */
const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--metrics-recording-only',
  '--no-default-browser-check',
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--mute-audio',
  '--hide-scrollbars',
];

/**
 * Decides whether the browser may request `url` (every request of a page:
 * navigations, each redirect hop, subresources). Resolves to a reason to refuse,
 * or undefined to let the request go. `webjobs serve` uses it against SSRF.
 */
export type RequestGuard = (url: string) => Promise<string | undefined>;

export interface BrowserSettings {
  /** Extra Chromium flags, e.g. --proxy-server. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Checked before each request the page makes; none means no restriction (the CLI's local mode). */
  requestGuard?: RequestGuard;
  /** Every request of this browser goes through this proxy. */
  proxy?: ProxyConfig;
}

export function launchArgs(extra: string[] = []): string[] {
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return [...QUIET_FLAGS, ...(runningAsRoot ? ['--no-sandbox'] : []), ...extra];
}

/**
 * Chromium is driven over a pipe (`pipe: true`), not a WebSocket: when webjobs
 * dies, however (SIGKILL included), the pipe closes and Chromium exits by itself.
 * Its profile is a folder webjobs owns (see profileDir.ts), removed when it exits.
 */
export async function launchBrowser(settings: BrowserSettings = {}): Promise<Browser> {
  const executablePath = findBrowser(settings.env ?? process.env, () => puppeteer.executablePath());
  await removeStaleProfileDirs();
  const profile = createProfileDir();
  try {
    const browser = await puppeteer.launch({
      executablePath,
      headless: true,
      pipe: true,
      userDataDir: profile.dir,
      // Chromium's own temporary files (org.chromium.Chromium.*) go inside the profile, and go with it.
      env: { ...process.env, TMPDIR: profile.tmpDir },
      args: launchArgs([...(settings.args ?? []), ...(settings.proxy ? proxyLaunchArgs(settings.proxy) : [])]),
      protocolTimeout: 60_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const child = browser.process();
    if (child && child.exitCode === null && child.signalCode === null) {
      profile.setKill(() => child.kill('SIGKILL'));
      child.once('exit', () => void profile.release());
    } else {
      await profile.release();
    }
    return browser;
  } catch (err) {
    await profile.release();
    throw new EnvironmentError(`Could not start the browser at ${executablePath}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/**
 * A tab's renderer keeps growing as it serves page after page; a fresh tab now
 * and then keeps a 1,000-page batch's memory near a 100-page one's.
 */
const PAGES_PER_TAB = 25;

/**
 * Hands out tabs of one shared browser. A tab whose page crashed is thrown away;
 * a browser that disconnected is replaced on the next request for a tab.
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private idle: Page[] = [];
  private closed = false;
  private readonly uses = new WeakMap<Page, number>();

  constructor(readonly settings: BrowserSettings = {}) {}

  private getBrowser(): Promise<Browser> {
    if (!this.browser) {
      const launching = launchBrowser(this.settings);
      this.browser = launching;
      launching.then(
        (browser) =>
          browser.on('disconnected', () => {
            if (this.browser === launching) {
              this.browser = undefined;
              this.idle = [];
            }
          }),
        () => {
          if (this.browser === launching) this.browser = undefined;
        },
      );
    }
    return this.browser;
  }

  async acquire(): Promise<Page> {
    if (this.closed) throw new Error('the browser pool is closed');
    const browser = await this.getBrowser();
    while (this.idle.length > 0) {
      const page = this.idle.pop()!;
      if (!page.isClosed() && page.browser() === browser && browser.connected) return page;
    }
    return browser.newPage();
  }

  /** Returns a tab for reuse, or closes it when it is no longer healthy. */
  async release(page: Page, healthy: boolean): Promise<void> {
    const uses = (this.uses.get(page) ?? 0) + 1;
    this.uses.set(page, uses);
    if (!healthy || uses >= PAGES_PER_TAB || this.closed || page.isClosed() || !page.browser().connected) {
      await page.close().catch(() => undefined);
      return;
    }
    this.idle.push(page);
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = undefined;
    this.idle = [];
    if (browser) await (await browser.catch(() => undefined))?.close().catch(() => undefined);
  }
}

/** A sensible number of tabs for this machine: renderers are CPU-bound. */
export function defaultConcurrency(): number {
  return Math.max(2, Math.min(16, os.availableParallelism() * 4));
}
