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
 * The address a request is attributed to (rate limiting, logs). With `trustProxy` 0 it is the socket
 * peer. With N trusted proxy hops it is the N-th entry from the right of X-Forwarded-For: each trusted
 * proxy appended the address it saw, so entries further left were written by the client and prove
 * nothing. When the header has fewer entries, the left-most is used. When the chosen entry is not an
 * IP address (or the header is absent) the socket address is used.
 */
export function clientAddress(socketAddress: string, forwardedFor: string | undefined, trustProxy: number): string {
  const socket = normalizeIp(socketAddress) ?? socketAddress;
  if (trustProxy <= 0 || forwardedFor === undefined) return socket;
  const entries = forwardedFor.split(',');
  const chosen = entries[Math.max(0, entries.length - trustProxy)];
  return (chosen === undefined ? undefined : normalizeIp(chosen)) ?? socket;
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
