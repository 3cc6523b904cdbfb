/**
 * A page's screenshot as the CLI hands it out: `data.screenshot` names a file
 * in the job (locally) or a URL on the service (--remote); a file or a pipe
 * gets the image itself.
 */
import { promises as fs } from 'node:fs';
import { RemoteError } from '../api/errors.js';
import type { Format, PageData } from '../api/types.js';
import { outputIsTerminal } from './output.js';
import { renderPage } from '../api/renderPage.js';

/** The image `ref` names: a file of the local store, or a URL of the service, fetched with its API key. */
export async function readScreenshot(ref: string, apiKey: string | undefined): Promise<Uint8Array> {
  if (!/^https?:\/\//.test(ref)) return fs.readFile(ref);
  const response = await fetch(ref, { headers: apiKey ? { 'x-api-key': apiKey } : {} });
  if (!response.ok) throw new RemoteError(`could not download the screenshot ${ref}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * What `scrape` (and `result --content`) writes for a page: the screenshot's
 * bytes when it is the one format asked and the output is no terminal (-o FILE,
 * `> shot.png`, a pipe); otherwise the text of renderPage (a terminal gets the
 * screenshot's path, not binary).
 */
export async function pageOutput(data: PageData, formats: Format[] | undefined, outFile: string | undefined, apiKey: string | undefined): Promise<string | Uint8Array> {
  const screenshotAlone = formats?.length === 1 && formats[0] === 'screenshot';
  if (screenshotAlone && data.screenshot && !outputIsTerminal(outFile)) return readScreenshot(data.screenshot, apiKey);
  return renderPage(data, formats);
}
