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

/** Announced (NOTIFY, at commit) when a webhook delivery is owed: API nodes' senders (webhooks.ts) LISTEN to it. */
export const WEBHOOK_OWED_CHANNEL = 'webjobs_webhook_owed';

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
  // 9: webhook deliveries (issue 60), owed in the transaction that makes the event (webhooks.ts sends them):
  // `started` with the job's row, `page` with each page's entry, `completed` or `failed` with the job's end,
  // each in Firecrawl's form with its own webhookId, the webhook's metadata and the events it asks for. A job's
  // deliveries go in (rank, id) order, one at a time; each is claimed on a lease (any API node sends them), retried
  // at due_at, dropped after its last retry (webhook_failures). At 100 owed, the oldest page delivery not being
  // sent gives way (webhook_dropped); none: the new page delivery is the one dropped.
  `ALTER TABLE webjobs_jobs ADD COLUMN webhook_failures integer NOT NULL DEFAULT 0, ADD COLUMN webhook_dropped integer NOT NULL DEFAULT 0;
   CREATE TABLE webjobs_webhook_deliveries (
     id bigserial PRIMARY KEY,
     job_id uuid NOT NULL REFERENCES webjobs_jobs (id) ON DELETE CASCADE,
     -- 0 started, 1 page, 2 the end.
     rank smallint NOT NULL,
     event text NOT NULL,
     -- The JSON body as sent and signed.
     body text NOT NULL,
     attempts integer NOT NULL DEFAULT 0,
     due_at timestamptz NOT NULL DEFAULT now(),
     lease_until timestamptz
   );
   CREATE INDEX webjobs_webhook_deliveries_order ON webjobs_webhook_deliveries (job_id, rank, id);
   CREATE INDEX webjobs_webhook_deliveries_due ON webjobs_webhook_deliveries (due_at);
   CREATE FUNCTION webjobs_owe_delivery(p_job uuid, p_kind text, p_request json, p_event text, p_success boolean, p_data json, p_error text)
     RETURNS void LANGUAGE plpgsql AS $$
   DECLARE
     hook json := p_request->'webhook';
     hook_type text := CASE p_kind WHEN 'batch' THEN 'batch_scrape' ELSE p_kind END || '.' || p_event;
     body json;
     victim bigint;
   BEGIN
     IF hook IS NULL OR json_typeof(hook) <> 'object' THEN RETURN; END IF;
     IF hook->'events' IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_array_elements_text(hook->'events') AS e (name) WHERE e.name = p_event) THEN RETURN; END IF;
     IF p_event = 'page' AND (SELECT count(*) FROM webjobs_webhook_deliveries d WHERE d.job_id = p_job) >= 100 THEN
       SELECT d.id INTO victim FROM webjobs_webhook_deliveries d
         WHERE d.job_id = p_job AND d.event = 'page' AND (d.lease_until IS NULL OR d.lease_until < now()) ORDER BY d.rank, d.id LIMIT 1;
       UPDATE webjobs_jobs SET webhook_dropped = webhook_dropped + 1 WHERE id = p_job;
       IF victim IS NULL THEN RETURN; END IF;
       DELETE FROM webjobs_webhook_deliveries WHERE id = victim;
     END IF;
     body := json_build_object('success', p_success, 'type', hook_type, 'id', p_job, 'webhookId', gen_random_uuid(), 'data', p_data,
       'metadata', COALESCE(hook->'metadata', '{}'::json));
     IF p_error IS NOT NULL THEN body := json_build_object('success', p_success, 'type', hook_type, 'id', p_job, 'webhookId', body->'webhookId',
       'data', p_data, 'metadata', COALESCE(hook->'metadata', '{}'::json), 'error', p_error);
     END IF;
     INSERT INTO webjobs_webhook_deliveries (job_id, rank, event, body)
       VALUES (p_job, CASE p_event WHEN 'started' THEN 0 WHEN 'page' THEN 1 ELSE 2 END, p_event, body::text);
   END $$;
   CREATE FUNCTION webjobs_job_hooks() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     data json;
   BEGIN
     IF NEW.request->'webhook' IS NULL THEN RETURN NULL; END IF;
     IF TG_OP = 'INSERT' THEN
       PERFORM webjobs_owe_delivery(NEW.id, NEW.kind, NEW.request, 'started', true, '[]'::json, NULL);
       RETURN NULL;
     END IF;
     IF NEW.status NOT IN ('completed', 'failed', 'stopped') OR OLD.status IN ('completed', 'failed', 'stopped') THEN RETURN NULL; END IF;
     IF NEW.kind = 'extract' THEN
       data := COALESCE(NEW.record->'data', 'null'::json);
     ELSE
       SELECT json_build_object('total', count(*), 'completed', count(*) FILTER (WHERE p.entry->>'status' <> 'failed'), 'failed', count(*) FILTER (WHERE p.entry->>'status' = 'failed'))
         INTO data FROM webjobs_pages p WHERE p.job_id = NEW.id AND p.entry IS NOT NULL;
     END IF;
     IF NEW.status = 'completed' THEN
       PERFORM webjobs_owe_delivery(NEW.id, NEW.kind, NEW.request, 'completed', true, data, NULL);
     ELSE
       PERFORM webjobs_owe_delivery(NEW.id, NEW.kind, NEW.request, 'failed', false, data,
         COALESCE(NEW.record->>'error', CASE NEW.status WHEN 'stopped' THEN 'the job was stopped' ELSE 'the job ended ' || NEW.status END));
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER webjobs_jobs_hooks AFTER INSERT OR UPDATE OF status ON webjobs_jobs FOR EACH ROW EXECUTE FUNCTION webjobs_job_hooks();
   CREATE FUNCTION webjobs_page_hook() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     job record;
   BEGIN
     IF TG_OP = 'UPDATE' AND OLD.entry IS NOT NULL THEN RETURN NULL; END IF;
     SELECT j.kind, j.request INTO job FROM webjobs_jobs j WHERE j.id = NEW.job_id;
     IF job.request->'webhook' IS NULL THEN RETURN NULL; END IF;
     PERFORM webjobs_owe_delivery(NEW.job_id, job.kind, job.request, 'page', NEW.entry->>'status' IS DISTINCT FROM 'failed', json_build_array(NEW.entry), NULLIF(NEW.entry->>'error', ''));
     RETURN NULL;
   END $$;
   CREATE TRIGGER webjobs_pages_hook AFTER INSERT OR UPDATE OF entry ON webjobs_pages FOR EACH ROW WHEN (NEW.entry IS NOT NULL)
     EXECUTE FUNCTION webjobs_page_hook();`,
  // 10: a delivery owed is announced, so that an API node sends it at once rather than at its next look at the
  // table (webhooks.ts: a slow poll stays, for retries due later and notifications missed). Once per statement;
  // NOTIFY itself folds a transaction's announcements into one, sent at commit.
  `CREATE FUNCTION webjobs_webhook_owed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${WEBHOOK_OWED_CHANNEL}', '');
     RETURN NULL;
   END $$;
   CREATE TRIGGER webjobs_webhook_deliveries_owed AFTER INSERT ON webjobs_webhook_deliveries FOR EACH STATEMENT
     EXECUTE FUNCTION webjobs_webhook_owed();`,
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
