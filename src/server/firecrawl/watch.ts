/**
 * Firecrawl's job watcher: a WebSocket at /v2/crawl/ID and /v2/batch/scrape/ID
 * (the API key as its subprotocol) that sends a `catchup` with the job's status
 * so far, a `document` for each page as it finishes, and a final `catchup`
 * whose status ends the watch. The v2 SDK's `watcher()` opens it whenever a
 * WebSocket class exists (Node's own since Node 22).
 *
 * Server frames only (text and close) are written here, as RFC 6455 has them;
 * what the client sends is never read beyond noticing that it went away.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { JobBackend } from '../../api/backend.js';
import { WebjobsError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { JobFileStore } from '../../jobs/contracts.js';
import { fileLinker } from '../files.js';
import type { JobGate } from '../gate.js';
import { statusParts, publicOrigin } from './status.js';
import { toDocument } from './response.js';

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const WATCH_PATH = /^\/v2\/(crawl|batch\/scrape)\/([^/?#]+)$/;

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x80 | opcode, length]) : Buffer.alloc(length < 65536 ? 4 : 10);
  if (length >= 126 && length < 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else if (length >= 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ success: false, error: message });
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export interface WatchOptions {
  backend: JobBackend;
  gate: JobGate;
  log: (line: string) => void;
  files?: JobFileStore;
  /** Bytes of documents in a catch-up message (at least one document). */
  maxResultBytes: number;
}

/**
 * Answers WebSocket upgrades of `server` at Firecrawl's watch paths; any other
 * upgrade is refused with 404. The function returned closes every open watch:
 * the HTTP server's close would otherwise wait for them, that is for their jobs.
 * A watch past its handshake is told why first (an `error` message, then a close
 * frame 1001 "going away"): a client whose WebSocket reports no error when the
 * connection just drops (Node 22's and 24's own) would otherwise poll a server
 * that is gone.
 */
export function serveWatches(server: Server, options: WatchOptions): () => void {
  const open = new Set<Duplex>();
  const watching = new WeakSet<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    void watch(req, socket, options, () => watching.add(socket)).catch((err: unknown) => {
      if (err instanceof WebjobsError) return refuse(socket, err.httpStatus, err.message);
      options.log(`internal error on WebSocket ${req.url}: ${(err as Error).stack ?? String(err)}`);
      socket.destroy();
    });
  });
  return () => {
    for (const socket of open) {
      if (!watching.has(socket) || socket.writableEnded) {
        socket.destroy();
        continue;
      }
      socket.write(frame(0x1, Buffer.from(JSON.stringify({ type: 'error', error: 'webjobs serve is shutting down; the job was stopped with it' }))));
      socket.end(frame(0x8, Buffer.from([0x03, 0xe9])));
      // A client that does not answer the close frame is not waited for.
      setTimeout(() => socket.destroy(), 1000).unref();
    }
  };
}

async function watch(req: IncomingMessage, socket: Duplex, { backend, gate, log, files, maxResultBytes }: WatchOptions, upgraded: () => void): Promise<void> {
  const match = WATCH_PATH.exec(req.url ?? '');
  const accept = req.headers['sec-websocket-key'];
  if (!match || req.headers.upgrade?.toLowerCase() !== 'websocket' || typeof accept !== 'string') {
    return refuse(socket, 404, `no WebSocket at ${req.url}: watch a job at /v2/crawl/ID or /v2/batch/scrape/ID`);
  }
  const kind = match[1] === 'crawl' ? 'crawl' : 'batch';
  const protocol = req.headers['sec-websocket-protocol']?.split(',')[0]?.trim();
  const key = gate.authenticate(protocol, 'the WebSocket subprotocol (Firecrawl SDK watcher)');
  const jobId = await gate.ownedJobId(key, match[2]!, kind);

  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${createHash('sha1').update(accept + WEBSOCKET_GUID).digest('base64')}\r\n` +
      `Sec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
  );
  upgraded();
  let open = true;
  socket.on('close', () => (open = false));
  socket.on('data', () => undefined);
  const send = (message: unknown) => {
    if (open) socket.write(frame(0x1, Buffer.from(JSON.stringify(message))));
  };
  const self = `${publicOrigin(req.headers)}/v2/${match[1]}/${jobId}`;
  const link = fileLinker(files, publicOrigin(req.headers));
  // Every entry at once (a batch has at most maxResultBatchSize URLs, a crawl on serve fewer pages).
  // As many as an answer of the status holds (maxResultBytes); the watcher gets every page as a document message too.
  const snapshot = async () => {
    const { head, documents } = await statusParts(backend, kind, jobId, { limit: String(LIMITS.maxResultBatchSize) }, self, link, maxResultBytes);
    const data = [];
    for (const document of documents) {
      const read = await document();
      if (read) data.push(read);
    }
    return { ...head, data };
  };

  try {
    send({ type: 'catchup', data: await snapshot() });
    await backend.wait(kind, jobId, {
      onPage: (entry) => {
        if (entry.status !== 'pending') send({ type: 'document', data: toDocument(link(entry)) });
      },
    });
    // The last snapshot has every page (one finished while the first was read included) and the final status, which ends the watch.
    send({ type: 'catchup', data: await snapshot() });
  } catch (err) {
    // The handshake is done: from here on an error is a message of the WebSocket.
    send({ type: 'error', error: err instanceof WebjobsError ? err.message : 'internal error in webjobs serve; the server log has the details' });
    if (!(err instanceof WebjobsError)) log(`internal error on WebSocket ${req.url}: ${(err as Error).stack ?? String(err)}`);
  }
  if (open) socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
}
