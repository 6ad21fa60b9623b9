import { describe, expect, it } from 'vitest';
import { clientAddress, normalizeIp, rateLimitKey } from '../../src/http/client-address.js';

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
    expect(clientAddress(socket, undefined, 0)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1', 0)).toBe('10.0.0.5');
    expect(clientAddress('::ffff:127.0.0.1', '198.51.100.1, 203.0.113.2', 0)).toBe('127.0.0.1');
  });

  it('takes the N-th address from the right with N trusted hops', () => {
    const header = '192.0.2.66, 198.51.100.1, 203.0.113.2';
    expect(clientAddress(socket, header, 1)).toBe('203.0.113.2');
    expect(clientAddress(socket, header, 2)).toBe('198.51.100.1');
    expect(clientAddress(socket, header, 3)).toBe('192.0.2.66');
    expect(clientAddress(socket, '2001:DB8::7,203.0.113.2', 2)).toBe('2001:db8::7');
  });

  it('uses the left-most entry when the header is shorter than the trusted hop count', () => {
    expect(clientAddress(socket, '198.51.100.1, 203.0.113.2', 5)).toBe('198.51.100.1');
    expect(clientAddress(socket, '198.51.100.1', 2)).toBe('198.51.100.1');
  });

  it('ignores what a client wrote to the left of the trusted entries', () => {
    expect(clientAddress(socket, 'not an address, ✓, 203.0.113.2', 1)).toBe('203.0.113.2');
  });

  it('falls back to the socket address when the chosen entry is malformed or absent', () => {
    expect(clientAddress(socket, undefined, 1)).toBe('10.0.0.5');
    expect(clientAddress(socket, '', 1)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1, ', 1)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1, garbage', 1)).toBe('10.0.0.5');
    expect(clientAddress(socket, '198.51.100.1, 203.0.113.2', 1)).toBe('203.0.113.2');
    expect(clientAddress(socket, 'ünïcödé, 203.0.113.2', 2)).toBe('10.0.0.5');
    expect(clientAddress(socket, ',,,,', 3)).toBe('10.0.0.5');
  });

  it('passes an unparseable socket address through unchanged rather than inventing one', () => {
    expect(clientAddress('', undefined, 0)).toBe('');
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
