import { createSignInMessageText } from '@solana/wallet-standard-util';
import { decodeBase58 } from '../lib/base58.js';
import { excerpt, malformed, mismatch } from './message-rejected.js';

/**
 * Sign In With Solana (the wallet-standard `solana:signIn` feature): the wallet builds the text
 * from the page's SolanaSignInInput and signs its UTF-8 bytes; the page sends the text base64 in
 * X-404-Message. Sources:
 *
 * - @solana/wallet-standard-util src/signIn.ts: `createSignInMessageText`, the serialiser wallets
 *   follow (and this module's final check), and `parseSignInMessageText`, a lax regex this module
 *   does not use: it takes any line as domain, address or nonce, ignores trailing newlines, and
 *   reads out-of-order fields as a multi-line statement;
 * - @solana/wallet-standard-features src/signIn.ts: SolanaSignInInput, every field optional;
 * - EIP-4361 (eips.ethereum.org/EIPS/eip-4361), its ABNF: domain = RFC 3986 authority, statement
 *   = *( reserved / unreserved / " " ), version "1", nonce = 8*( ALPHA / DIGIT ), timestamps RFC
 *   3339 date-time, request-id = *pchar, uri and resources RFC 3986 URIs;
 * - github.com/phantom/sign-in-with-solana README: the SIWS ABNF (Solana wording, base58 address,
 *   every field optional, chain ids `mainnet` … and `solana:mainnet` …).
 *
 * Parsing is line by line. Its regexes are anchored and unambiguous (no nested or overlapping
 * quantifiers: each character can match one way only), so hostile input costs linear time; the
 * input is bounded anyway. The final check re-serialises with createSignInMessageText and
 * compares, so a message is accepted only in the one form wallets produce.
 */

