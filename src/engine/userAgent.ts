/**
 * The one user-agent policy of webjobs: pages (the browser), robots.txt and
 * sitemaps (Node's own requests) all go out with USER_AGENT, and robots.txt
 * groups are matched by its product token ROBOTS_TOKEN ("User-agent: webjobs",
 * else "User-agent: *"). A per-job user agent, when there is one, replaces the
 * header through userAgentHeader() only; robots.txt matching keeps the token,
 * so a changed header never escapes the site's rules for webjobs.
 */

/** The token robots.txt groups are matched against. */
export const ROBOTS_TOKEN = 'webjobs';

/** Says what it is: a site can tell webjobs apart and address it in robots.txt. */
export const USER_AGENT = `Mozilla/5.0 (compatible; ${ROBOTS_TOKEN}/0.1.0)`;

/** The User-Agent header for every request of a job: its own when it has one, else USER_AGENT. */
export function userAgentHeader(jobUserAgent?: string): string {
  return jobUserAgent?.trim() || USER_AGENT;
}
