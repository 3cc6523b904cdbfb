/**
 * One Chromium per process (per upstream proxy), relaunched when it dies. Each job
 * gets its own browser context: cookies, storage, cache and tabs are never shared
 * between jobs. Within a job tabs are reused: opening a tab costs more than
 * navigating an open one.
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import type { Browser, BrowserContext, Page, Target } from 'puppeteer';
import { launchNiced, lowerPriority } from './priority.js';
import { EnvironmentError } from '../../api/errors.js';
import { VIEWPORT } from '../../api/types.js';
import { userAgentHeader } from '../userAgent.js';
import { bareHost, egressLaunchArgs, startEgressProxy, type EgressGuard, type EgressProxy } from '../net/egress.js';
import type { RequestGuard } from '../net/ssrf.js';
import { findBrowser } from './findBrowser.js';
import { createProfileDir, removeStaleProfileDirs } from './profileDir.js';
import { proxyLaunchArgs, type ProxyConfig } from '../session/proxy.js';
import type { TabTurns } from './tabTurns.js';

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


export interface BrowserSettings {
  /** Extra Chromium flags, e.g. --proxy-server. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Checked before each request the page makes; none means no restriction (the CLI's local mode). */
  requestGuard?: RequestGuard;
  /**
   * Checks each connection the browser opens, at the egress proxy every connection
   * then goes through (egress.ts). Set with requestGuard, by `webjobs serve`.
   */
  egressGuard?: EgressGuard;
  /** Every request of this browser goes through this proxy. */
  proxy?: ProxyConfig;
  /** Chromium runs at this much lower CPU priority (nice) than this process (priority.ts); `serve --browser-nice`. */
  browserNice?: number;
  /** file:// URLs of saved pages are read (http/savedPage.ts): the CLI's own jobs only, never serve or MCP. */
  savedPages?: boolean;
  /**
   * Tabs in use at once across every job, handed out in turn per key (tabTurns.ts): `webjobs serve`'s. Without
   * it each job opens the tabs its concurrency asks for (the CLI).
   */
  tabTurns?: TabTurns;
}

export function launchArgs(extra: string[] = []): string[] {
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // Pages go out with the same User-Agent as robots.txt and sitemap requests (userAgent.ts).
  return [...QUIET_FLAGS, `--user-agent=${userAgentHeader()}`, ...(runningAsRoot ? ['--no-sandbox'] : []), ...extra];
}

/**
 * Chromium is driven over a pipe (`pipe: true`), not a WebSocket: when webjobs
 * dies, however (SIGKILL included), the pipe closes and Chromium exits by itself.
 * Its profile is a folder webjobs owns (see profileDir.ts), removed when it exits.
 */
