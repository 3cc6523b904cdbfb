/**
 * A profile (Firecrawl v2's `profile`) in a tab: the cookies and local storage an
 * earlier run kept are put into the job's browser context before the page loads
 * (so before the first action), and what the context holds is saved after the
 * page. Where a profile is kept is the job's business (jobs/profiles.ts); nothing
 * of it is ever logged.
 */
import type { BrowserContext, Page } from 'puppeteer';
import type { ProfileHandle } from '../../api/actionTypes.js';

export type { ProfileHandle };

/** Browser contexts the profile was loaded into already: once, so that what the site sets later stays. */
const loaded = new WeakSet<BrowserContext>();

/** Runs in each new document: the profile's local storage for its origin, once per tab and origin. */
function restoreStorage(origins: Record<string, Record<string, string>>): void {
  try {
    const items = origins[location.origin];
    if (!items || sessionStorage.getItem('__webjobs_profile') === '1') return;
    for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
    sessionStorage.setItem('__webjobs_profile', '1');
  } catch {
    // An opaque origin (about:blank, a sandboxed frame) has no storage.
  }
}

/** Puts the profile into the tab's context; returns what to undo once the page is done. */
export async function loadProfile(page: Page, profile: ProfileHandle): Promise<() => Promise<void>> {
  const context = page.browserContext();
  const state = await profile.load();
  if (!state) return async () => undefined;
  if (!loaded.has(context)) {
    loaded.add(context);
    if (state.cookies.length > 0) await context.setCookie(...state.cookies);
  }
  const { identifier } = await page.evaluateOnNewDocument(restoreStorage, state.origins);
  return () => page.removeScriptToEvaluateOnNewDocument(identifier).catch(() => undefined);
}

/** Saves the context's cookies and the page's local storage (merged with the origins kept before). */
export async function saveProfile(page: Page, profile: ProfileHandle): Promise<void> {
  if (!profile.save) return;
  const before = (await profile.load()) ?? { cookies: [], origins: {} };
  const cookies = await page.browserContext().cookies();
  const current = await page
    .evaluate(() => {
      try {
        const items: Record<string, string> = {};
        for (let i = 0; i < localStorage.length; i++) {
          const key = localStorage.key(i)!;
          items[key] = localStorage.getItem(key) ?? '';
        }
        return { origin: location.origin, items };
      } catch {
        return undefined;
      }
    })
    .catch(() => undefined);
  const origins = { ...before.origins };
  if (current && current.origin.startsWith('http')) origins[current.origin] = current.items;
  await profile.save({
    cookies: cookies.map(({ name, value, domain, path, expires, httpOnly, secure, sameSite }) => ({
      name,
      value,
      domain,
      path,
      ...(expires > 0 ? { expires } : {}),
      httpOnly: httpOnly ?? false,
      secure,
      ...(sameSite === 'Strict' || sameSite === 'Lax' || sameSite === 'None' ? { sameSite } : {}),
    })),
    origins,
  });
}
