/** A page set's stored pages served on 127.0.0.1, as bench:quality and bench:extract's CLI batch read them. */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';

/** No scripts, and nothing from any host but the one serving the page: no request leaves 127.0.0.1. */
const CSP = "default-src 'self' data: 'unsafe-inline'; script-src 'none'";

/** Serves <htmlDir>/<id>.html.gz as /<id>.html, decompressed, under the CSP above. */
export async function startServer(htmlDir: string): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    const match = /^\/([\w-]+)\.html$/.exec((req.url ?? '').split('?')[0]!);
    let body: Buffer | undefined;
    try {
      if (match) body = gunzipSync(readFileSync(path.join(htmlDir, `${match[1]}.html.gz`)));
    } catch {
      body = undefined;
    }
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'content-length': body.length,
    });
    res.end(body);
  });
  return listenOnLoopback(server);
}
