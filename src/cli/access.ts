/**
 * The flags for pages behind a login: --header, --cookie, --cookies FILE and
 * --user-agent, read into the request's scrapeOptions. Messages name the flag
 * and the line, never a value: values are secrets. (So they throw a UsageError:
 * commander would quote the argument in its own message.)
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../api/errors.js';
import type { Cookie } from '../api/types.js';

/** --header 'Name: value', repeatable. */
export function parseHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  const name = colon > 0 ? value.slice(0, colon).trim() : '';
  if (!name) throw new UsageError(`--header must look like 'Name: value'.`);
  const existing = Object.keys(previous).find((key) => key.toLowerCase() === name.toLowerCase());
  if (existing) throw new UsageError(`the header ${name} is given twice.`);
  return { ...previous, [name]: value.slice(colon + 1).trim() };
}

/** --cookie 'name=value' (or 'a=1; b=2', as a Cookie header reads), repeatable: for the hosts of the URLs given. */
export function parseCookie(value: string, previous: Cookie[] = []): Cookie[] {
  const pairs = value.split(';').map((part) => part.trim()).filter(Boolean);
  if (pairs.length === 0) throw new UsageError(`--cookie must look like 'name=value'.`);
  return [
    ...previous,
    ...pairs.map((pair) => {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new UsageError(`--cookie must look like 'name=value'.`);
      return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() };
    }),
  ];
}

const HTTP_ONLY_PREFIX = '#HttpOnly_';

/**
 * A cookies.txt in the Netscape format curl (-c) and browser extensions write: one
 * cookie a line, seven tab-separated fields (domain, include subdomains, path,
 * secure, expires, name, value); '#' starts a comment, except '#HttpOnly_' which
 * marks an HttpOnly cookie.
 */
export function parseCookiesText(text: string, file: string): Cookie[] {
  const cookies: Cookie[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    let line = raw;
    let httpOnly = false;
    if (line.startsWith(HTTP_ONLY_PREFIX)) {
      line = line.slice(HTTP_ONLY_PREFIX.length);
      httpOnly = true;
    } else if (line.trim() === '' || line.startsWith('#')) {
      return;
    }
    const fields = line.split('\t');
    if (fields.length === 6) fields.push(''); // an empty value, its tab trimmed away by an editor
    const [domain, subdomains, path, secure, expires, name, value] = fields;
    const flag = (field: string | undefined) => field?.toUpperCase() === 'TRUE';
    if (fields.length !== 7 || !name || !/^\d+$/.test(expires ?? '')) {
      throw new UsageError(`${file} line ${i + 1} is not a cookies.txt line (domain, subdomains, path, secure, expires, name, value, separated by tabs).`);
    }
    cookies.push({
      name,
      value: value!,
      domain: domain!.replace(/^\./, ''),
      includeSubdomains: flag(subdomains),
      path: path || '/',
      secure: flag(secure),
      httpOnly,
      ...(Number(expires) > 0 ? { expires: Number(expires) } : {}),
    });
  });
  return cookies;
}

/** --cookies FILE, repeatable. */
export function readCookiesFile(file: string, previous: Cookie[] = []): Cookie[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the cookies file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
  return [...previous, ...parseCookiesText(text, file)];
}
