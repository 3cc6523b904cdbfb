/**
 * The one user-agent policy of webjobs, and the one place that decides a
 * request's User-Agent header: userAgentHeader(). Every request of a job goes
 * out with the job's own user agent (--user-agent, scrapeOptions.userAgent) when
 * it has one, else USER_AGENT:
 *   - pages and everything they load: the browser's default (launchArgs in
 *     browser.ts) and, for a job with its own, page.setUserAgent (scrape.ts);
 *   - robots.txt and sitemaps, Node's own requests: Engine.fetch (engine.ts).
 * robots.txt groups are matched by the product token ROBOTS_TOKEN ("User-agent:
 * webjobs", else "User-agent: *") whatever the header says, so a changed header
 * never escapes the site's rules for webjobs.
 */

/** The token robots.txt groups are matched against. */
export const ROBOTS_TOKEN = 'webjobs';

/** Says what it is: a site can tell webjobs apart and address it in robots.txt. */
export const USER_AGENT = `Mozilla/5.0 (compatible; ${ROBOTS_TOKEN}/0.1.0)`;

/** The User-Agent header for every request of a job: its own when it has one, else USER_AGENT. */
export function userAgentHeader(jobUserAgent?: string): string {
  return jobUserAgent?.trim() || USER_AGENT;
}
