/**
 * Server-side request forgery defence of `webjobs serve`: the browser must not
 * be turned against the server's own network. Every request a page makes is
 * checked when it is about to go out (the engine's requestGuard), so redirects
 * and subresources are covered, and host names are checked by what they
 * resolve to, not by how they are spelled.
 *
 * That check alone leaves gaps: Chromium resolves the name again after it (DNS
 * rebinding), and requests of targets no tab asked for (popups, workers,
 * WebSockets, preconnects) are not intercepted. So every connection of the
 * browser also goes through the egress proxy (src/engine/net/egress.ts), whose guard
 * (createEgressGuard) resolves the name once, checks the addresses and has the
 * proxy dial only those.
 */
import { promises as dns } from 'node:dns';
import net from 'node:net';
import { UsageError } from '../../api/errors.js';
import { bareHost, type EgressGuard } from './egress.js';

/**
 * Decides whether the browser may request `url` (every request of a page:
 * navigations, each redirect hop, subresources). Resolves to a reason to refuse,
 * or undefined to let the request go. `webjobs serve` uses it against SSRF.
 */
export type RequestGuard = (url: string) => Promise<string | undefined>;

const BLOCKED = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (AWS, GCP, Azure metadata 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
BLOCKED.addAddress('168.63.129.16', 'ipv4'); // Azure's platform endpoint, public-looking
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

// The local-use NAT64 prefix (RFC 8215) translates to addresses of the operator's own network,
// with the IPv4 address at any of RFC 6052's positions: refused whole.
BLOCKED.addSubnet('64:ff9b:1::', 48, 'ipv6');

const toV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

/**
 * The IPv4 addresses an IPv6 address carries, in whichever of its forms (dotted or
 * hex, as the URL parser writes it: [::127.0.0.1] becomes [::7f00:1]):
 * IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::, Teredo
 * 2001:0:SERVER:flags:port:CLIENT (the client's address inverted), and ISATAP's
 * interface identifier ::0:5efe:a.b.c.d under any prefix.
 */
export function embeddedIpv4(address: string): string[] {
  const g = expandIpv6(address);
  if (!g) return [];
  const found: string[] = [];
  if (zero(g, 0, 6)) found.push(toV4(g[6]!, g[7]!)); // compatible (and :: and ::1)
  if (zero(g, 0, 5) && g[5] === 0xffff) found.push(toV4(g[6]!, g[7]!)); // mapped
  if (zero(g, 0, 4) && g[4] === 0xffff && g[5] === 0) found.push(toV4(g[6]!, g[7]!)); // translated (SIIT)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(g, 2, 6)) found.push(toV4(g[6]!, g[7]!)); // NAT64
  if (g[0] === 0x2002) found.push(toV4(g[1]!, g[2]!)); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) found.push(toV4(g[2]!, g[3]!), toV4(g[6]! ^ 0xffff, g[7]! ^ 0xffff)); // Teredo: server, client
  if ((g[4]! & 0xfcff) === 0 && g[5] === 0x5efe) found.push(toV4(g[6]!, g[7]!)); // ISATAP
  return found;
}

function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<number>(Math.max(0, fill)).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** Whether `address` is one the server must not fetch (loopback, private, link-local, metadata), or an IPv6 form of one. */
export function blockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  if (embeddedIpv4(address).some((v4) => BLOCKED.check(v4, 'ipv4'))) return true;
  return BLOCKED.check(address, 'ipv6');
}

/** host[:port] exceptions (--allow-host), e.g. an intranet wiki the service is meant to read. */
export type AllowList = ReadonlySet<string>;

const hostOf = (url: URL) => bareHost(url.hostname);

function allowed(url: URL, allow: AllowList): boolean {
  const host = hostOf(url).toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allow.has(host) || allow.has(`${host}:${port}`);
}

/** `action`: what was refused, e.g. "fetch http://…" or "connect to host:port". */
function refusal(action: string, host: string, address?: string): string {
  const carried = address === undefined ? undefined : embeddedIpv4(address).find((v4) => BLOCKED.check(v4, 'ipv4'));
  const named = address === undefined || host === address ? host : `${host} (${address})`;
  const shown = carried === undefined ? named : `${named}, which carries ${carried},`;
  return `refused to ${action}: ${shown} is a loopback, private, link-local or metadata address, which this service does not fetch`;
}

/**
 * Check without DNS, for a quick 400 at start: IP literals and localhost names.
 * Names that resolve to such addresses are caught by the guard when fetched.
 */
