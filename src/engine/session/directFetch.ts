/**
 * Node-side requests that take no proxy (the CLI's, without --proxy), over
 * node:http and node:https, answered with what Node's fetch answers (a
 * PlainResponse, fetchText.ts: the parts of a Response its readers use), and
 * failing as it fails. fetch costs the thread about twice what node:http does a
 * request (~0.2 ms against ~0.1 ms here): a re-crawl of an unchanged site is
 * little else but conditional requests, one a page. Neither fetch nor Response is
 * touched on the way, so that a CLI run never loads undici (~15 ms of its start);
 * node:http is taken with process.getBuiltinModule, as an ES import of it loads
 * undici too (for its WebSocket getter).
 *
 * What fetch did, done here too:
 * - the ports browsers refuse (the Fetch standard's "bad port" list) are refused:
 *   TypeError "fetch failed", its cause "bad port";
 * - `accept` is "*\/*", `accept-language` "*" and `accept-encoding` "gzip, deflate"
 *   (with br over https) unless the caller set them, and the body is decoded as
 *   its Content-Encoding says (an unknown coding is left as it came);
 * - a request that fails is a TypeError "fetch failed" with the system's error as
 *   its cause; an aborted one rejects with the signal's reason (a TimeoutError of
 *   timeoutSignal), and so does reading the body of one aborted meanwhile;
 * - redirects are not followed (callers ask for `redirect: 'manual'` and follow
 *   them hop by hop); a 204, 205 or 304 has no body;
 * - headers as fetch's Headers gives them: names in lower case, in order of name,
 *   a repeated header's values joined with ", " (Set-Cookie's kept apart).
 * Connections are kept alive, as fetch keeps them; an idle one holds no process open.
 * One difference: a GET on a kept-alive connection that the server closed as it
 * was sent is sent again, once, on a new one (closedWhileIdle), where fetch fails.
 */
import type { IncomingMessage } from 'node:http';
import { pipeline, Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { PlainBody, PlainResponse } from '../crawl/fetchText.js';

const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

/** The Fetch standard's bad ports: the ports of other protocols, which a browser never connects to. */
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135,
  137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720,
  1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Statuses whose answer has no body. */
const NULL_BODY = new Set([204, 205, 304]);

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

export interface DirectInit {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const failed = (cause: unknown): TypeError => new TypeError('fetch failed', { cause });

/** What decodes one coding of Content-Encoding, as fetch decodes it (leniently: a body cut short ends where it stops). */
function decoder(coding: string): Transform | undefined {
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip(lenient);
  if (coding === 'deflate') return new DeflateDecoder(lenient);
  if (coding === 'br') return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return undefined;
}

/** Inflates deflate, zlib-wrapped as the standard says or raw as some servers send it, told apart by the first byte (a zlib header's low nibble is 8). */
class DeflateDecoder extends Transform {
  private inner: Transform | undefined;

  constructor(private readonly options: zlib.ZlibOptions) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.inner) {
      if (chunk.length === 0) return callback();
      this.inner = (chunk[0]! & 0x0f) === 0x08 ? zlib.createInflate(this.options) : zlib.createInflateRaw(this.options);
      this.inner.on('data', (data: Buffer) => this.push(data));
      this.inner.on('error', (err) => this.destroy(err));
    }
    this.inner.write(chunk, () => callback());
  }

  override _flush(callback: (error?: Error | null) => void): void {
    if (!this.inner) return callback();
    this.inner.once('end', () => callback());
    this.inner.end();
  }
}

