import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * Canonical text of an IP address, or undefined when `text` is not one. IPv6 is compressed and
 * lower-cased (RFC 5952) so one host has one spelling whatever wrote it (uWS spells all eight groups
 * out), and IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `0:0:0:0:0:ffff:7f00:1`) becomes plain IPv4.
 * Accepts the `1.2.3.4:port` and `[v6]:port` forms some proxies write, dropping the port.
 */
export function normalizeIp(text: string): string | undefined {
  let candidate = text.trim();
  if (candidate.startsWith('[')) {
    const close = candidate.indexOf(']');
    const rest = candidate.slice(close + 1);
    if (close < 0 || !(rest === '' || /^:\d{1,5}$/.test(rest))) return undefined;
    candidate = candidate.slice(1, close);
    if (!isIPv6(candidate)) return undefined;
  }
  if (isIPv4(candidate)) return candidate;
  const ipv4WithPort = /^([0-9.]+):\d{1,5}$/.exec(candidate);
  if (ipv4WithPort?.[1] !== undefined && isIPv4(ipv4WithPort[1])) return ipv4WithPort[1];
  // Zone ids (fe80::1%eth0) name an interface of the writer's machine: meaningless here.
  if (!isIPv6(candidate) || candidate.includes('%')) return undefined;
  const compressed = new URL(`http://[${candidate}]/`).hostname.slice(1, -1);
  const mapped = MAPPED_IPV4.exec(compressed);
  if (mapped?.[1] !== undefined && mapped[2] !== undefined) {
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return compressed;
}

/**
 * A range of addresses (TRUSTED_PROXIES): an IPv4 or IPv6 CIDR, or one address. Kept as 16 bytes
 * with IPv4 mapped into ::ffff:0:0/96 (as normalizeIp's plain IPv4 is compared), so one test serves
 * both families.
 */
export interface AddressRange {
  /** As configured, for messages. */
  text: string;
  family: 4 | 6;
  bytes: Uint8Array;
  /** Leading bits that must match, 0–128 (an IPv4 /n is 96 + n). */
  bits: number;
}

/** TRUSTED_PROXIES' default: the machine itself (a proxy on the same host). */
export const LOOPBACK_RANGES = '127.0.0.0/8,::1/128';

/** `10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`, `::1`; undefined when `text` is none of these. Host bits past the prefix are ignored. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash < 0 ? trimmed : trimmed.slice(0, slash);
  const family = isIPv4(addressText) ? 4 : isIPv6(addressText) && !addressText.includes('%') ? 6 : undefined;
  if (family === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(max) : trimmed.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  const bytes = family === 4 ? ipv4Bytes(addressText) : ipv6Bytes(addressText);
  if (bytes === undefined) return undefined;
  return { text: trimmed, family, bytes, bits: (family === 4 ? 96 : 0) + Number(prefixText) };
}

/** Whether `address` (as normalizeIp writes it) lies in one of `ranges`. */
export function inRanges(address: string, ranges: readonly AddressRange[]): boolean {
  const bytes = address.includes(':') ? ipv6Bytes(address) : ipv4Bytes(address);
  if (bytes === undefined) return false;
  for (const range of ranges) if (matches(bytes, range)) return true;
  return false;
}

function matches(bytes: Uint8Array, { bytes: network, bits }: AddressRange): boolean {
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== network[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole]! ^ network[whole]!) & mask) === 0;
}

function ipv4Bytes(text: string): Uint8Array | undefined {
  if (!isIPv4(text)) return undefined;
  const bytes = new Uint8Array(16);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  text.split('.').forEach((part, i) => (bytes[12 + i] = Number(part)));
  return bytes;
}

function ipv6Bytes(text: string): Uint8Array | undefined {
  if (!isIPv6(text)) return undefined;
  // The URL parser writes a dotted IPv4 tail (::ffff:1.2.3.4) as two hex groups.
  const groups = expandIPv6(new URL(`http://[${text}]/`).hostname.slice(1, -1));
  if (groups === undefined) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

/**
 * The address a request is attributed to (rate limiting, logs). With `trustProxy` 0 it is the socket
 * peer. With N trusted proxy hops it is read from X-Forwarded-For from the right, one hop at a time,
 * and only while the address at hand is a trusted proxy (`trusted`, TRUSTED_PROXIES): each such proxy
 * appended the address it saw, so the entry it wrote names its peer. The first untrusted address
 * met is the client — a client that reaches the gate directly, or through a proxy the operator did
 * not name, writes what it likes to the left and proves nothing. When the header has fewer entries,
 * the left-most reached is used; when an entry to read is not an IP address, the socket address.
 */
export function clientAddress(socketAddress: string, forwardedFor: string | undefined, trustProxy: number, trusted: readonly AddressRange[]): string {
  const socket = normalizeIp(socketAddress) ?? socketAddress;
  if (trustProxy <= 0 || forwardedFor === undefined) return socket;
  const entries = forwardedFor.split(',');
  let client = socket;
  for (let hop = 1; hop <= trustProxy; hop++) {
    if (!inRanges(client, trusted)) return client;
    const entry = entries[entries.length - hop];
    if (entry === undefined) return client;
    const address = normalizeIp(entry);
    if (address === undefined) return socket;
    client = address;
  }
  return client;
}

/**
 * What start-up should warn about: X-Forwarded-For trusted from everyone on a port others can
 * reach (any client then picks its own rate-limit key), or trusted proxies named while no hop is.
 */
export function proxyTrustWarnings(config: { trustProxy: number; trustedProxies: readonly AddressRange[]; host: string }): string[] {
  const warnings: string[] = [];
  const everyone = config.trustedProxies.filter((range) => (range.family === 4 ? range.bits === 96 : range.bits === 0));
  if (config.trustProxy > 0 && everyone.length > 0 && !isLoopbackHost(config.host)) {
    warnings.push(
      `TRUST_PROXY=${config.trustProxy} with TRUSTED_PROXIES ${everyone.map((range) => range.text).join(', ')} (every address) while listening on ${config.host}: ` +
        'any client that reaches this port directly chooses its own rate-limit key with X-Forwarded-For. Name your proxies\' addresses in TRUSTED_PROXIES, or listen on 127.0.0.1 (HOST).',
    );
  }
  return warnings;
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * The rate-limit key for a client address. One IPv6 host usually owns a whole /64 and can rotate
 * through it freely, so IPv6 addresses are counted per /64; IPv4 addresses per address.
 */
export function rateLimitKey(address: string): string {
  if (!address.includes(':')) return address;
  const full = expandIPv6(address);
  return full === undefined ? address : `${full.slice(0, 4).join(':')}::/64`;
}

function expandIPv6(address: string): string[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  return groups.map((group) => (parseInt(group, 16) || 0).toString(16));
}