export function literalRefusal(rawUrl: string, allow: AllowList = new Set()): string | undefined {
  // Not a URL: the request's validation says so.
  if (!URL.canParse(rawUrl)) return undefined;
  const url = new URL(rawUrl);
  if (allowed(url, allow)) return undefined;
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return refusal(`fetch ${rawUrl}`, host);
  if (net.isIP(host) && blockedAddress(host)) return refusal(`fetch ${rawUrl}`, host, host);
  return undefined;
}

/**
 * Refuses (UsageError) the URLs of a request that literalRefusal refuses, naming
 * the first three: the quick answer at a job's start, before anything is fetched.
 */
export function refusePrivateUrls(urls: readonly string[], allow: AllowList = new Set()): void {
  const refusals = urls.map((url) => literalRefusal(url, allow)).filter((r): r is string => r !== undefined);
  if (refusals.length > 0) {
    const more = refusals.length > 3 ? ` (and ${refusals.length - 3} more)` : '';
    throw new UsageError(`${refusals.slice(0, 3).join('; ')}${more}`);
  }
}

/** host or host:port exceptions as given (--allow-host, repeatable or comma-separated), compared in lower case. */
export function allowList(hosts: readonly string[] = []): AllowList {
  return new Set(hosts.map((h) => h.toLowerCase()));
}

/** Schemes that never leave the browser. */
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

export interface GuardOptions {
  allow?: AllowList;
  /** Resolver; the system's by default. */
  lookup?: (host: string) => Promise<string[]>;
  /** How long a host's answer is reused, so a page's fifty subresources cost one lookup. */
  cacheMs?: number;
}

async function systemLookup(host: string): Promise<string[]> {
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

/** The addresses of a host, each answer kept for a while so that a page's fifty subresources cost one lookup. */
function cachedResolver(options: GuardOptions): (host: string) => Promise<string[]> {
  const lookup = options.lookup ?? systemLookup;
  const cacheMs = options.cacheMs ?? 5_000;
  const cache = new Map<string, { at: number; addresses: Promise<string[]> }>();
  return (host) => {
    const hit = cache.get(host);
    if (hit && Date.now() - hit.at < cacheMs) return hit.addresses;
    const addresses = net.isIP(host) ? Promise.resolve([host]) : lookup(host);
    cache.set(host, { at: Date.now(), addresses });
    addresses.catch(() => cache.delete(host));
    return addresses;
  };
}

/** Why a name could not be checked: a lookup that failed refuses rather than letting another resolver answer. */
function lookupFailure(err: unknown, target: string): string {
  return `DNS lookup failed: the host name could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'}) for ${target}`;
}

/**
 * Both guards of `serve`, sharing one resolver cache: a page's request is checked
 * by interception, then its connection by the egress proxy, and the name is looked
 * up once for both.
 */
export function createGuards(options: GuardOptions = {}): { requestGuard: RequestGuard; egressGuard: EgressGuard } {
  const resolve = cachedResolver(options);
  return { requestGuard: requestGuardWith(options, resolve), egressGuard: egressGuardWith(options, resolve) };
}

function requestGuardWith(options: GuardOptions, resolve: (host: string) => Promise<string[]>): RequestGuard {
  const allow = options.allow ?? new Set<string>();
  return async (rawUrl) => {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return `refused to fetch ${rawUrl}: not a valid URL`;
    }
    if (LOCAL_SCHEMES.has(url.protocol)) return undefined;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `refused to fetch ${rawUrl}: only http and https are fetched`;
    if (allowed(url, allow)) return undefined;
    const host = hostOf(url);
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch (err) {
      // Refuse rather than let the browser resolve a name we could not check.
      return lookupFailure(err, rawUrl);
    }
    const bad = addresses.find(blockedAddress);
    return bad === undefined ? undefined : refusal(`fetch ${rawUrl}`, host, bad);
  };
}

/**
 * The egress proxy's check of each connection the browser opens (host and port,
 * from a CONNECT or an absolute URL): the addresses it may dial, all checked, or
 * why not. The proxy dials only these, so the name is resolved once, here.
 */
export function createEgressGuard(options: GuardOptions = {}): EgressGuard {
  return egressGuardWith(options, cachedResolver(options));
}

function egressGuardWith(options: GuardOptions, resolve: (host: string) => Promise<string[]>): EgressGuard {
  const allow = options.allow ?? new Set<string>();
  return async (rawHost, port) => {
    const host = bareHost(rawHost).toLowerCase();
    const target = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch (err) {
      return { refusal: lookupFailure(err, target) };
    }
    if (allow.has(host) || allow.has(`${host}:${port}`)) return { addresses };
    const bad = addresses.find(blockedAddress);
    return bad === undefined ? { addresses } : { refusal: refusal(`connect to ${target}`, host, bad) };
  };
}
