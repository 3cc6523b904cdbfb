import { existsSync } from 'node:fs';
import { EnvironmentError } from '../../api/errors.js';

const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome-beta',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export const NO_BROWSER_HELP =
  'No Chrome or Chromium found. Install one with `npx puppeteer browsers install chrome`, ' +
  'or your distribution\'s package (Debian/Ubuntu: `sudo apt-get install chromium`), ' +
  'or point WEBJOBS_CHROME at a Chrome/Chromium executable.';

/**
 * The browser to launch: an explicit setting first, then Puppeteer's own download,
 * then the usual system locations. `puppeteerPath` is what puppeteer.executablePath()
 * answered (it may name a download that never happened).
 */
export function findBrowser(env: NodeJS.ProcessEnv, puppeteerPath: () => string | undefined): string {
  for (const name of ['WEBJOBS_CHROME', 'PUPPETEER_EXECUTABLE_PATH'] as const) {
    const value = env[name];
    if (!value) continue;
    if (!existsSync(value)) throw new EnvironmentError(`${name} is set to ${value}, but no file is there. Fix or unset ${name}.`);
    return value;
  }
  let own: string | undefined;
  try {
    own = puppeteerPath();
  } catch {
    own = undefined;
  }
  if (own && existsSync(own)) return own;
  const system = SYSTEM_PATHS.find((candidate) => existsSync(candidate));
  if (system) return system;
  throw new EnvironmentError(NO_BROWSER_HELP);
}