/** The body as it is to be read: decoded coding by coding, the last applied first. */
function decodedBody(response: IncomingMessage): Readable {
  const codings = (response.headers['content-encoding'] ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter(Boolean)
    .reverse();
  const decoders: Transform[] = [];
  for (const coding of codings) {
    const next = decoder(coding);
    // A coding fetch does not know: the body is left as it came from there on.
    if (!next) break;
    decoders.push(next);
  }
  if (decoders.length === 0) return response;
  // Its errors reach the last stream, which the body's reader reads.
  pipeline([response, ...decoders], () => undefined);
  return decoders.at(-1)!;
}

/**
 * `body` as the readers read it: its chunks, and cancel. A failure while reading it is fetch's: the signal's
 * reason when it was aborted, else a TypeError "terminated" with the error as its cause (ECONNRESET: the
 * server closed the connection before the body's end). Leaving the reading early, or cancelling, closes the
 * connection.
 */
function plainBody(body: Readable, signal: AbortSignal | undefined): PlainBody {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of body) yield chunk as Buffer;
      } catch (err) {
        throw signal?.aborted ? signal.reason : new TypeError('terminated', { cause: err });
      }
    },
    cancel: async () => {
      body.destroy();
    },
  };
}

/** The answer's headers as fetch's Headers gives them (get, entries); node:http's parser trims each value's white space, as Headers does. */
class AnswerHeaders {
  private readonly values = new Map<string, string[]>();

  constructor(raw: readonly string[]) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      let values = this.values.get(name);
      if (!values) this.values.set(name, (values = []));
      values.push(raw[i + 1]!);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase())?.join(', ') ?? null;
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.values.keys()].sort()) {
      const values = this.values.get(name)!;
      if (name === 'set-cookie') for (const value of values) yield [name, value];
      else yield [name, values.join(', ')];
    }
  }
}

/** GET `url` (http or https) without a proxy, as fetch(url, { redirect: 'manual', headers, signal }) would. */
export function directFetch(url: string, init: DirectInit = {}): Promise<PlainResponse> {
  const { signal } = init;
  if (signal?.aborted) return Promise.reject(signal.reason);
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    return Promise.reject(failed(err));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(failed(new Error(`not an http(s) URL: ${url}`)));
  const protocol = target.protocol;
  // Never sent: the answer's URL is the request's without it, as fetch's is.
  target.hash = '';
  const port = target.port === '' ? undefined : Number(target.port);
  if (port !== undefined && BAD_PORTS.has(port)) return Promise.reject(failed(new Error('bad port')));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
  headers.accept ??= '*/*';
  headers['accept-language'] ??= '*';
  headers['accept-encoding'] ??= protocol === 'https:' ? 'gzip, deflate, br' : 'gzip, deflate';
  return new Promise<PlainResponse>((resolve, reject) => {
    /** Set once the answer came: an abort then ends its body with the signal's reason. */
    let body: Readable | undefined;
    let answered = false;
    let request: ReturnType<typeof http.request>;
    const onAbort = () => {
      const reason: unknown = signal!.reason;
      if (body) body.destroy(reason as Error);
      else reject(reason);
      request.destroy(reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    const send = (again: boolean) => {
      request = (protocol === 'https:' ? https : http).request(target, { headers, agent: agents[protocol] });
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (!again && !answered && !signal?.aborted && closedWhileIdle(request, err)) return send(true);
        done();
        reject(signal?.aborted ? signal.reason : failed(err));
      });
      request.on('response', (response) => {
        answered = true;
        const status = response.statusCode ?? 0;
        response.once('close', done);
        const answer = { status, ok: status >= 200 && status <= 299, url: target.href, headers: new AnswerHeaders(response.rawHeaders) };
        if (NULL_BODY.has(status)) {
          response.resume();
          return resolve({ ...answer, body: null });
        }
        body = decodedBody(response);
        resolve({ ...answer, body: plainBody(body, signal) });
      });
      request.end();
    };
    send(false);
  });
}

/**
 * Whether a request failed because the server closed the kept-alive connection it was sent on, before any answer:
 * the server's idle timeout and our reuse crossed (a loaded machine's timers run late). Such a GET is sent again,
 * once, on a new connection, as browsers do and Node's documentation of `request.reusedSocket` advises; fetch
 * fails it.
 */
function closedWhileIdle(request: { reusedSocket: boolean }, err: NodeJS.ErrnoException): boolean {
  return request.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
}
