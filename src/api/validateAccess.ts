/**
 * The webjobs extensions of scrapeOptions that reach pages behind a login: headers, cookies and userAgent.
 * Messages name the field, never a value: values are secrets.
 */
import { LimitError, UsageError } from './errors.js';
import { LIMITS } from './limits.js';
import type { Cookie, ScrapeOptions } from './types.js';
import { expectObject, isObject, optBoolean, optInteger, rejectUnknown, type Obj } from './validateFields.js';
import { quoted } from './quote.js';

/** An HTTP token (RFC 9110): header names and cookie names. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters (tab aside): a line break in a value would start a header of its own. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
/**
 * Headers a job may not set: the connection's own (the client sets them), and the
 * two that have options of their own, so that each has one way in.
 */
const RESERVED_HEADERS: Record<string, string> = {
  host: '', 'content-length': '', connection: '', 'transfer-encoding': '', 'keep-alive': '', upgrade: '', te: '', trailer: '',
  'proxy-authorization': '', 'proxy-connection': '',
  cookie: ' (use cookies, --cookie or --cookies)',
  'user-agent': ' (use userAgent, --user-agent)',
};

/**
 * The webjobs extensions that reach pages behind a login: headers, cookies and
 * userAgent. Messages name the field, never a value: values are secrets.
 */
export function accessOptions(obj: Obj, field: string): Pick<ScrapeOptions, 'headers' | 'cookies' | 'userAgent'> {
  const out: Pick<ScrapeOptions, 'headers' | 'cookies' | 'userAgent'> = {};
  if (obj.headers !== undefined) out.headers = validateHeaders(obj.headers, `${field}.headers`);
  if (obj.cookies !== undefined) out.cookies = validateCookies(obj.cookies, `${field}.cookies`);
  if (obj.userAgent !== undefined) {
    const ua = obj.userAgent;
    if (typeof ua !== 'string' || ua.trim() === '' || CONTROL.test(ua)) throw new UsageError(`${field}.userAgent must be a non-empty string on one line`);
    if (ua.length > LIMITS.maxUserAgentLength) throw new LimitError(`${field}.userAgent has ${ua.length} characters, the limit is ${LIMITS.maxUserAgentLength}`);
    out.userAgent = ua;
  }
  return out;
}

function validateHeaders(value: unknown, field: string): Record<string, string> {
  if (!isObject(value)) throw new UsageError(`${field} must be an object of header names to values`);
  const entries = Object.entries(value);
  if (entries.length > LIMITS.maxHeaders) throw new LimitError(`${field}: ${entries.length} headers given, the limit is ${LIMITS.maxHeaders}`);
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of entries) {
    if (!TOKEN.test(name)) throw new UsageError(`${field}: ${quoted(name)} is not a valid header name`);
    const lower = name.toLowerCase();
    if (lower in RESERVED_HEADERS) throw new UsageError(`${field}: the header ${name} cannot be set${RESERVED_HEADERS[lower]}`);
    if (lower in headers) throw new UsageError(`${field}: the header ${name} is given twice`);
    if (typeof headerValue !== 'string' || CONTROL.test(headerValue)) throw new UsageError(`${field}.${name} must be a string on one line`);
    if (name.length + headerValue.length > LIMITS.maxHeaderLength) {
      throw new LimitError(`${field}.${name} is longer than ${LIMITS.maxHeaderLength} characters`);
    }
    headers[lower] = headerValue;
  }
  return headers;
}

/** A host name or IP address, without a leading dot. */
const DOMAIN = /^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*)$/i;

function validateCookies(value: unknown, field: string): Cookie[] {
  if (!Array.isArray(value)) throw new UsageError(`${field} must be an array of {name, value} objects`);
  if (value.length > LIMITS.maxCookies) throw new LimitError(`${field}: ${value.length} cookies given, the limit is ${LIMITS.maxCookies}`);
  return value.map((item, i) => validateCookie(item, `${field}[${i}]`));
}

function validateCookie(value: unknown, field: string): Cookie {
  const obj = expectObject(value, field);
  rejectUnknown(obj, ['name', 'value', 'domain', 'includeSubdomains', 'path', 'secure', 'httpOnly', 'expires'], field);
  const { name, value: cookieValue, domain, path } = obj;
  if (typeof name !== 'string' || !TOKEN.test(name)) throw new UsageError(`${field}.name must be a cookie name (letters, digits and !#$%&'*+.^_\`|~-)`);
  if (typeof cookieValue !== 'string' || CONTROL.test(cookieValue) || cookieValue.includes(';')) {
    throw new UsageError(`${field}.value (of cookie ${name}) must be a string without ";" or line breaks`);
  }
  if (name.length + cookieValue.length > LIMITS.maxCookieLength) {
    throw new LimitError(`${field}: cookie ${name} is longer than ${LIMITS.maxCookieLength} characters`);
  }
  const cookie: Cookie = { name, value: cookieValue };
  if (domain !== undefined) {
    const bare = typeof domain === 'string' ? domain.replace(/^\./, '') : '';
    if (bare.length > 253 || !DOMAIN.test(bare)) throw new UsageError(`${field}.domain (of cookie ${name}) must be a host name such as example.com`);
    cookie.domain = bare.toLowerCase();
  }
  if (path !== undefined) {
    if (typeof path !== 'string' || !path.startsWith('/') || CONTROL.test(path) || path.includes(';')) {
      throw new UsageError(`${field}.path (of cookie ${name}) must start with /`);
    }
    cookie.path = path;
  }
  const includeSubdomains = optBoolean(obj, 'includeSubdomains', field);
  if (includeSubdomains !== undefined) {
    if (cookie.domain === undefined) throw new UsageError(`${field}.includeSubdomains (of cookie ${name}) needs a domain`);
    cookie.includeSubdomains = includeSubdomains;
  }
  const secure = optBoolean(obj, 'secure', field);
  if (secure !== undefined) cookie.secure = secure;
  const httpOnly = optBoolean(obj, 'httpOnly', field);
  if (httpOnly !== undefined) cookie.httpOnly = httpOnly;
  const expires = optInteger(obj, 'expires', field, 0, Number.MAX_SAFE_INTEGER);
  if (expires !== undefined) cookie.expires = expires;
  return cookie;
}
