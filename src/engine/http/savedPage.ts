/**
 * A saved page (a file:// URL: `webjobs scrape page.html`, HTML on stdin) read
 * as the HTTP engine reads a response: the same fetchPage and extraction, with
 * the file in place of the network. Nothing the page names is loaded (scripts,
 * style sheets, images, frames, a meta refresh): the page is read as it was
 * saved, offline. Only the CLI's own jobs on this machine name saved pages
 * (validate.ts, savedPages); `serve` and MCP refuse file:// URLs.
 */
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { PageError } from '../../api/errors.js';
import { asPlain, type PlainFetch } from '../crawl/fetchText.js';

/** What a saved file is read as, by its extension; a file without one is HTML (stdin, `curl -o page`). */
const SAVED_TYPES: Record<string, string> = {
  '': 'text/html',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.shtml': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.xht': 'application/xhtml+xml',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.md': 'text/plain',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/** The fetcher of one saved page: answers its file:// URL with the file, status 200, typed by its extension. */
export function savedPageFetch(url: string): PlainFetch {
  return async (target, init) => {
    if (target !== url) throw new PageError(`${url} is a saved page, read alone: ${target} is not loaded`);
    let file: string;
    try {
      file = fileURLToPath(url);
    } catch (err) {
      throw new PageError(`${url} does not name a file on this machine: ${(err as Error).message}`);
    }
    const extension = path.extname(file).toLowerCase();
    const type = SAVED_TYPES[extension];
    if (type === undefined) {
      throw new PageError(`${file} is not a saved web page (${extension} file): saved pages are read from ${Object.keys(SAVED_TYPES).filter(Boolean).join(', ')} files`);
    }
    const stat = await fs.stat(file).catch((err: NodeJS.ErrnoException) => {
      throw new PageError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
    });
    if (stat.isDirectory()) throw new PageError(`cannot read ${file}: it is a folder`);
    // fetchPage reads the body up to its cap and stops: the stream is cancelled, the file closed.
    const body = Readable.toWeb(createReadStream(file, { signal: init.signal })) as ReadableStream<Uint8Array>;
    return asPlain(new Response(body, { status: 200, headers: { 'content-type': type } }));
  };
}
