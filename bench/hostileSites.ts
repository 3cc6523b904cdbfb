/**
 * Hostile sites for the serve bench (issue 10), each on its own loopback port, so
 * that each crawl reads its own robots.txt and sitemaps:
 *   longPaths      a start page linking to long paths (for backtracking-prone patterns)
 *   endlessRobots  a robots.txt sent chunked that never ends
 *   bombs          a sitemap index listing gzip bombs
 *   badEntity      a sitemap with an entry holding a reference to no character
 * Start pages other than longPaths link nowhere: a crawl with room for 100 pages
 * keeps reading sitemaps until the files run out, so every bomb is fetched.
 */
import http from 'node:http';
import { createGzip } from 'node:zlib';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import { words } from './site.js';

const MiB = 1024 * 1024;
/** Sitemap files in the bombs' index: with the index itself, the 50 files a crawl reads at most. */
export const BOMB_COUNT = 49;
/** Bytes each bomb inflates to: past the 10 MiB a sitemap is read to. */
const BOMB_INFLATED = 120 * MiB;
/** Links on the long-paths start page, and the length of the first one's path (each next is 20 longer). */
const LONG_LINKS = 100;
const SHORTEST_PATH = 40;

export interface HostileSites {
  longPaths: LoopbackServer;
  endlessRobots: LoopbackServer;
  bombs: LoopbackServer;
  badEntity: LoopbackServer;
  /** What the sites saw: requests for the endless robots.txt and the most bytes one got before the client hung up, bombs sent. */
  seen: { robotsRequests: number; robotsMaxBytes: number; bombsSent: number };
  close(): Promise<void>;
}

function page(title: string, links: string[] = []): string {
  const anchors = links.map((href, i) => `<li><a href="${href}">link ${i}</a></li>`).join('');
  const paragraphs = Array.from({ length: 4 }, (_, i) => `<p>${words(title.length * 10 + i, 60)}.</p>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><article><h1>${title}</h1>${paragraphs}<ul>${anchors}</ul></article></body></html>`;
}

function send(res: http.ServerResponse, type: string, body: string | Buffer): void {
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

/** Serves `routes` by path; anything else is a 404. */
function site(routes: Record<string, (res: http.ServerResponse) => void>): Promise<LoopbackServer> {
  return listenOnLoopback(
    http.createServer((req, res) => {
      const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
      if (route) route(res);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }),
  );
}

/**
 * Writes `head`, then `filler` until `total` bytes were written (never, by default) or
 * the client hung up, heeding backpressure; resolves with the bytes written. Shared with
 * the hostile-crawl test.
 */
export function stream(res: http.ServerResponse, head: string, filler: Buffer, total = Infinity): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
      resolve(written);
    });
    const pump = () => {
      while (!closed && written < total) {
        const chunk = written === 0 ? Buffer.from(head) : filler;
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!closed) res.end(() => resolve(written));
    };
    pump();
  });
}

/** gzip of `head` and `size` bytes of spaces, made by a stream so nothing here holds the inflated text (bench and tests). */
export function gzipBomb(head: string, size: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gzip = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => parts.push(chunk));
    gzip.on('end', () => resolve(Buffer.concat(parts)));
    gzip.on('error', reject);
    gzip.write(head);
    const spaces = Buffer.alloc(MiB, 0x20);
    let left = size;
    const pump = () => {
      while (left > 0) {
        left -= spaces.length;
        if (!gzip.write(spaces)) return void gzip.once('drain', pump);
      }
      gzip.end('</urlset>');
    };
    pump();
  });
}

export async function startHostileSites(): Promise<HostileSites> {
  const seen = { robotsRequests: 0, robotsMaxBytes: 0, bombsSent: 0 };
  const servers: LoopbackServer[] = [];
  const started = async (server: Promise<LoopbackServer>) => {
    servers.push(await server);
    return servers.at(-1)!;
  };
  const close = async () => void (await Promise.all(servers.map((s) => s.close())));
  try {
    const longPaths = await started(
      site({
        '/': (res) => {
          // Half the paths cross a segment, so that "*" and "**" both have work to do.
          const links = Array.from({ length: LONG_LINKS }, (_, i) => {
            const path = 'a'.repeat(SHORTEST_PATH + 20 * i);
            return i % 2 ? `/${path.slice(0, 20)}/${path.slice(20)}` : `/${path}`;
          });
          send(res, 'text/html; charset=utf-8', page('Long paths', links));
        },
      }),
    );

    const line = Buffer.from(`# ${'padding '.repeat(120)}\n`);
    const filler = Buffer.concat(Array(64).fill(line));
    const endlessRobots = await started(
      site({
        '/robots.txt': (res) => {
          seen.robotsRequests++;
          // Chunked (no Content-Length), never ending: the client decides when to stop.
          res.writeHead(200, { 'content-type': 'text/plain' });
          void stream(res, 'User-agent: *\nDisallow: /private\n', filler).then((bytes) => (seen.robotsMaxBytes = Math.max(seen.robotsMaxBytes, bytes)));
        },
        '/': (res) => send(res, 'text/html; charset=utf-8', page('Endless robots')),
      }),
    );

    // One bomb for all: each lists the same page, so the crawl's frontier never fills and every file is read.
    const bomb = await gzipBomb('<?xml version="1.0"?><urlset><url><loc>/from-bomb</loc></url>', BOMB_INFLATED);
    const bombRoutes: Record<string, (res: http.ServerResponse) => void> = {
      '/': (res) => send(res, 'text/html; charset=utf-8', page('Bombs')),
      '/from-bomb': (res) => send(res, 'text/html; charset=utf-8', page('From a bomb')),
    };
    for (let i = 0; i < BOMB_COUNT; i++) {
      bombRoutes[`/bomb-${i}.xml.gz`] = (res) => {
        seen.bombsSent++;
        send(res, 'application/gzip', bomb);
      };
    }
    const bombs = await started(site(bombRoutes));
    const index = Array.from({ length: BOMB_COUNT }, (_, i) => `<sitemap><loc>${bombs.base}/bomb-${i}.xml.gz</loc></sitemap>`).join('');
    bombRoutes['/sitemap.xml'] = (res) => send(res, 'application/xml', `<?xml version="1.0"?><sitemapindex>${index}</sitemapindex>`);

    const badEntity = await started(
      site({
        '/sitemap.xml': (res) =>
          send(
            res,
            'application/xml',
            '<?xml version="1.0"?><urlset><url><loc>/bad-&#99999999999;-entity</loc></url>' +
              '<url><loc>/surrogate-&#xD800;</loc></url><url><loc>/after-entity?a=1&amp;b=2</loc></url></urlset>',
          ),
        '/': (res) => send(res, 'text/html; charset=utf-8', page('Bad entity')),
        '/after-entity': (res) => send(res, 'text/html; charset=utf-8', page('After the entity')),
      }),
    );
    return { longPaths, endlessRobots, bombs, badEntity, seen, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The longest and most patterns validation allows (20 of 100 characters at most, each list), shaped to
 * make a backtracking matcher take exponential time on the long paths; none matches them.
 */
export function backtrackingPatterns(maxPatterns: number, maxLength: number): { includePatterns: string[]; excludePatterns: string[] } {
  const repeat = (unit: string, end: string) => unit.repeat(Math.floor((maxLength - end.length) / unit.length)) + end;
  const ends = 'bcdefghijklmnopqrstuvwxyz';
  const of = (unit: string) => Array.from({ length: maxPatterns }, (_, i) => repeat(i % 2 ? unit : '**', ends[i % ends.length]!));
  return { includePatterns: of('*a'), excludePatterns: of('a*') };
}
