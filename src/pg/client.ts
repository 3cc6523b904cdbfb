/** Pooled clients of webjobs' PostgreSQL, held safely across a lost connection. */
import type pg from 'pg';

/**
 * Runs `fn` with a client of the pool. The pool listens for a connection lost
 * only while a client is idle: lost while we hold it (a database restart, a
 * network cut, an administrator ending the session), the client's 'error' would
 * have no listener and end the process. Here the query under way fails instead
 * (a transient error, retried by the caller), and the client is discarded, not
 * pooled again.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient, discard: (why: Error) => void) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error) => (lost = err);
  client.on('error', onError);
  try {
    // `discard`: the session may still hold what fn took (a session lock): it is closed, which frees it.
    return await fn(client, onError);
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

export function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}
