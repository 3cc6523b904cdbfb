/**
 * The schema of webjobs' PostgreSQL store, created and migrated by the program
 * itself on start. Each migration runs once, in order, in its own transaction;
 * a session advisory lock makes nodes starting at once take turns, so the
 * second finds the work done.
 */
import type pg from 'pg';
import { withClient } from './client.js';

/** Any constant both nodes agree on: it names the lock, nothing else. */
const MIGRATION_LOCK = 7_734_500_012;

export const MIGRATIONS: readonly string[] = [
  // 1: jobs, one row per page of a batch or crawl.
  `CREATE TABLE webjobs_jobs (
     id uuid PRIMARY KEY,
     kind text NOT NULL,
     status text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     url text NOT NULL,
     -- json, not jsonb: records go back to clients with their keys in the order they were written.
     request json NOT NULL,
     -- The record header (error; data of scrape and extract; extract's schema and metadata).
     record json NOT NULL,
     -- The API key that started the job (serve), for its 404s and its active-job count.
     owner_key text,
     -- Pages recorded so far (batch: every URL; crawl: URLs discovered) and the cap.
     total_pages integer NOT NULL DEFAULT 0,
     max_pages integer NOT NULL DEFAULT 0,
     done_pages integer NOT NULL DEFAULT 0,
     -- Deliveries of a scrape or extract job: fences the writes of a worker presumed dead.
     attempt integer NOT NULL DEFAULT 0,
     CONSTRAINT webjobs_jobs_cap CHECK (total_pages <= max_pages)
   );
   CREATE INDEX webjobs_jobs_owner ON webjobs_jobs (owner_key, status);
   CREATE INDEX webjobs_jobs_created ON webjobs_jobs (created_at);
   CREATE TABLE webjobs_pages (
     job_id uuid NOT NULL REFERENCES webjobs_jobs (id) ON DELETE CASCADE,
     idx integer NOT NULL,
     url text NOT NULL,
     -- Crawl only: the normalised URL, unique per job (a batch keeps its duplicates: NULL).
     url_key text,
     status text NOT NULL DEFAULT 'pending',
     -- Deliveries of this page: fences the writes of a worker presumed dead.
     attempt integer NOT NULL DEFAULT 0,
     entry json,
     PRIMARY KEY (job_id, idx)
   );
   CREATE UNIQUE INDEX webjobs_pages_url_key ON webjobs_pages (job_id, url_key);
   CREATE INDEX webjobs_pages_done ON webjobs_pages (job_id, idx) WHERE entry IS NOT NULL;`,
  // 2: leases a live worker renews (heartbeat). A page (or a scrape/extract job) running past its
  // lease_until is taken back: its queue job (queue_job) cancelled and a new one queued; last_error
  // says why its last attempt ended without a result, for the message when attempts run out.
  `ALTER TABLE webjobs_pages ADD COLUMN lease_until timestamptz, ADD COLUMN queue_job uuid, ADD COLUMN last_error text;
   ALTER TABLE webjobs_jobs ADD COLUMN lease_until timestamptz, ADD COLUMN queue_job uuid, ADD COLUMN last_error text;
   CREATE INDEX webjobs_pages_lease ON webjobs_pages (lease_until) WHERE status = 'running';
   CREATE INDEX webjobs_jobs_lease ON webjobs_jobs (lease_until) WHERE lease_until IS NOT NULL;`,
  // 3: politeness per host held by all workers of a job together: a job's requests to one host each hold one of
  // its slots (as many as the host may get at once; one with a delay), on a lease its worker renews.
  `CREATE TABLE webjobs_host_slots (
     job_id uuid NOT NULL REFERENCES webjobs_jobs (id) ON DELETE CASCADE,
     host text NOT NULL,
     slot integer NOT NULL,
     -- The request holding the slot (NULL: free), until when unless renewed, and the delay it keeps after it.
     holder uuid,
     lease_until timestamptz,
     delay_ms integer NOT NULL DEFAULT 0,
     -- The slot's next request starts no sooner: the last one's end plus its delay (its lease's end, while held).
     free_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (job_id, host, slot)
   );`,
  // 4: the page cache of maxAge (jobs/cacheKey.ts names an entry), shared by every worker; the tenant whose
  // entries a job reads and writes (serve: its API key; NULL: the cache shared between keys), set where it starts;
  // and the files of jobs (screenshots), out of the records, gone with their job.
  `CREATE TABLE webjobs_page_cache (
     key text PRIMARY KEY,
     stored_at timestamptz NOT NULL,
     data json NOT NULL
   );
   ALTER TABLE webjobs_jobs ADD COLUMN cache_tenant text;
   CREATE TABLE webjobs_job_files (
     job_id uuid NOT NULL REFERENCES webjobs_jobs (id) ON DELETE CASCADE,
     name text NOT NULL,
     bytes bytea NOT NULL,
     PRIMARY KEY (job_id, name)
   );`,
  // 5: the ETag and Last-Modified a cached page came with ({etag, lastModified}), to revalidate it with a
  // conditional request (jobs/jobEngine.ts); NULL: it came with none.
  `ALTER TABLE webjobs_page_cache ADD COLUMN validators json;`,
  // 6: a crawl as the file store runs it (jobs/crawlVisit.ts). Where each page landed (landed_key, unique per
  // job): a second page landing there, through a redirect, is 'dropped' (no entry), its place given to the next
  // URL found, and its row keeps its index (dropped_pages: a new page's index is total_pages + dropped_pages).
  // The sitemap's <lastmod> of a queued page (ms since 1970), for its revalidation; and whether the crawl tracks
  // changes (its last page queues a finishing step, which adds the pages the crawl no longer reached).
  `ALTER TABLE webjobs_pages ADD COLUMN landed_key text, ADD COLUMN lastmod bigint;
   CREATE UNIQUE INDEX webjobs_pages_landed ON webjobs_pages (job_id, landed_key);
   ALTER TABLE webjobs_jobs ADD COLUMN dropped_pages integer NOT NULL DEFAULT 0, ADD COLUMN tracks_changes boolean NOT NULL DEFAULT false;`,
  // 7: a crawl page's depth, links from the start page (the sitemap's pages: 0), for maxDepth; NULL: 0.
  `ALTER TABLE webjobs_pages ADD COLUMN depth integer;`,
  // 8: change tracking's owed history (historyOwed.ts): the version of each page a job found new or changed, by
  // its history's key in the page cache, until the job completes; the completion (any UPDATE that sets the status
  // to 'completed') makes them the history in its own transaction, and deletes them.
  `CREATE TABLE webjobs_history_owed (
     job_id uuid NOT NULL REFERENCES webjobs_jobs (id) ON DELETE CASCADE,
     key text NOT NULL,
     data json NOT NULL,
     PRIMARY KEY (job_id, key)
   );
   CREATE FUNCTION webjobs_commit_history() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO webjobs_page_cache (key, stored_at, data, validators)
       SELECT key, now(), data, NULL FROM webjobs_history_owed WHERE job_id = NEW.id
       ON CONFLICT (key) DO UPDATE SET stored_at = excluded.stored_at, data = excluded.data, validators = NULL;
     DELETE FROM webjobs_history_owed WHERE job_id = NEW.id;
     RETURN NULL;
   END $$;
   CREATE TRIGGER webjobs_jobs_completed AFTER UPDATE OF status ON webjobs_jobs
     FOR EACH ROW WHEN (NEW.status = 'completed' AND OLD.status IS DISTINCT FROM 'completed')
     EXECUTE FUNCTION webjobs_commit_history();`,
];

/**
 * Runs `fn` (the rest of a node's start: pg-boss's own migrations and queue
 * creation) after our migrations, all under one session advisory lock: nodes
 * starting at once take turns. pg-boss creating the same queue from two nodes at
 * once deadlocks (seen with two API nodes started together).
 */
export async function migrate(pool: pg.Pool, fn: () => Promise<void> = async () => undefined): Promise<void> {
  // A connection lost on the way fails the step under way (the caller runs it all again): each
  // migration is one transaction, so it is in whole or not at all, and the session lock goes with the session.
  await withClient(pool, async (client, discard) => {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS webjobs_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM webjobs_migrations');
      for (let version = (rows[0]?.version ?? 0) + 1; version <= MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[version - 1]!);
          await client.query('INSERT INTO webjobs_migrations (version) VALUES ($1)', [version]);
          await client.query('COMMIT');
        } catch (err) {
          // On a lost connection this fails too; the error worth reporting (and retrying on) is the first.
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }
      await fn();
    } finally {
      // Not unlocked (the connection is gone, or failing): the client is closed, and the lock with its session.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(discard);
    }
  });
}
