import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { clientAddress, inRanges, LOOPBACK_RANGES, normalizeIp, parseAddressRange, proxyTrustWarnings, rateLimitKey, type AddressRange } from '../../src/http/client-address.js';

const ranges = (text: string): AddressRange[] => text.split(',').map((entry) => parseAddressRange(entry) as AddressRange);
/** The old behaviour, for the header-reading cases: every address is a trusted proxy. */
const EVERYONE = ranges('0.0.0.0/0,::/0');
const LOOPBACK = ranges(LOOPBACK_RANGES);

describe('normalizeIp', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    // uWS getRemoteAddressAsText spells every IPv6 group out.
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', '127.0.0.1'],
    ['::FFFF:C633:6407', '198.51.100.7'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', '::1'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['[2001:db8::5]:443', '2001:db8::5'],
    ['[::1]', '::1'],
    ['192.0.2.4:8080', '192.0.2.4'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeIp(input)).toBe(expected);
  });

  it.each([
    '',
    'unknown',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3',
    '1.2.3.4.5',
    'fe80::1%eth0',
    '2001:db8::1::2',
    '[2001:db8::1',
    '[2001:db8::1]x',
    '[1.2.3.4]',
    '1.2.3.4:99999999',
    '１２７.0.0.1',
    'ä.b.c.d',
    '::ffff:1.2.3.4\u0000',
    'x'.repeat(10_000),
  ])('rejects %j', (input) => {
    expect(normalizeIp(input)).toBeUndefined();
  });
});

