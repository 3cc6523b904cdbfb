/**
 * One connection to webjobs' PostgreSQL: a pg pool for our tables and a pg-boss
 * instance for the work queue, both on the same database, schema migrated on start.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import { ConfigError, DatabaseUnavailableError, EnvironmentError, errorMessage } from '../api/errors.js';
import { leaseMs } from '../jobs/leases.js';
import { migrate } from './migrations.js';

/** One queue job per batch or crawl page: { jobId, index }. */
export const PAGE_QUEUE = 'webjobs-page';
/** One queue job per scrape or extract job: { jobId }. */
export const JOB_QUEUE = 'webjobs-job';
export const BOSS_SCHEMA = 'webjobs_boss';

/**
 * Deliveries of one page (or scrape/extract job) at most. A worker killed mid-page
 * stops renewing its lease; the page is delivered again, and the delivery after
 * the last allowed one records the page failed, saying why, instead of scraping it.
 */
export const MAX_ATTEMPTS = 3;

export const DEFAULT_LEASE_SECONDS = 30;

export interface PgSettings {
  url: string;
  /**
   * Seconds a worker's lease on a page lasts unless renewed; a live worker renews
   * it every third of that, so a worker silent for this long is presumed dead and
   * its pages go to others.
   */
  leaseSeconds: number;
}

export function pgSettings(url: string, env: NodeJS.ProcessEnv = process.env): PgSettings {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError(`--database: expected a postgres://… URL, got "${url.slice(0, 40)}"`);
  return { url, leaseSeconds: leaseMs(env) / 1000 };
}

export interface PgConnection {
  pool: pg.Pool;
  boss: PgBoss;
  settings: PgSettings;
  close(): Promise<void>;
}

/** The error codes (and node socket codes) of a database that is restarting or unreachable: worth a retry. */
const TRANSIENT = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && TRANSIENT.has(code)) return true;
  // pg reports a socket closed under a query with no code of its own.
  return err instanceof Error && /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/.test(err.message);
}

/**
 * Runs `fn`; a database that cannot be reached (isTransient) becomes a
 * DatabaseUnavailableError, which serve answers 503 with Retry-After.
 */
export async function reachable<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isTransient(err)) throw new DatabaseUnavailableError(`the job database cannot be reached (${errorMessage(err)}); try again shortly`);
    throw err;
  }
}

/** How long /healthz waits for the database to answer before it calls it unreachable. */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * "ok" when the database answers a query within HEALTH_TIMEOUT_MS, else why
 * not. One probe at a time: callers meanwhile share its answer.
 */
export function databaseHealth(pool: pg.Pool): () => Promise<string> {
  let probe: Promise<string> | undefined;
  const check = async (): Promise<string> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`unreachable: no answer within ${HEALTH_TIMEOUT_MS} ms`), HEALTH_TIMEOUT_MS);
    });
    const query = pool.query('SELECT 1').then(
      () => 'ok',
      (err: unknown) => `unreachable: ${errorMessage(err)}`,
    );
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return () => (probe ??= check().finally(() => (probe = undefined)));
}

/** Runs `fn` again while the database is restarting, for up to `giveUpMs`. */
export async function retrying<T>(fn: () => Promise<T>, giveUpMs = 60_000): Promise<T> {
  const started = Date.now();
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || Date.now() - started > giveUpMs) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

export async function connect(settings: PgSettings, log: (line: string) => void = () => undefined): Promise<PgConnection> {
  const pool = new pg.Pool({ connectionString: settings.url, max: 10, connectionTimeoutMillis: 10_000 });
  // An idle connection cut by a database restart must not crash the process; the next query reconnects.
  pool.on('error', (err) => log(`database connection lost: ${err.message}`));
  const boss = new PgBoss({
    connectionString: settings.url,
    schema: BOSS_SCHEMA,
    max: 4,
    // pg-boss's expiry returns queue jobs taken but never begun (see PgJobStore.queueJob): checked every third of a lease.
    maintenanceIntervalSeconds: Math.max(1, Math.min(30, Math.floor(settings.leaseSeconds / 3))),
    schedule: false,
  });
  boss.on('error', (err: Error) => log(`queue: ${err.message}`));
  try {
    await retrying(
      () =>
        migrate(pool, async () => {
          await boss.start();
          for (const name of [PAGE_QUEUE, JOB_QUEUE]) if (!(await boss.getQueue(name))) await boss.createQueue(name);
        }),
      10_000,
    );
  } catch (err) {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw new EnvironmentError(`cannot use the database ${redactUrl(settings.url)}: ${errorMessage(err)}`);
  }
  return {
    pool,
    boss,
    settings,
    close: async () => {
      await boss.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}

/** The database URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return 'postgres://…';
  }
}
