/**
 * A body refused as too large (413) before it was read. Node closes the connection
 * after the answer while the client is still sending, and most clients then see
 * the reset (EPIPE) instead of the 413 and its message. The rest of a body of a
 * bounded size is read and dropped first, so the answer reaches the client; past
 * the bound (or with no declared length) the connection is closed as before.
 */
import type { IncomingMessage } from 'node:http';

/** The largest refused body read to its end: a mistaken batch, not an attack on bandwidth. */
export const DRAIN_LIMIT = 16 * 1024 * 1024;

export function drainRefusedBody(request: IncomingMessage, limit = DRAIN_LIMIT): Promise<void> {
  const declared = Number(request.headers['content-length']);
  if (request.complete || !(declared <= limit)) return Promise.resolve();
  return new Promise((resolve) => {
    request.once('end', () => resolve());
    request.once('close', () => resolve());
    request.once('error', () => resolve());
    request.resume();
  });
}