export interface SiwsMessage {
  domain: string;
  address: string;
  statement?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** Longest message accepted: a wallet's message for the gate is well under 1 KiB. */
export const MAX_SIWS_MESSAGE_CHARS = 4096;

const HEADER_SUFFIX = ' wants you to sign in with your Solana account:';
const RESOURCE_SCHEME = 'x404';

type LineField = 'uri' | 'version' | 'chainId' | 'nonce' | 'issuedAt' | 'expirationTime' | 'notBefore' | 'requestId';
/** The fields after the blank line, in the only order they may appear; Resources comes last. */
const LINE_FIELDS: readonly (readonly [LineField, string])[] = [
  ['uri', 'URI'],
  ['version', 'Version'],
  ['chainId', 'Chain ID'],
  ['nonce', 'Nonce'],
  ['issuedAt', 'Issued At'],
  ['expirationTime', 'Expiration Time'],
  ['notBefore', 'Not Before'],
  ['requestId', 'Request ID'],
];
const RESOURCES = 'Resources';
const LABELS = [...LINE_FIELDS.map(([, label]) => label), RESOURCES];

// RFC 3986 character classes, as regex class bodies.
const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const RESERVED = `:/?#\\[\\]@${SUB_DELIMS}`;
const STATEMENT = new RegExp(`^[${UNRESERVED}${RESERVED} ]+$`);
const URI = new RegExp(`^[A-Za-z][A-Za-z0-9+.\\-]*:(?:[${UNRESERVED}${RESERVED}]|%[0-9A-Fa-f]{2})*$`);
const REQUEST_ID = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:@]|%[0-9A-Fa-f]{2})+$`);
const NONCE = /^[A-Za-z0-9]{8,}$/;
/** Also SIWS_CHAIN_ID's rule (src/config.ts), so the gate never asks for a Chain ID it would refuse. */
export const CHAIN_ID = /^(?:solana:)?[A-Za-z0-9_-]{1,32}$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * The fields of a Sign In With Solana message, or `malformed` unless `text` is exactly what
 * createSignInMessageText produces for them and every field follows its grammar.
 */
export function parseSiwsMessage(text: string): SiwsMessage {
  if (text.length > MAX_SIWS_MESSAGE_CHARS) throw malformed('message', `is longer than ${MAX_SIWS_MESSAGE_CHARS} characters`);
  if (text.includes('\r')) throw malformed('message', 'contains a carriage return; lines end with LF only');
  if (text.endsWith('\n')) throw malformed('message', 'ends with a line break');
  if (text.includes('\n\n\n')) throw malformed('message', 'has two blank lines in a row');

  // Blank lines separate exactly: header and address | statement | fields (each part optional).
  const blocks = text.split('\n\n');
  if (blocks.length > 3) throw malformed('message', 'has a blank line where only a line break belongs (fields form one block)');
  const [head = '', second, third] = blocks;
  const headLines = head.split('\n');
  const header = headLines[0] ?? '';
  if (!header.endsWith(HEADER_SUFFIX)) {
    throw malformed('message', `first line must be "<domain>${HEADER_SUFFIX}", found ${excerpt(header)}`);
  }
  const domain = header.slice(0, -HEADER_SUFFIX.length);
  if (!isAuthority(domain)) throw malformed('domain', `must be host[:port] (no scheme, path or user), found ${excerpt(domain)}`);
  const address = headLines[1];
  if (address === undefined) throw malformed('address', 'missing: the second line must be the base58 account address');
  if (decodeBase58(address)?.length !== 32) throw malformed('address', `must be the base58 encoding of 32 bytes, found ${excerpt(address)}`);
  if (headLines.length > 2) throw malformed('message', `the address must be followed by a blank line, found ${excerpt(headLines[2]!)}`);

  const message: SiwsMessage = { domain, address };
  let statement: string | undefined;
  let fields: string | undefined;
  if (third !== undefined) [statement, fields] = [second, third];
  // One block after the address is the fields if it starts with a field label, as the
  // wallet-standard parser reads it (a statement "Nonce: …" serialises to the same text).
  else if (second !== undefined && labelOf(second) >= 0) fields = second;
  else statement = second;
  if (statement !== undefined) {
    if (statement.includes('\n')) throw malformed('statement', 'must be a single line, separated from the fields by a blank line');
    if (!isSiwsStatement(statement)) throw malformed('statement', `may hold only printable ASCII URI characters and spaces, found ${excerpt(statement)}`);
    message.statement = statement;
  }
  if (fields !== undefined) parseFields(fields.split('\n'), message);

  if (createSignInMessageText(message) !== text) throw malformed('message', 'is not in the form wallets produce for its fields');
  return message;
}

function parseFields(lines: readonly string[], message: SiwsMessage): void {
  let next = 0; // index in LABELS of the first field still allowed
  for (const line of lines) {
    if (message.resources && line.startsWith('- ')) {
      const resource = line.slice(2);
      if (!isUri(resource)) throw malformed(RESOURCES, `each resource must be a URI with a scheme, found ${excerpt(resource)}`);
      message.resources.push(resource);
      continue;
    }
    const index = labelOf(line);
    const label = LABELS[index];
    if (label === undefined) throw malformed('message', `unknown line ${excerpt(line)}`);
    if (index < next) {
      const seen = index === LINE_FIELDS.length ? message.resources : message[LINE_FIELDS[index]![0]];
      throw malformed(label, seen !== undefined ? 'appears twice' : `must come before ${LABELS[next - 1]}`);
    }
    next = index + 1;
    if (label === RESOURCES) {
      if (line !== `${RESOURCES}:`) throw malformed(RESOURCES, 'must be alone on its line, each resource on a "- " line below');
      message.resources = [];
      continue;
    }
    const [key] = LINE_FIELDS[index]!;
    const value = line.slice(label.length + 2);
    checkFieldGrammar(label, value);
    message[key] = value;
  }
}

/** Index in LABELS of the field `line` starts with, or -1. */
function labelOf(line: string): number {
  return LABELS.findIndex((label) =>
    label === RESOURCES ? line.startsWith(`${RESOURCES}:`) : line.startsWith(`${label}: `),
  );
}

function checkFieldGrammar(label: string, value: string): void {
  const found = excerpt(value);
  switch (label) {
    case 'URI':
      if (!isUri(value)) throw malformed(label, `must be an absolute URI with a scheme, found ${found}`);
      return;
    case 'Version':
      if (value !== '1') throw malformed(label, `must be 1, found ${found}`);
      return;
    case 'Chain ID':
      if (!CHAIN_ID.test(value)) throw malformed(label, `must be a cluster name such as mainnet or solana:mainnet, found ${found}`);
      return;
    case 'Nonce':
      if (!NONCE.test(value)) throw malformed(label, `must be at least 8 letters and digits, found ${found}`);
      return;
    case 'Request ID':
      if (!REQUEST_ID.test(value)) throw malformed(label, `must be URI path characters, found ${found}`);
      return;
    default: // the three timestamps
      if (timestampMs(value) === undefined) {
        throw malformed(label, `must be an RFC 3339 date-time such as 2026-01-31T12:00:00.000Z, found ${found}`);
      }
  }
}

/** RFC 3986 `URI`, checked character by character; `#` at most once. */
function isUri(text: string): boolean {
  return URI.test(text) && text.indexOf('#') === text.lastIndexOf('#');
}