describe('clientAddress', () => {
  const socket = '0000:0000:0000:0000:0000:ffff:0a00:0005'; // 10.0.0.5, the proxy as uWS reports it

  it('uses the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(socket, undefined, 0, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1', 0, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress('::ffff:127.0.0.1', '198.51.100.1, 203.0.113.2', 0, EVERYONE)).toBe('127.0.0.1');
  });

  it('takes the N-th address from the right with N trusted hops', () => {
    const header = '192.0.2.66, 198.51.100.1, 203.0.113.2';
    expect(clientAddress(socket, header, 1, EVERYONE)).toBe('203.0.113.2');
    expect(clientAddress(socket, header, 2, EVERYONE)).toBe('198.51.100.1');
    expect(clientAddress(socket, header, 3, EVERYONE)).toBe('192.0.2.66');
    expect(clientAddress(socket, '2001:DB8::7,203.0.113.2', 2, EVERYONE)).toBe('2001:db8::7');
  });

  it('uses the left-most entry when the header is shorter than the trusted hop count', () => {
    expect(clientAddress(socket, '198.51.100.1, 203.0.113.2', 5, EVERYONE)).toBe('198.51.100.1');
    expect(clientAddress(socket, '198.51.100.1', 2, EVERYONE)).toBe('198.51.100.1');
  });

  it('ignores what a client wrote to the left of the trusted entries', () => {
    expect(clientAddress(socket, 'not an address, ✓, 203.0.113.2', 1, EVERYONE)).toBe('203.0.113.2');
  });

  it('falls back to the socket address when the chosen entry is malformed or absent', () => {
    expect(clientAddress(socket, undefined, 1, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress(socket, '', 1, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1, ', 1, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1, garbage', 1, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1, 203.0.113.2', 1, EVERYONE)).toBe('203.0.113.2');
    expect(clientAddress(socket, 'ünïcödé, 203.0.113.2', 2, EVERYONE)).toBe('10.0.0.5');
    expect(clientAddress(socket, ',,,,', 3, EVERYONE)).toBe('10.0.0.5');
  });

  it('passes an unparseable socket address through unchanged rather than inventing one', () => {
    expect(clientAddress('', undefined, 0, EVERYONE)).toBe('');
  });
});

describe('TRUSTED_PROXIES: which peers X-Forwarded-For is believed from', () => {
  it('parses IPv4 and IPv6 CIDRs and single addresses, and matches them', () => {
    const trusted = ranges('10.0.0.0/8, 192.0.2.7, 2001:db8:ab00::/40, ::ffff:198.51.100.0/120');
    for (const address of ['10.0.0.1', '10.255.255.255', '192.0.2.7', '2001:db8:ab12::1', '198.51.100.200']) expect(inRanges(address, trusted), address).toBe(true);
    for (const address of ['11.0.0.1', '9.255.255.255', '192.0.2.8', '2001:db8:ac00::1', '198.51.101.1', '::1', '127.0.0.1', 'not an address']) expect(inRanges(address, trusted), address).toBe(false);
    // A prefix that ends inside a byte.
    const odd = ranges('172.16.0.0/12');
    expect([inRanges('172.31.255.255', odd), inRanges('172.32.0.0', odd), inRanges('172.15.255.255', odd)]).toEqual([true, false, false]);
    // Host bits past the prefix are ignored; an IPv4 range never matches an IPv6 address outside ::ffff:0:0/96.
    expect(inRanges('10.9.9.9', ranges('10.1.2.3/8'))).toBe(true);
    expect(inRanges('::a00:1', ranges('10.0.0.0/8'))).toBe(false);
    expect(inRanges('127.0.0.1', LOOPBACK) && inRanges('127.1.2.3', LOOPBACK) && inRanges('::1', LOOPBACK)).toBe(true);
    expect(inRanges('::2', LOOPBACK)).toBe(false);
  });

  it.each(['', 'localhost', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0/8', 'fe80::1%eth0', '1.2.3.4/-1', '2001:db8::/ 32'])('refuses %j', (text) => {
    expect(parseAddressRange(text)).toBeUndefined();
  });

  it('reads X-Forwarded-For only from a trusted peer: a direct client cannot choose its address', () => {
    const direct = '0000:0000:0000:0000:0000:ffff:cb00:7105'; // 203.0.113.5, as uWS writes it
    expect(clientAddress(direct, '198.51.100.1', 1, LOOPBACK)).toBe('203.0.113.5');
    expect(clientAddress('127.0.0.1', '198.51.100.1', 1, LOOPBACK)).toBe('198.51.100.1');
    expect(clientAddress('::1', '2001:db8::9', 1, LOOPBACK)).toBe('2001:db8::9');
  });

  it('walks hops from the right only while each is a trusted proxy', () => {
    const trusted = ranges('127.0.0.1, 10.0.0.0/8');
    // client → CDN (10.1.1.1, trusted) → nginx (127.0.0.1) → gate
    expect(clientAddress('127.0.0.1', '198.51.100.1, 10.1.1.1', 2, trusted)).toBe('198.51.100.1');
    // A client that reaches nginx directly writes the left entry itself: nginx's entry names it, and it is not trusted.
    expect(clientAddress('127.0.0.1', '10.9.9.9, 203.0.113.66', 2, trusted)).toBe('203.0.113.66');
    // Never more hops than TRUST_PROXY, however many entries are trusted.
    expect(clientAddress('127.0.0.1', '198.51.100.1, 10.0.0.2, 10.0.0.1', 2, trusted)).toBe('10.0.0.2');
  });

  it('warns at start-up when everyone is a trusted proxy on a reachable port, and only then', () => {
    const config = (env: Record<string, string>) => loadConfig({ JWT_SECRET: 'x'.repeat(32), SOLANA_RPC_URL: 'http://127.0.0.1:1', ...env });
    const [warning] = proxyTrustWarnings(config({ TRUST_PROXY: '1', TRUSTED_PROXIES: '0.0.0.0/0' }));
    expect(warning).toMatch(/TRUST_PROXY=1 with TRUSTED_PROXIES 0\.0\.0\.0\/0 \(every address\) while listening on 0\.0\.0\.0: any client that reaches this port directly chooses its own rate-limit key/);
    expect(proxyTrustWarnings(config({ TRUST_PROXY: '1', TRUSTED_PROXIES: '::/0' }))).toHaveLength(1);
    expect(proxyTrustWarnings(config({ TRUST_PROXY: '1', TRUSTED_PROXIES: '0.0.0.0/0', HOST: '127.0.0.1' }))).toEqual([]);
    expect(proxyTrustWarnings(config({ TRUST_PROXY: '1' }))).toEqual([]);
    expect(proxyTrustWarnings(config({ TRUST_PROXY: '0', TRUSTED_PROXIES: '0.0.0.0/0' }))).toEqual([]);
    expect(config({}).trustedProxies.map((range) => range.text)).toEqual(['127.0.0.0/8', '::1/128']);
    expect(() => config({ TRUSTED_PROXIES: '10.0.0.0/8, nginx.internal' })).toThrow(/TRUSTED_PROXIES must list IPv4 or IPv6 addresses or CIDR ranges .*got "nginx.internal"/);
  });
});

describe('rateLimitKey', () => {
  it('counts IPv4 per address and IPv6 per /64', () => {
    expect(rateLimitKey('203.0.113.2')).toBe('203.0.113.2');
    expect(rateLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitKey('2001:db8:1:3::1')).not.toBe(rateLimitKey('2001:db8:1:2::1'));
  });
});
