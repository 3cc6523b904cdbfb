/**
 * serve's defaults, apart from the server itself: `webjobs --help` shows them,
 * and every command would otherwise load Fastify to build its help.
 */
export const SERVER_DEFAULTS = {
  /** Enough for 1,000 URLs of 1,000 characters each; more is refused with 413. */
  bodyLimit: 1024 * 1024,
  /** Pending plus running jobs one key may have; one more start answers 429. */
  maxActiveJobsPerKey: 10,
  /** Bytes of page entries in one answer of a batch's or crawl's result (at least one entry); the rest follows by `next`. */
  maxResultBytes: 10 * 1024 * 1024,
  /** Open connections in all; more are closed at once (connections.ts). */
  maxConnections: 4096,
  /** Open connections from one client address; 0: no cap (behind a reverse proxy, every client is the proxy). */
  maxConnectionsPerAddress: 128,
  /** ms a connection may take to send a request's headers (a silent one is closed). */
  headersTimeout: 10_000,
  /** ms an idle connection is kept open between two requests. */
  keepAliveTimeout: 5_000,
} as const;

/** Jobs one serve (or worker) runs at once. */
export const DEFAULT_MAX_JOBS = 2;