/** `host [":" port]`: a DNS name or IPv4 address, or a bracketed IPv6 literal; no userinfo. */
function isAuthority(authority: string): boolean {
  const portColon = authority.startsWith('[') ? authority.indexOf(']') + 1 : authority.indexOf(':');
  const host = portColon < 0 ? authority : authority.slice(0, portColon);
  const port = portColon < 0 ? '' : authority.slice(portColon);
  const hostOk = host.startsWith('[')
    ? /^\[[0-9A-Fa-f:.]+\]$/.test(host)
    : host.length <= 253 && host.split('.').every((label) => /^[A-Za-z0-9-]{1,63}$/.test(label) && !label.startsWith('-') && !label.endsWith('-'));
  return hostOk && (port === '' || (/^:[0-9]{1,5}$/.test(port) && Number(port.slice(1)) <= 65535));
}

/** Milliseconds since the epoch of a strict RFC 3339 date-time (a real calendar date), or undefined. */
function timestampMs(text: string): number | undefined {
  const parts = DATE_TIME.exec(text);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = parts[7] ?? '';
  const offsetSign = parts[8] === '-' ? -1 : 1;
  const offsetHours = Number(parts[9] ?? 0);
  const offsetMinutes = Number(parts[10] ?? 0);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  // Second 60 (a leap second) is refused: Date cannot represent it, and no wallet writes one.
  if (daysInMonth === undefined || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0–99 as 1900–1999
  date.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  return date.getTime() - offsetSign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/**
 * Whether `text` is a statement the grammar allows (EIP-4361: URI characters and spaces, so
 * printable ASCII without `"`, `%`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`): a statement the
 * gate suggests must pass it, or wallets that check their message against the grammar (Phantom)
 * refuse the sign-in.
 */
export const isSiwsStatement = (text: string): boolean => STATEMENT.test(text);

/** The resource that binds a message to one feature of the gate. */
export const siwsResource = (feature: string): string => `${RESOURCE_SCHEME}:${feature}`;

export interface SiwsExpectation {
  address: string;
  nonce: string;
  feature: string;
  /** Authorities (host[:port]) the gate answers on. */
  domains: readonly string[];
  /** `mainnet`, `devnet`, …; `solana:mainnet` is the same chain. */
  chainId: string;
  nonceIssuedAtMs: number;
  nonceExpiresAtMs: number;
  nowMs: number;
  /** Tolerated clock difference between the wallet's machine and the gate. */
  skewMs?: number;
}

/**
 * Throws `mismatch` unless the parsed message proves this challenge: this wallet, this nonce and
 * feature, one of the gate's domains, this chain, and a time window that fits the nonce's.
 */
export function checkSiwsMessage(message: SiwsMessage, expected: SiwsExpectation): void {
  const skewMs = expected.skewMs ?? 60_000;
  const described = (found: string | undefined): string => (found === undefined ? 'none' : excerpt(found));
  const requireEqual = (field: string, wanted: string, found: string | undefined): void => {
    if (found !== wanted) throw mismatch(field, `expected ${excerpt(wanted)}, found ${described(found)}`);
  };
  const domainList = (): string => excerpt(expected.domains.join(' or '), 96);

  if (!expected.domains.some((domain) => sameAuthority(domain, message.domain))) {
    throw mismatch('domain', `expected ${domainList()}, found ${excerpt(message.domain)}`);
  }
  requireEqual('address', expected.address, message.address);

  const uri = message.uri ?? '';
  const authorityStart = uri.startsWith('https://') ? 8 : uri.startsWith('http://') ? 7 : 0;
  const authority = uri.slice(authorityStart).split(/[/?#]/, 1)[0] ?? '';
  if (!authorityStart || !expected.domains.some((domain) => sameAuthority(domain, authority))) {
    throw mismatch('URI', `expected an http(s) URI on ${domainList()}, found ${described(message.uri)}`);
  }

  if (message.version !== undefined) requireEqual('Version', '1', message.version);
  // Phantom's SIWS grammar names each cluster both ways (mainnet, solana:mainnet); the
  // wallet-standard chain ids are the prefixed ones. Either names the same chain.
  if (message.chainId === undefined || clusterName(message.chainId) !== clusterName(expected.chainId)) {
    throw mismatch('Chain ID', `expected ${excerpt(expected.chainId)}, found ${described(message.chainId)}`);
  }
  requireEqual('Nonce', expected.nonce, message.nonce);

  const at = (ms: number): string => new Date(ms).toISOString();
  const issuedAtMs = timeOf('Issued At', message.issuedAt);
  if (issuedAtMs === undefined) throw mismatch('Issued At', `missing; expected the time of signing, ${at(expected.nowMs)} or so`);
  if (issuedAtMs < expected.nonceIssuedAtMs - skewMs) {
    throw mismatch('Issued At', `is before the nonce was issued at ${at(expected.nonceIssuedAtMs)}, found ${described(message.issuedAt)}`);
  }
  if (issuedAtMs > expected.nonceExpiresAtMs) {
    throw mismatch('Issued At', `is after the nonce expired at ${at(expected.nonceExpiresAtMs)}, found ${described(message.issuedAt)}`);
  }
  if (issuedAtMs > expected.nowMs + skewMs) {
    throw mismatch('Issued At', `is more than ${skewMs / 1000} s after now (${at(expected.nowMs)}), found ${described(message.issuedAt)}`);
  }
  const expiresMs = timeOf('Expiration Time', message.expirationTime);
  if (expiresMs !== undefined && expiresMs <= expected.nowMs) {
    throw mismatch('Expiration Time', `has passed (now ${at(expected.nowMs)}), found ${described(message.expirationTime)}`);
  }
  if (expiresMs !== undefined && expiresMs <= issuedAtMs) {
    throw mismatch('Expiration Time', `is not after Issued At ${described(message.issuedAt)}, found ${described(message.expirationTime)}`);
  }
  const notBeforeMs = timeOf('Not Before', message.notBefore);
  if (notBeforeMs !== undefined && notBeforeMs > expected.nowMs + skewMs) {
    throw mismatch('Not Before', `is more than ${skewMs / 1000} s after now (${at(expected.nowMs)}), found ${described(message.notBefore)}`);
  }

  const wanted = siwsResource(expected.feature);
  const resources = message.resources ?? [];
  // URI schemes are case-insensitive (RFC 3986 §3.1), so X404:other is another feature's too.
  const other = resources.find((resource) => resource !== wanted && asciiLowerCase(resource).startsWith(`${RESOURCE_SCHEME}:`));
  if (other !== undefined) throw mismatch(RESOURCES, `expected ${excerpt(wanted)}, found ${excerpt(other)}`);
  if (!resources.includes(wanted)) throw mismatch(RESOURCES, `expected ${excerpt(wanted)} among the resources, found none`);
}

function timeOf(label: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = timestampMs(text);
  if (ms === undefined) throw malformed(label, `must be an RFC 3339 date-time, found ${excerpt(text)}`);
  return ms;
}

/** Host compared case-insensitively (ASCII only: no Unicode case folding), port exactly. */
const sameAuthority = (a: string, b: string): boolean => asciiLowerCase(a) === asciiLowerCase(b);
const asciiLowerCase = (text: string): string => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
const clusterName = (chainId: string): string => (chainId.startsWith('solana:') ? chainId.slice('solana:'.length) : chainId);
