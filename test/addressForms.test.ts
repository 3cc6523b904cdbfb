/**
 * The address check of `webjobs serve` (src/engine/net/ssrf.ts) against every IPv6
 * form that carries an IPv4 address, as the URL parser writes them (it turns
 * [::127.0.0.1] into [::7f00:1]); then the same through a real serve request,
 * and the egress proxy's port, which no error message may name.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedAddress, embeddedIpv4, literalRefusal } from '../src/engine/net/ssrf.js';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

/** Each carries a refused IPv4 address (loopback, private, metadata) in another IPv6 form. */
const REFUSED = [
  ['IPv4-compatible, dotted', '::127.0.0.1'],
  ['IPv4-compatible, hex', '::7f00:1'],
  ['IPv4-compatible, metadata', '::169.254.169.254'],
  ['IPv4-mapped, dotted', '::ffff:127.0.0.1'],
  ['IPv4-mapped, hex', '::ffff:7f00:1'],
  ['IPv4-mapped, written out', '0:0:0:0:0:ffff:a9fe:a9fe'],
  ['IPv4-translated', '::ffff:0:10.0.0.1'],
  ['NAT64 well-known prefix, dotted', '64:ff9b::127.0.0.1'],
  ['NAT64 well-known prefix, hex', '64:ff9b::a9fe:a9fe'],
  ['NAT64 local-use prefix', '64:ff9b:1::7f00:1'],
  ['NAT64 local-use prefix, another position', '64:ff9b:1:7f00:1::'],
  ['6to4', '2002:7f00:1::1'],
  ['6to4, private', '2002:c0a8:101::'],
  ['Teredo, client 127.0.0.1 (inverted)', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ['Teredo, client 169.254.169.254 (inverted)', '2001:0:4136:e378:8000:63bf:5601:5601'],
  ['ISATAP', 'fe80::5efe:127.0.0.1'],
  ['ISATAP under a global prefix', '2001:db8::5efe:a00:1'],
  ['ISATAP, universal bit set', '2001:db8::200:5efe:a9fe:a9fe'],
] as const;

/** The same forms around public addresses, which stay allowed. */
const ALLOWED = ['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', '2001:db8::5efe:808:808', '2606:4700:4700::1111'];

describe('IPv6 forms of a refused IPv4 address', () => {
  for (const [form, address] of REFUSED) {
    it(`${form}: [${address}] is refused, as the URL parser writes it too`, () => {
      const url = `http://[${address}]/latest/meta-data/`;
      const written = new URL(url).hostname.slice(1, -1);
      expect(net.isIPv6(written)).toBe(true);
      expect(blockedAddress(address)).toBe(true);
      expect(blockedAddress(written)).toBe(true);
      expect(literalRefusal(url)).toMatch(/is a loopback, private, link-local or metadata address/);
    });
  }

  it('names the IPv4 address the IPv6 one carries', () => {
    expect(embeddedIpv4('::7f00:1')).toContain('127.0.0.1');
    expect(literalRefusal('http://[::127.0.0.1]/')).toBe(
      'refused to fetch http://[::127.0.0.1]/: ::7f00:1, which carries 127.0.0.1, is a loopback, private, link-local or metadata address, which this service does not fetch',
    );
  });

  it('lets the same forms of public addresses through', () => {
    for (const address of ALLOWED) expect([address, blockedAddress(address)]).toEqual([address, false]);
  });
});

describe('through webjobs serve', () => {
  const KEY = 'address-key-0123456789';
  let site: FixtureServer;
  let hangsUp: net.Server;
  let hangsUpPort: number;
  let server: ServeProcess;
  const api = serveClient(() => server.url, KEY);

  beforeAll(async () => {
    site = await startFixtureServer({ '/secret': (_req, res) => sendHtml(res, html(`<h1>Secret</h1>${articleText('secrets')}`)) });
    // Takes the connection, then closes it without a word: the fetch fails after the egress proxy connected.
    hangsUp = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangsUp.listen(0, '127.0.0.1', resolve));
    hangsUpPort = (hangsUp.address() as net.AddressInfo).port;
    server = await startServe({
      args: ['--allow-host', `127.0.0.1:${hangsUpPort}`, '--quiet'],
      env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await site?.close();
    await new Promise((resolve) => hangsUp?.close(resolve));
  });

  it('refuses http://[::127.0.0.1]:PORT/ and the other forms at start with 400; the site sees nothing', async () => {
    const port = new URL(site.url).port;
    for (const address of ['::127.0.0.1', '::ffff:7f00:1', '64:ff9b::127.0.0.1', '2002:7f00:1::']) {
      const url = `http://[${address}]:${port}/secret`;
      const answer = await api.call('POST', '/api/scrape', { body: { url } });
      expect([url, answer.status]).toEqual([url, 400]);
      expect(answer.body.message).toContain('carries 127.0.0.1');
    }
    expect(site.requests).toEqual([]);
  });

  it("a fetch that fails past the egress proxy says why without naming the proxy's port", async () => {
    const path = await api.start('scrape', { url: `http://127.0.0.1:${hangsUpPort}/`, scrapeOptions: { engine: 'http' } });
    expect(await api.waitFinal(path)).toBe('failed');
    const { error } = (await api.call('GET', path)).body;
    expect(error).toContain(`127.0.0.1:${hangsUpPort}`);
    expect(error).not.toMatch(/proxy/);
    // The only port the message names is the site's.
    expect([...error.matchAll(/:(\d{2,5})\b/g)].map((m: RegExpMatchArray) => Number(m[1]))).toEqual([hangsUpPort]);
  });
});