export async function launchBrowser(settings: BrowserSettings = {}): Promise<Browser> {
  // Loaded here, not at startup: a run that reads its pages over HTTP never needs Puppeteer (~0.2 s to load).
  const { default: puppeteer } = await import('puppeteer');
  const executablePath = findBrowser(settings.env ?? process.env, () => puppeteer.executablePath());
  await removeStaleProfileDirs();
  const profile = createProfileDir();
  try {
    const args = launchArgs([...(settings.args ?? []), ...(settings.proxy ? proxyLaunchArgs(settings.proxy) : [])]);
    // Puppeteer's own flags but one: it turns popup blocking off, and a page must not open windows by itself.
    const chromiumArgs = puppeteer.defaultArgs({ headless: true, userDataDir: profile.dir, args }).filter((arg) => arg !== '--disable-popup-blocking');
    // A lower priority must hold on Chromium's threads (priority.ts).
    const command = settings.browserNice ? launchNiced(executablePath, chromiumArgs, settings.browserNice) : { executablePath, args: chromiumArgs };
    const browser = await puppeteer.launch({
      executablePath: command.executablePath,
      args: command.args,
      ignoreDefaultArgs: true,
      headless: true,
      pipe: true,
      userDataDir: profile.dir,
      // Chromium's own temporary files (org.chromium.Chromium.*) go inside the profile, and go with it.
      env: { ...process.env, TMPDIR: profile.tmpDir },
      defaultViewport: VIEWPORT,
      protocolTimeout: 60_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const child = browser.process();
    if (settings.browserNice && child?.pid !== undefined) lowerPriority(child.pid, settings.browserNice);
    if (child && child.exitCode === null && child.signalCode === null) {
      profile.setKill(() => killProcessGroup(child));
      // What is left of its process group goes first: a zygote or utility process outliving the browser
      // for a moment wrote into the folder being removed, and recreated it (CI caught one after mcp's stdin closed).
      child.once('exit', () => {
        killProcessGroup(child);
        void profile.release();
      });
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
/** How the pool opens a tab: a window of its own, in the background (open()). */
const OWN_WINDOW = { type: 'window', background: true } as const;

/** The tabs of one job: its own browser context, and the tabs it has free. */
interface JobTabs {
  /** None for the browser's default context. */
  context?: Promise<BrowserContext>;
  idle: Page[];
  /** The job has ended: its tabs are closed, never reused. */
  over: boolean;
}

/**
 * Hands out tabs of one shared browser. Each job (named by its AbortSignal) gets
 * its own browser context, closed with everything in it (tabs, popups, workers)
 * as soon as the signal aborts: the job's owner aborts it when the job is
 * cancelled or ends. A tab whose page crashed is thrown away; a browser that
 * disconnected is replaced on the next request for a tab.
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private egress: Promise<EgressProxy> | undefined;
  private egressStarted: EgressProxy | undefined;
  private readonly jobs = new Map<AbortSignal, JobTabs>();
  /** Tabs of callers that run no job (tests, benchmarks): the browser's default context. */
  private unscoped: JobTabs = { idle: [], over: false };
  /** The last window asked for (oneWindowAtATime). */
  private opening: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly uses = new WeakMap<Page, number>();
  private readonly tabsOf = new WeakMap<Page, JobTabs>();
  /** Tabs handed out under a turn of settings.tabTurns, not released yet. */
  private readonly turned = new WeakSet<Page>();

  constructor(readonly settings: BrowserSettings = {}) {}

  private getBrowser(): Promise<Browser> {
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      launching.then(
        (browser) =>
          browser.on('disconnected', () => {
            if (this.browser === launching) {
              this.browser = undefined;
              this.unscoped = { idle: [], over: false };
              this.jobs.clear();
            }
          }),
        () => {
          if (this.browser === launching) this.browser = undefined;
        },
      );
    }
    return this.browser;
  }

  /**
   * The egress proxy all of this pool's connections go through (the browser's, and
   * Node's own fetches for the crawler), started on first use; none without a guard.
   */
  egressProxy(): Promise<EgressProxy> | undefined {
    const guard = this.settings.egressGuard;
    if (!guard) return undefined;
    if (!this.egress) {
      const starting = startEgressProxy(guard, this.settings.proxy);
      this.egress = starting;
      starting.then((proxy) => (this.egressStarted = proxy)).catch(() => undefined);
    }
    return this.egress;
  }

  /**
   * Why the egress proxy did not connect to the host of `url` (refused, or the
   * connection failed), for errors Chromium only reports as a failed tunnel.
   */
  egressFailure(url: string): string | undefined {
    if (!this.egressStarted) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    const port = Number(parsed.port || (parsed.protocol === 'https:' || parsed.protocol === 'wss:' ? 443 : 80));
    return this.egressStarted.failure(bareHost(parsed.hostname), port);
  }

  private async launch(): Promise<Browser> {
    const egress = this.egressProxy();
    if (!egress) return launchBrowser(this.settings);
    // The egress proxy carries the upstream proxy's credentials; Chromium talks to it alone.
    const args = [...(this.settings.args ?? []), ...egressLaunchArgs((await egress).url)];
    return launchBrowser({ ...this.settings, proxy: undefined, args });
  }

  /** The job's tabs, its context created on first use and closed when `job` aborts. */
  private tabsFor(browser: Browser, job: AbortSignal): JobTabs {
    let tabs = this.jobs.get(job);
    if (tabs) return tabs;
    const context = browser.createBrowserContext().then((created) => {
      closeWindowsOpenedByPages(created);
      return created;
    });
    const created: JobTabs = { context, idle: [], over: false };
    this.jobs.set(job, created);
    job.addEventListener(
      'abort',
      () => {
        created.over = true;
        this.jobs.delete(job);
        void context.then((created) => created.close()).catch(() => undefined);
      },
      { once: true },
    );
    return created;
  }

  /**
   * A tab for `job` (tabs are reused only within one job); without a job, a tab of the default context. With
   * settings.tabTurns, it waits for `key`'s turn at a tab first (release() ends the turn).
   */
  async acquire(job?: AbortSignal, key?: string): Promise<Page> {
    if (this.closed) throw new Error('the browser pool is closed');
    job?.throwIfAborted();
    const turns = this.settings.tabTurns;
    await turns?.take(key, job);
    try {
      const page = await this.open(job);
      if (turns) this.turned.add(page);
      return page;
    } catch (err) {
      turns?.give();
      throw err;
    }
  }

  private async open(job?: AbortSignal): Promise<Page> {
    const browser = await this.getBrowser();
    const tabs = job ? this.tabsFor(browser, job) : this.unscoped;
    while (tabs.idle.length > 0) {
      const page = tabs.idle.pop()!;
      if (!page.isClosed() && page.browser() === browser && browser.connected) return page;
    }
    const owner = tabs.context ? await tabs.context : browser;
    const page = await this.oneWindowAtATime(() => owner.newPage(OWN_WINDOW));
    this.tabsOf.set(page, tabs);
    return page;
  }

  /**
   * Each tab is a window of its own, opened behind the others: Chromium shows only the front tab of a window,
   * and a tab behind another is `hidden`: its animation frames never run (content a script draws in one never
   * comes) and a screenshot of it waits for a frame that never comes (CI saw a batch of page actions hang).
   * Windows are opened one at a time: two asked for at once came as two tabs of one window.
   */
  private oneWindowAtATime(open: () => Promise<Page>): Promise<Page> {
    const opened = this.opening.then(open, open);
    this.opening = opened.catch(() => undefined);
    return opened;
  }

  /** Returns a tab for reuse by the same job, or closes it when it is no longer healthy; its turn (tabTurns) is over. */
  async release(page: Page, healthy: boolean): Promise<void> {
    if (this.turned.delete(page)) this.settings.tabTurns!.give();
    const uses = (this.uses.get(page) ?? 0) + 1;
    this.uses.set(page, uses);
    const tabs = this.tabsOf.get(page);
    if (!healthy || !tabs || tabs.over || uses >= PAGES_PER_TAB || this.closed || page.isClosed() || !page.browser().connected) {
      await page.close().catch(() => undefined);
      return;
    }
    tabs.idle.push(page);
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = undefined;
    this.unscoped = { idle: [], over: false };
    this.jobs.clear();
    if (browser) await (await browser.catch(() => undefined))?.close().catch(() => undefined);
    const egress = this.egress;
    this.egress = undefined;
    this.egressStarted = undefined;
    if (egress) await (await egress.catch(() => undefined))?.close();
  }
}

/**
 * Windows a page opens (window.open, target=_blank links and forms) are closed as
 * soon as they appear: a scrape reads the page it was given, and a window left
 * running would act on the job's behalf with nobody watching it. Tabs the pool
 * opens have no opener.
 */
function closeWindowsOpenedByPages(context: BrowserContext): void {
  context.on('targetcreated', (target: Target) => {
    if (target.type() !== 'page' || !target.opener()) return;
    void target
      .page()
      .then((page) => page?.close())
      .catch(() => undefined);
  });
}

/** A sensible number of tabs for this machine: renderers are CPU-bound. */
export function defaultConcurrency(): number {
  return Math.max(2, Math.min(16, os.availableParallelism() * 4));
}

/**
 * Kills a browser and every process it started, at once: Puppeteer starts Chromium as the
 * leader of its own process group. Killing the browser alone left its zygotes and utility
 * processes alive for a moment after, writing into the profile folder being removed, which
 * they recreated (CI caught one left behind after a second Ctrl-C).
 */
function killProcessGroup(child: ChildProcess): void {
  try {
    if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL'); // no such group (already gone, or not a group leader): the browser alone
  }
}
