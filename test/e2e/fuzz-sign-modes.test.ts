import { createPrivateKey, createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, challenge, get, getNonce, newWallet, publicKeyOf, signedHeaders } from '../helpers/client.js';
import { runSchedule } from '../helpers/fuzz-run.js';
import { startGate, type GateProcess } from '../helpers/gate.js';
import { RawPool, type RawResponse } from '../helpers/raw-http.js';
import { agaveOffchainMessage, ledgerOffchainMessage, memoTransaction, siwsFields, siwsHeaders, type MemoTxOptions } from '../helpers/sign-modes.js';
import { prng, Seeded } from '../helpers/seeded.js';

/**
 * Sign-mode fuzzer against the real gate: for each of siws, offchain and memo-tx, FUZZ_REQUESTS_PER_MODE
 * (10,000) logins whose X-404-Message is a valid signed message (several wallets, several nonces of
 * the gate, several message variants as wallets build them: test/helpers/sign-modes.ts) mutated in a
 * seeded way:
 *
 * - structure-aware: SIWS lines and fields dropped, duplicated, reordered, altered (domains, URIs,
 *   timestamps, nonces, resources, chain ids…), CRLF, blank lines, unicode, overlong; memo
 *   transactions re-encoded from a model with changed headers, keys, blockhash, instructions
 *   (Compute Budget ones, extra ones, memo data and accounts), lookups, signatures, non-canonical or
 *   wrong shortvec lengths, v0 prefixes, and bytes flipped in each region; off-chain messages with
 *   other versions, layouts, formats, lengths, signer counts, bodies, a message both version-0
 *   layouts read;
 * - blind: bit flips, truncation, insertion, deletion, duplication, random bytes;
 * - encoding: bad base64 (padding, alphabet, non-canonical bits, spaces), empty, over 4096 bytes, huge;
 * - headers: X-404-Nonce (another context's, another feature's, re-spelled, broken), X-404-Addr,
 *   X-404-Signature, X-404-Sign-Mode, a duplicated X-404-Message.
 *
 * A share of the mutated messages is re-signed with the key of X-404-Addr, so that the checks run
 * past "signature fails" and some mutations (a Compute Budget instruction, another layout, a later
 * Issued At…) still sign in. Nonce acceptance is stateless and a nonce is spent only after a valid
 * proof, so one nonce carries hundreds of attempts. A third of the contexts are never re-signed, and
 * a mutation of theirs that left the proof intact (a no-op) is sent with a forged signature: none of
 * their logins may be accepted, and afterwards their untouched message must still sign in, so no
 * refused login spent its nonce.
 *
 * Every answer must be a status the contract names for a login with the codes it names, a JSON body,
 * never 500 / INTERNAL_ERROR; a 200 (or NONCE_REUSED, its twin once the nonce is spent) only when an
 * independent oracle (wallet-standard's parser, @solana/web3.js's decoder, the off-chain layouts read
 * by hand, and an ed25519 check of the signature) says the message proves the challenge; at most one
 * 200 per nonce; 400 INVALID_HEADER names X-404-Message for a malformed message, 401
 * INVALID_SIGNATURE names a `field` of the mode for a mismatch. Afterwards the gate still signs in a
 * normal login and its RSS stayed bounded. The fuzzer must have reached deep: for each mode, several
 * distinct fields in 400 and 401 answers, and accepted proofs.
 *
 * The oracle judges header values as uWebSockets hands them to the gate: it drops leading and
 * trailing bytes ≥ 0x80 like whitespace (asServerReads), so "<address>é" reads as "<address>".
 *
 * Reproduce a failure with FUZZ_SEED=<seed printed in the failure>: request `i` of a mode is built
 * from its own PRNG seeded by (seed, mode, i), so it is the same whatever the concurrency (the
 * nonces and timestamps it mutates are the gate's and the clock's of the run).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 0x5161f22);
const REQUESTS_PER_MODE = Number(process.env.FUZZ_REQUESTS_PER_MODE ?? 10_000);
/**
 * The whole schedule runs, however long a loaded machine takes; FUZZ_TIME_BUDGET_MS cuts a local
 * run short (and then asserts the schedule fitted). The test's own timeout only catches a hang.
 */
const TIME_BUDGET_MS = process.env.FUZZ_TIME_BUDGET_MS === undefined ? Infinity : Number(process.env.FUZZ_TIME_BUDGET_MS);
const HANG_MS = 30 * 60_000;
const CONCURRENCY = 32;
const FEATURE = 'blacklist';
const PATH = `/x404_auth/${FEATURE}`;
const DOMAINS = ['app.example.com', 'localhost:5173'];
const MODES = ['siws', 'offchain', 'memo-tx'] as const;
type Mode = (typeof MODES)[number];
const WALLETS_PER_MODE = 4;
const NONCES_PER_WALLET = 3;
/** Largest X-404-Message the gate accepts, decoded (src/sign-modes/read-proof.ts). */
const MAX_MESSAGE_BYTES = 4096;

/** What a login may answer (docs/api.md §3–§5), with its codes; the policy is empty, so no feature failure. */
const CODES_BY_STATUS: Record<number, ReadonlySet<string>> = {
  400: new Set(['MISSING_HEADER', 'INVALID_HEADER', 'FEATURE_MISMATCH']),
  401: new Set(['INVALID_NONCE', 'NONCE_EXPIRED', 'NONCE_REUSED', 'INVALID_SIGNATURE']),
  431: new Set(['HEADERS_TOO_LARGE']),
};
/** The `field` of a 401 INVALID_SIGNATURE (MessageRejected 'mismatch'), by mode. */
const MISMATCH_FIELDS: Record<Mode, ReadonlySet<string>> = {
  siws: new Set(['domain', 'address', 'URI', 'Version', 'Chain ID', 'Nonce', 'Issued At', 'Expiration Time', 'Not Before', 'Resources']),
  offchain: new Set(['body', 'signers']),
  'memo-tx': new Set(['signers', 'feePayer', 'addressTableLookups', 'recentBlockhash', 'instructions', 'memo', 'accountKeys', 'signature']),
};
/** The field a 400 on X-404-Message names (MessageRejected 'malformed'), by mode. */
const MALFORMED_FIELDS: Record<Mode, ReadonlySet<string>> = {
  siws: new Set(['message', 'domain', 'address', 'statement', 'URI', 'Version', 'Chain ID', 'Nonce', 'Issued At', 'Expiration Time', 'Not Before', 'Request ID', 'Resources']),
  offchain: new Set(['signing domain', 'header version', 'message length', 'message format', 'signers', 'body', 'application domain']),
  'memo-tx': new Set(['transaction', 'signatures', 'header', 'version', 'accountKeys', 'recentBlockhash', 'instructions', 'addressTableLookups']),
};

// ---------------------------------------------------------------------------------------------
// Seeded generation (test/helpers/seeded.ts)

class Gen extends Seeded {
  /** Weighted choice: [weight, value] pairs. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    let r = this.random() * choices.reduce((sum, [weight]) => sum + weight, 0);
    for (const [weight, value] of choices) {
      r -= weight;
      if (r < 0) return value;
    }
    return choices[choices.length - 1]![1];
  }
}

const UNICODE = ['\u200b', '\ufeff', '\u202e', '\u00a0', 'é', 'e\u0301', 'ａ', 'Ａ', '１', '٣', '𝔘', '😀', '漢字', 'ß', 'İ', '\u2028', '\u0000', '\u0007', '\t', '\u007f'];

// ---------------------------------------------------------------------------------------------
// Keys, bytes

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

interface Wallet {
  /** seed ‖ public key, as the helpers take it. */
  secret: Uint8Array;
  address: string;
  publicKey: Uint8Array;
  privateKey: KeyObject;
  publicKeyObject: KeyObject;
}

function walletFrom(seed: Uint8Array): Wallet {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const publicKeyObject = createPublicKey(privateKey);
  const publicKey = new Uint8Array(publicKeyObject.export({ format: 'der', type: 'spki' }).subarray(-32));
  const secret = new Uint8Array(64);
  secret.set(seed);
  secret.set(publicKey, 32);
  return { secret, address: bs58.encode(publicKey), publicKey, privateKey, publicKeyObject };
}

const signWith = (wallet: Wallet, bytes: Uint8Array): Uint8Array => new Uint8Array(cryptoSign(null, bytes, wallet.privateKey));
const verifies = (wallet: Wallet, bytes: Uint8Array, signature: Uint8Array): boolean => cryptoVerify(null, bytes, wallet.publicKeyObject, signature);
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const concat = (...parts: (Uint8Array | readonly number[])[]): Uint8Array => new Uint8Array(Buffer.concat(parts.map((part) => Buffer.from(part as Uint8Array))));
const equal = (a: Uint8Array | undefined, b: Uint8Array | undefined): boolean => a !== undefined && b !== undefined && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const u16le = (value: number): number[] => [value & 0xff, (value >> 8) & 0xff];
const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return FATAL_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function decode58(text: string | undefined): Uint8Array | undefined {
  if (!text) return undefined;
  try {
    return bs58.decode(text);
  } catch {
    return undefined;
  }
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * The bytes of a nonce in a spelling the gate reads (canonical lower-case base32: 64 characters, or
 * an earlier version's 61; or an earlier version's 51 of base64url), else undefined. Each starts
 * with its issue time (6 bytes).
 */
function nonceBytes(text: string): Buffer | undefined {
  if (text.length === 51 && /^[A-Za-z0-9_-]+$/.test(text)) {
    const bytes = Buffer.from(text, 'base64url');
    return bytes.toString('base64url') === text ? bytes : undefined;
  }
  if (text.length !== 64 && text.length !== 61) return undefined;
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = BASE32.indexOf(char);
    if (value < 0) return undefined;
    buffer = ((buffer << 5) | value) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >>> bits) & 0xff);
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return Buffer.from(out);
}

const nonceIdOf = (text: string): string | undefined => nonceBytes(text)?.subarray(6, 22).toString('hex');
const respellNonce = (nonce: string): string => nonceBytes(nonce)!.toString('base64url');

// ---------------------------------------------------------------------------------------------
// Contexts: a wallet, one of the gate's nonces, and valid signed messages of each variant

const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr').toBytes();
const MEMO_V1 = new PublicKey('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo').toBytes();
const COMPUTE_BUDGET = new PublicKey('ComputeBudget111111111111111111111111111111').toBytes();
const SYSTEM_PROGRAM = new Uint8Array(32);
const SIGNING_DOMAIN = concat([0xff], utf8('solana offchain'));

const VARIANTS: Record<Mode, readonly string[]> = {
  siws: ['full', 'minimal', 'extras'],
  offchain: ['legacy', 'v0', 'v1', 'absent'],
  'memo-tx': ['legacy', 'v0', 'legacy+price', 'v0+price', 'memo-v1'],
};

interface Base {
  variant: string;
  /** The message bytes; undefined for an off-chain login that leaves the message to the gate. */
  bytes: Uint8Array | undefined;
  signature: Uint8Array;
}

interface Context {
  mode: Mode;
  index: number;
  wallet: Wallet;
  nonce: string;
  nonceId: string;
  /** Re-signed mutations allowed: only these contexts expect accepted proofs. */
  deep: boolean;
  bases: Base[];
}

let T0 = Date.now();

/** A valid message of `variant` for `wallet` and `nonce`, built and signed as wallets do (test/helpers/sign-modes.ts). */
function buildBase(mode: Mode, variant: string, wallet: Wallet, nonce: string): Base {
  const text = challenge(nonce, FEATURE);
  switch (mode) {
    case 'siws': {
      const overrides =
        variant === 'minimal'
          ? { domain: 'localhost:5173', uri: 'http://localhost:5173/', chainId: 'solana:mainnet', statement: undefined, version: undefined }
          : variant === 'extras'
            ? {
                expirationTime: new Date(T0 + 20 * 60_000).toISOString(),
                notBefore: new Date(T0 - 60_000).toISOString(),
                requestId: 'req-42',
                resources: ['https://app.example.com/terms', `x404:${FEATURE}`],
              }
            : {};
      const headers = siwsHeaders(wallet.secret, nonce, FEATURE, siwsFields(wallet.secret, nonce, FEATURE, { issuedAt: new Date(T0).toISOString(), ...overrides }));
      return { variant, bytes: new Uint8Array(Buffer.from(headers['X-404-Message']!, 'base64')), signature: bs58.decode(headers['X-404-Signature']!) };
    }
    case 'offchain': {
      const bytes =
        variant === 'v0'
          ? new Uint8Array(ledgerOffchainMessage(text, [wallet.publicKey]))
          : variant === 'v1'
            ? concat(SIGNING_DOMAIN, [1, 1], wallet.publicKey, utf8(text))
            : new Uint8Array(agaveOffchainMessage(text));
      return { variant, bytes: variant === 'absent' ? undefined : bytes, signature: signWith(wallet, bytes) };
    }
    case 'memo-tx': {
      const options: MemoTxOptions = {
        version: variant.startsWith('v0') ? 0 : 'legacy',
        ...(variant.endsWith('+price') ? { computeUnitPrice: 1000 } : {}),
        ...(variant === 'memo-v1' ? { memoProgram: new PublicKey(MEMO_V1) } : {}),
      };
      const { wire, signature } = memoTransaction(wallet.secret, nonce, FEATURE, options);
      return { variant, bytes: new Uint8Array(wire), signature: new Uint8Array(signature) };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations shared by every mode

interface Env {
  g: Gen;
  ctx: Context;
  /** Every context of every mode, for nonces and wallets that are someone else's. */
  all: Context[];
  others: Wallet[];
  tierNonces: string[];
  shallowNonceIds: ReadonlySet<string>;
  walletsByAddress: ReadonlyMap<string, Wallet>;
}

function blindMutation(env: Env, input: Uint8Array, ops: string[]): Uint8Array {
  const { g } = env;
  let bytes = Buffer.from(input);
  const at = (): number => g.int(bytes.length + 1);
  const kind = g.weighted([
    [4, 'bitflip'],
    [2, 'setbyte'],
    [2, 'interesting'],
    [2, 'truncate'],
    [2, 'insert'],
    [2, 'delete'],
    [1, 'duplicate'],
    [1, 'swap'],
    [1, 'append'],
    [1, 'random'],
  ] as const);
  ops.push(`blind:${kind}`);
  switch (kind) {
    case 'bitflip':
      for (let n = g.chance(0.7) ? 1 : 1 + g.int(8); n > 0 && bytes.length > 0; n -= 1) bytes[g.int(bytes.length)]! ^= 1 << g.int(8);
      return bytes;
    case 'setbyte':
      for (let n = 1 + g.int(4); n > 0 && bytes.length > 0; n -= 1) bytes[g.int(bytes.length)] = g.int(256);
      return bytes;
    case 'interesting':
      if (bytes.length > 0) bytes[g.int(bytes.length)] = g.pick([0x00, 0x01, 0x7f, 0x80, 0xff, 0x20, 0x0a, 0x0d]);
      return bytes;
    case 'truncate':
      return bytes.subarray(0, g.chance(0.5) ? Math.max(0, bytes.length - 1 - g.int(8)) : g.int(bytes.length));
    case 'insert': {
      const p = at();
      return Buffer.concat([bytes.subarray(0, p), Buffer.from(g.bytes(1 + g.int(g.chance(0.8) ? 4 : 64))), bytes.subarray(p)]);
    }
    case 'delete': {
      const p = g.int(bytes.length);
      return Buffer.concat([bytes.subarray(0, p), bytes.subarray(p + 1 + g.int(g.chance(0.7) ? 2 : 40))]);
    }
    case 'duplicate': {
      const p = g.int(bytes.length);
      const chunk = bytes.subarray(p, p + 1 + g.int(64));
      const q = at();
      return Buffer.concat([bytes.subarray(0, q), chunk, bytes.subarray(q)]);
    }
    case 'swap': {
      const p = g.int(bytes.length);
      const q = g.int(bytes.length);
      const t = bytes[p]!;
      bytes[p] = bytes[q]!;
      bytes[q] = t;
      return bytes;
    }
    case 'append':
      return Buffer.concat([bytes, Buffer.alloc(1 + g.int(g.chance(0.8) ? 4 : 1500), g.pick([0, 0xff, 0x20, 0x41]))]);
    case 'random':
      return Buffer.from(g.bytes(g.chance(0.5) ? g.int(64) : g.int(2000)));
  }
}

interface Encoded {
  text: string;
  /** What the gate must answer, when it follows from the encoding alone. */
  expect?: Expectation;
}

/** X-404-Message broken at the base64 level (the bytes may be fine). */
function encodingMutation(env: Env, bytes: Uint8Array, ops: string[]): Encoded {
  const { g } = env;
  const text = b64(bytes);
  const malformed = (value: string): Encoded => ({ text: value, expect: { status: 400, code: 'INVALID_HEADER', header: 'X-404-Message' } });
  const kind = g.weighted([
    [2, 'strip-padding'],
    [1, 'extra-padding'],
    [2, 'padding-bits'],
    [2, 'base64url'],
    [2, 'inner-char'],
    [1, 'unicode'],
    [2, 'cut'],
    [1, 'empty'],
    [1, 'over-4096'],
    [1, 'huge'],
    [1, 'double'],
    [1, 'hex'],
  ] as const);
  ops.push(`encoding:${kind}`);
  switch (kind) {
    case 'strip-padding': {
      const stripped = text.replace(/=+$/, '');
      return stripped === text ? malformed(`${text}=`) : malformed(stripped);
    }
    case 'extra-padding':
      return malformed(`${text}${g.pick(['=', '==', '===', '====', 'A='])}`);
    case 'padding-bits': {
      // Set unused low bits of the last data character: Node decodes it anyway, the gate must not.
      const padded = b64(bytes.length % 3 === 0 ? concat(bytes, [g.int(256)]) : bytes);
      const pad = padded.endsWith('==') ? 2 : 1;
      const index = padded.length - pad - 1;
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const value = alphabet.indexOf(padded[index]!) | (pad === 2 ? 1 + g.int(15) : 1 + g.int(3));
      return malformed(`${padded.slice(0, index)}${alphabet[value]}${padded.slice(index + 1)}`);
    }
    case 'base64url': {
      const url = Buffer.from(bytes).toString('base64url');
      return url === text.replace(/=+$/, '') && !/[-_]/.test(url) ? malformed(`${text.slice(0, -1)}-`) : malformed(url);
    }
    case 'inner-char': {
      const p = 1 + g.int(Math.max(1, text.length - 2));
      return malformed(`${text.slice(0, p)}${g.pick([' ', '\t', '.', '%', '!', '*', ',', '"', '\\', '=', ':'])}${text.slice(p)}`);
    }
    case 'unicode': {
      const char = g.pick(['é', 'ａ', '😀', '\u00a0', '\u200b', '١']);
      // At an end, uWS drops it (asServerReads): what is left is the valid base64, so no expectation.
      if (g.chance(0.2)) return { text: g.chance(0.5) ? `${char}${text}` : `${text}${char}` };
      const p = 1 + g.int(text.length - 1);
      return malformed(`${text.slice(0, p)}${char}${text.slice(p)}`);
    }
    case 'cut': {
      const cut = text.slice(0, g.int(text.length));
      return cut.length % 4 === 0 || cut.length === 0 ? malformed(`${text}A`) : malformed(cut);
    }
    case 'empty':
      return env.ctx.mode === 'offchain' ? { text: '' } : malformed('');
    case 'over-4096': {
      const over = b64(concat(bytes, g.bytes(Math.max(0, MAX_MESSAGE_BYTES + 1 - bytes.length + g.int(3)))));
      return malformed(over);
    }
    case 'huge': {
      // Past MAX_HEADER_BYTES (32 KiB) but within what uWS buffers: the gate's own 431.
      const huge = b64(g.bytes(30_000 + g.int(20_000)));
      return { text: huge, expect: { status: 431, code: 'HEADERS_TOO_LARGE' } };
    }
    case 'double':
      return { text: Buffer.from(text).toString('base64') };
    case 'hex':
      return { text: Buffer.from(bytes).toString('hex') };
  }
}

// ---------------------------------------------------------------------------------------------
// SIWS: line- and field-aware mutations of the wallet-standard text

const SIWS_SUFFIX = ' wants you to sign in with your Solana account:';
const SIWS_LABELS = ['URI', 'Version', 'Chain ID', 'Nonce', 'Issued At', 'Expiration Time', 'Not Before', 'Request ID'] as const;
type SiwsLabel = (typeof SIWS_LABELS)[number];

function timestamp(g: Gen): string {
  const ms = T0 + g.pick([0, -20_000, -50_000, -90_000, -10 * 60_000, -2 * 3_600_000, 20_000, 50_000, 90_000, 10 * 60_000, 86_400_000, -400 * 86_400_000, 30 * 60_000]);
  const iso = new Date(ms).toISOString();
  switch (g.int(16)) {
    case 0: return iso.replace(/\.\d{3}Z$/, 'Z');
    case 1: return iso.replace('Z', '456789Z');
    case 2: return `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, -1)}+02:00`;
    case 3: return `${new Date(ms - 5.5 * 3_600_000).toISOString().slice(0, -1)}-05:30`;
    case 4: return iso.replace('Z', '-00:00');
    case 5: return iso.toLowerCase();
    case 6: return iso.replace('T', ' ');
    case 7: return iso.slice(0, 10);
    case 8: return g.pick(['2024-02-29T12:00:00.000Z', '2023-02-29T12:00:00.000Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z']);
    case 9: return iso.replace(/T\d{2}/, 'T24');
    case 10: return iso.replace(/:\d{2}\./, ':60.');
    case 11: return g.pick([iso.replace(/^\d{4}/, '0000'), iso.replace(/^\d{4}/, '9999'), `+0${iso}`, iso.replace(/^\d{4}/, '0026')]);
    case 12: return g.pick([String(ms), String(Math.floor(ms / 1000)), '', 'now', 'Z']);
    case 13: return iso.replace('Z', '+14:60');
    case 14: return `${iso} `;
    default: return iso;
  }
}

function siwsValue(env: Env, label: SiwsLabel): string {
  const { g, ctx } = env;
  switch (label) {
    case 'URI':
      return g.pick([
        'https://app.example.com/launch', 'http://app.example.com', 'https://APP.EXAMPLE.COM/x', 'https://phish.example/launch', 'https://app.example.com.evil.com/',
        'https://evil.com/app.example.com', 'app.example.com/launch', 'https://localhost:5173/', 'http://localhost:5174/', 'https://user@app.example.com/',
        'ftp://app.example.com/', 'https://app.example.com/a b', 'https://app.example.com/%zz', 'https://app.example.com/#a#b', 'https://app.example.com/ü',
        '', 'x404:blacklist', 'https://[::1]/', 'https:app.example.com', 'HTTPS://app.example.com/', `https://app.example.com/${'a'.repeat(3000)}`,
      ]);
    case 'Version':
      return g.pick(['1', '2', '01', '1.0', '', ' 1', 'v1', '１']);
    case 'Chain ID':
      return g.pick(['mainnet', 'solana:mainnet', 'devnet', 'solana:devnet', 'MAINNET', 'solana:', 'mainnet-beta', 'x'.repeat(33), 'main net', 'solana:solana:mainnet', 'eip155:1', '', 'Solana:mainnet']);
    case 'Nonce': {
      const other = g.pick(env.all).nonce;
      return g.pick([ctx.nonce, other, ctx.nonce.toUpperCase(), ctx.nonce.slice(0, -1), `${ctx.nonce}a`, 'abcdefgh12345678', 'abc-def_ghi', '1234567', respellNonce(ctx.nonce), `${ctx.nonce.slice(0, 10)}١${ctx.nonce.slice(11)}`, '', g.pick(env.tierNonces)]);
    }
    case 'Issued At':
    case 'Expiration Time':
    case 'Not Before':
      return timestamp(g);
    case 'Request ID':
      return g.pick(['req-1', 'a b', '%zz', '%41', 'ü', '', "!$&'()*+,;=:@", 'x'.repeat(300), 'a/b', 'a?b']);
  }
}

function siwsResource(g: Gen): string {
  return g.pick(['x404:blacklist', 'x404:tier', 'X404:blacklist', 'X404:BLACKLIST', 'x404:', 'https://app.example.com/terms', 'not a uri', 'x404:blacklist#a#b', '', 'ipfs://bafy', 'x404:blacklist ', 'x404:blacklist/x', 'x405:blacklist']);
}

function siwsMutation(env: Env, text: string, ops: string[]): string {
  const { g, ctx } = env;
  let lines = text.split('\n');
  const labelLine = (label: string): number => lines.findIndex((line) => line.startsWith(`${label}: `) || (label === 'Resources' && line === 'Resources:'));
  const fieldsStart = (): number => {
    const index = lines.findIndex((line) => SIWS_LABELS.some((label) => line.startsWith(`${label}: `)) || line === 'Resources:');
    return index < 0 ? lines.length : index;
  };
  const randomIndex = (): number => g.int(lines.length);
  const kind = g.weighted([
    [3, 'drop-line'],
    [2, 'dup-line'],
    [2, 'swap-lines'],
    [10, 'set-field'],
    [3, 'remove-field'],
    [2, 'insert-field'],
    [3, 'domain'],
    [2, 'address'],
    [2, 'header-line'],
    [2, 'statement'],
    [4, 'resources'],
    [2, 'label-spelling'],
    [2, 'blank-lines'],
    [1, 'crlf'],
    [2, 'unicode'],
    [1, 'overlong'],
  ] as const);
  ops.push(`siws:${kind}`);
  switch (kind) {
    case 'drop-line':
      lines.splice(randomIndex(), 1);
      break;
    case 'dup-line': {
      const i = randomIndex();
      lines.splice(g.chance(0.6) ? i + 1 : g.int(lines.length + 1), 0, lines[i]!);
      break;
    }
    case 'swap-lines': {
      const i = randomIndex();
      const j = g.chance(0.6) ? Math.min(lines.length - 1, i + 1) : randomIndex();
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      break;
    }
    case 'set-field': {
      const label = g.weighted([[2, 'URI'], [1, 'Version'], [2, 'Chain ID'], [3, 'Nonce'], [4, 'Issued At'], [3, 'Expiration Time'], [3, 'Not Before'], [2, 'Request ID']] as const);
      ops.push(label);
      const value = siwsValue(env, label);
      const i = labelLine(label);
      if (i >= 0) lines[i] = `${label}: ${value}`;
      else {
        // In its place: after the fields that come before it.
        const order = SIWS_LABELS.indexOf(label);
        let at = fieldsStart();
        while (at < lines.length && SIWS_LABELS.slice(0, order).some((before) => lines[at]!.startsWith(`${before}: `))) at += 1;
        if (at === lines.length && fieldsStart() === lines.length) lines.push('', `${label}: ${value}`);
        else lines.splice(at, 0, `${label}: ${value}`);
      }
      break;
    }
    case 'remove-field': {
      const label = g.pick([...SIWS_LABELS, 'Resources']);
      ops.push(label);
      const i = labelLine(label);
      if (i >= 0) lines.splice(i, label === 'Resources' ? 1 + lines.slice(i + 1).filter((line) => line.startsWith('- ')).length : 1);
      break;
    }
    case 'insert-field': {
      const label = g.pick(SIWS_LABELS);
      lines.splice(g.int(lines.length + 1), 0, `${label}: ${siwsValue(env, label)}`);
      break;
    }
    case 'domain': {
      const domain = g.pick([
        'app.example.com', 'APP.EXAMPLE.COM', 'localhost:5173', 'localhost:5174', 'localhost', 'phish.example', 'app.example.com.', 'app.example.com:443',
        'https://app.example.com', 'user@app.example.com', '[::1]', '[::1]:5173', 'app.example.com/path', 'ａpp.example.com', '-app.example.com', 'app..example.com',
        `${'a'.repeat(64)}.com`, '127.0.0.1', '', 'app.example.com:99999', 'app.example.com wants you', 'App.Example.Com', 'localhost:05173',
      ]);
      lines[0] = `${domain}${SIWS_SUFFIX}`;
      break;
    }
    case 'address': {
      const other = g.pick(env.others).address;
      lines[1] = g.pick([other, '0OIl0OIl', bs58.encode(g.bytes(31)), bs58.encode(g.bytes(33)), ctx.wallet.address.toLowerCase(), '', `${ctx.wallet.address} `, ` ${ctx.wallet.address}`, `${ctx.wallet.address}\u200b`]);
      break;
    }
    case 'header-line':
      lines[0] = lines[0]!.replace(
        SIWS_SUFFIX,
        g.pick([' wants you to sign in with your Ethereum account:', `${SIWS_SUFFIX} `, ' wants you to sign in with your solana account:', '', ' wants you to sign in with your Solana account', ` ${SIWS_SUFFIX}`]),
      );
      break;
    case 'statement': {
      const statement = g.pick(['Sign in to the launch', '', 'Nonce: abcdefgh12345678', 'URI: https://phish.example', 'say "hi"', '100% sure', '<script>', 'ünïcödé', 'a'.repeat(3000), 'Sign in\tnow', '   ', 'x'.repeat(300), 'Resources:', '- x404:blacklist']);
      const hasStatement = lines[2] === '' && lines[3] !== undefined && lines[3] !== '' && !SIWS_LABELS.some((label) => lines[3]!.startsWith(`${label}: `));
      if (hasStatement && g.chance(0.3)) lines.splice(2, 2);
      else if (hasStatement) lines[3] = statement;
      else lines.splice(2, 0, '', statement);
      break;
    }
    case 'resources': {
      const i = labelLine('Resources');
      const items = i < 0 ? [] : lines.slice(i + 1).filter((line) => line.startsWith('- '));
      const op = g.int(7);
      let next: string[];
      if (op === 0) next = ['Resources:', ...Array.from({ length: 1 + g.int(3) }, () => `- ${siwsResource(g)}`)];
      else if (op === 1) next = ['Resources:', ...items, `- ${siwsResource(g)}`];
      else if (op === 2) next = ['Resources:', `- ${siwsResource(g)}`, ...items];
      else if (op === 3) next = ['Resources:'];
      else if (op === 4) next = ['Resources:', ...items.map((item) => item.replace('- ', g.pick(['-', '-  ', '* ', ' - ', '—  '])))];
      else if (op === 5) next = ['Resources:', ...items, 'Resources:', ...items];
      else next = [g.pick(['Resources: x404:blacklist', 'resources:', 'Resources :', 'Resources: ']), ...items];
      if (i >= 0) lines.splice(i, 1 + items.length, ...next);
      else lines.push(...next);
      break;
    }
    case 'label-spelling': {
      const i = fieldsStart() + g.int(Math.max(1, lines.length - fieldsStart()));
      const line = lines[i];
      if (line !== undefined) {
        lines[i] = g.pick([
          line.toLowerCase(), line.toUpperCase(), line.replace(': ', ':'), line.replace(': ', ' : '), line.replace(': ', ':\t'), line.replace(': ', ':  '), ` ${line}`, `${line} `, line.replace(' ', '\u00a0'),
        ]);
      }
      break;
    }
    case 'blank-lines': {
      const op = g.int(6);
      if (op === 0 && lines[2] === '') lines.splice(2, 1);
      else if (op === 1) lines.splice(fieldsStart() + 1 + g.int(3), 0, '');
      else if (op === 2) lines.splice(2, 0, '');
      else if (op === 3) lines.push('');
      else if (op === 4) lines.unshift('');
      else lines = lines.filter((line) => line !== '');
      break;
    }
    case 'crlf':
      if (g.chance(0.5)) return lines.join('\r\n');
      lines[randomIndex()] += '\r';
      break;
    case 'unicode': {
      const i = randomIndex();
      const line = lines[i]!;
      const p = g.int(line.length + 1);
      if (g.chance(0.6)) lines[i] = `${line.slice(0, p)}${g.pick(UNICODE)}${line.slice(p)}`;
      else lines[i] = line.replace(/[a-z]/, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)); // fullwidth
      break;
    }
    case 'overlong': {
      if (g.chance(0.5)) lines.splice(2, 0, '', 'x'.repeat(3000 + g.int(2000)));
      else {
        const i = labelLine('Resources');
        const extra = Array.from({ length: 100 + g.int(300) }, (_, n) => `- https://app.example.com/r/${n}`);
        if (i >= 0) lines.splice(i + 1, 0, ...extra);
        else lines.push('Resources:', ...extra);
      }
      break;
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Memo transactions: a model of the wire format, re-encoded after each change

interface Instruction {
  program: number;
  accounts: number[];
  data: Uint8Array;
}

interface TxModel {
  signatures: Uint8Array[];
  /** The v0 prefix byte (0x80), or undefined for a legacy message. */
  prefix: number | undefined;
  header: [number, number, number];
  keys: Uint8Array[];
  blockhash: Uint8Array;
  instructions: Instruction[];
  /** v0 address table lookups (undefined: none written, as in legacy). */
  lookups: { key: Uint8Array; writable: number[]; readonly: number[] }[] | undefined;
}

type ShortvecTweak = 'plus1' | 'minus1' | 'zero' | 'max' | 'overflow' | 'alias' | 'continued' | 'plus128';

function shortvec(value: number, tweak?: ShortvecTweak): number[] {
  const canonical = (v: number): number[] => {
    const out: number[] = [];
    for (let rest = v; ; rest >>= 7) {
      if (rest < 0x80) return [...out, rest];
      out.push((rest & 0x7f) | 0x80);
    }
  };
  switch (tweak) {
    case undefined: return canonical(value);
    case 'plus1': return canonical(value + 1);
    case 'minus1': return value > 0 ? canonical(value - 1) : [0xff, 0xff, 0x03];
    case 'zero': return [0];
    case 'max': return [0xff, 0xff, 0x03];
    case 'overflow': return [0x80, 0x80, 0x04];
    case 'alias': {
      const bytes = canonical(value);
      bytes[bytes.length - 1]! |= 0x80;
      return [...bytes, 0x00];
    }
    case 'continued': return [0xff, 0xff, 0xff, 0x01];
    case 'plus128': return canonical(value + 128);
  }
}

function decodeTx(wire: Uint8Array): TxModel {
  let p = 0;
  const sv = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = wire[p++]!;
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const take = (n: number): Uint8Array => wire.slice(p, (p += n));
  const signatures = Array.from({ length: sv() }, () => take(64));
  const prefix = wire[p]! & 0x80 ? wire[p++] : undefined;
  const header = [wire[p++]!, wire[p++]!, wire[p++]!] as [number, number, number];
  const keys = Array.from({ length: sv() }, () => take(32));
  const blockhash = take(32);
  const instructions = Array.from({ length: sv() }, () => {
    const program = wire[p++]!;
    const accounts = [...take(sv())];
    return { program, accounts, data: take(sv()) };
  });
  const lookups = prefix === undefined ? undefined : Array.from({ length: sv() }, () => ({ key: take(32), writable: [...take(sv())], readonly: [...take(sv())] }));
  if (p !== wire.length) throw new Error('base transaction did not decode exactly');
  return { signatures, prefix, header, keys, blockhash, instructions, lookups };
}

function encodeTx(m: TxModel, tweak?: { site: number; kind: ShortvecTweak }): { wire: Uint8Array; regions: [string, number, number][] } {
  const out: number[] = [];
  const regions: [string, number, number][] = [];
  let site = 0;
  const sv = (name: string, value: number): void => {
    const start = out.length;
    out.push(...shortvec(value, site++ === tweak?.site ? tweak.kind : undefined));
    regions.push([name, start, out.length]);
  };
  const raw = (name: string, bytes: Iterable<number>): void => {
    const start = out.length;
    for (const byte of bytes) out.push(byte & 0xff);
    if (out.length > start) regions.push([name, start, out.length]);
  };
  sv('signature count', m.signatures.length);
  m.signatures.forEach((signature, i) => raw(`signature ${i}`, signature));
  if (m.prefix !== undefined) raw('version prefix', [m.prefix]);
  raw('header', m.header);
  sv('key count', m.keys.length);
  m.keys.forEach((key, i) => raw(`key ${i}`, key));
  raw('blockhash', m.blockhash);
  sv('instruction count', m.instructions.length);
  m.instructions.forEach((ix, i) => {
    raw(`ix ${i} program`, [ix.program]);
    sv(`ix ${i} account count`, ix.accounts.length);
    raw(`ix ${i} accounts`, ix.accounts);
    sv(`ix ${i} data length`, ix.data.length);
    raw(`ix ${i} data`, ix.data);
  });
  if (m.lookups !== undefined) {
    sv('lookup count', m.lookups.length);
    m.lookups.forEach((lookup, i) => {
      raw(`lookup ${i} key`, lookup.key);
      sv(`lookup ${i} writable count`, lookup.writable.length);
      raw(`lookup ${i} writable`, lookup.writable);
      sv(`lookup ${i} readonly count`, lookup.readonly.length);
      raw(`lookup ${i} readonly`, lookup.readonly);
    });
  }
  return { wire: new Uint8Array(out), regions };
}

function cloneTx(m: TxModel): TxModel {
  return {
    signatures: m.signatures.map((s) => s.slice()),
    prefix: m.prefix,
    header: [...m.header],
    keys: m.keys.map((k) => k.slice()),
    blockhash: m.blockhash.slice(),
    instructions: m.instructions.map((ix) => ({ program: ix.program, accounts: [...ix.accounts], data: ix.data.slice() })),
    lookups: m.lookups?.map((l) => ({ key: l.key.slice(), writable: [...l.writable], readonly: [...l.readonly] })),
  };
}

function computeBudgetData(g: Gen, m: TxModel): Uint8Array {
  const u32 = (): number[] => [...Buffer.from(new Uint32Array([g.int(2 ** 32)]).buffer)];
  return new Uint8Array(
    g.pick([
      () => [2, ...u32()], // SetComputeUnitLimit
      () => [3, ...u32(), ...u32()], // SetComputeUnitPrice
      () => [1, 0, 0x80, 0, 0], // RequestHeapFrame
      () => [4, ...u32()], // SetLoadedAccountsDataSizeLimit
      () => [0, ...u32()],
      () => [2, 0, 0],
      () => [3, ...u32()],
      () => [5, ...u32()],
      () => [],
      () => [2, ...u32(), 0],
      () => (m.instructions.some((ix) => equal(m.keys[ix.program], COMPUTE_BUDGET)) ? [3, 1, 0, 0, 0, 0, 0, 0, 0] : [2, 1, 0, 0, 0]),
    ])(),
  );
}

function memoMutation(env: Env, m: TxModel, ops: string[], tweak: { site?: number; kind?: ShortvecTweak }): void {
  const { g, ctx } = env;
  const memoAt = (): number => m.instructions.findIndex((ix) => equal(m.keys[ix.program], MEMO) || equal(m.keys[ix.program], MEMO_V1));
  const keyIndex = (key: Uint8Array): number => {
    let i = m.keys.findIndex((k) => equal(k, key));
    if (i < 0) {
      m.keys.push(key);
      m.header[2] += 1;
      i = m.keys.length - 1;
    }
    return i;
  };
  const kind = g.weighted([
    [3, 'header'],
    [3, 'version'],
    [5, 'keys'],
    [2, 'blockhash'],
    [5, 'compute-budget'],
    [5, 'instructions'],
    [3, 'memo-accounts'],
    [5, 'memo-data'],
    [2, 'lookups'],
    [3, 'signatures'],
    [4, 'shortvec'],
  ] as const);
  ops.push(`memo:${kind}`);
  switch (kind) {
    case 'header': {
      const i = g.int(3);
      const h = m.header[i]!;
      m.header[i] = g.pick([0, 1, 2, 3, 127, 128, 255, (h + 1) & 0xff, (h - 1) & 0xff]);
      return;
    }
    case 'version':
      switch (g.int(5)) {
        case 0:
        case 1: // legacy ⇄ v0
          if (m.prefix === undefined) [m.prefix, m.lookups] = [0x80, []];
          else [m.prefix, m.lookups] = [undefined, undefined];
          return;
        case 2:
          m.prefix = 0x80 | (1 + g.int(127));
          if (m.lookups === undefined) m.lookups = [];
          return;
        case 3: // a v0 prefix without the lookup count after the instructions
          m.prefix = 0x80;
          m.lookups = undefined;
          return;
        default: // a legacy message followed by a lookup count
          m.prefix = undefined;
          m.lookups = [];
          return;
      }
    case 'keys':
      switch (g.int(9)) {
        case 0: m.keys.push(g.bytes(32)); if (g.chance(0.5)) m.header[2] += 1; return;
        case 1: m.keys.push((m.keys[0] ?? ctx.wallet.publicKey).slice()); m.header[2] += 1; return;
        case 2: m.keys.push(MEMO.slice()); m.header[2] += 1; return;
        case 3: m.keys.pop(); return;
        case 4: { if (m.keys.length === 0) return; const i = g.int(m.keys.length); const j = g.int(m.keys.length); [m.keys[i], m.keys[j]] = [m.keys[j]!, m.keys[i]!]; return; }
        case 5: m.keys[0] = g.pick(env.others).publicKey.slice(); return;
        case 6: { const at = memoAt(); const i = at < 0 ? m.keys.length - 1 : m.instructions[at]!.program; if (i >= 0 && i < m.keys.length) m.keys[i] = g.pick([MEMO_V1, MEMO, COMPUTE_BUDGET, SYSTEM_PROGRAM, g.bytes(32)]).slice(); return; }
        case 7: m.keys = []; return;
        default: m.keys.splice(1, 0, g.bytes(32)); m.header[2] += 1; return; // shifts every program index
      }
    case 'blockhash':
      m.blockhash = g.pick([() => g.bytes(32), () => { const b = new Uint8Array(32); b[g.int(32)] = 1 + g.int(255); return b; }, () => new Uint8Array(32).fill(0xff), () => new PublicKey(g.bytes(32)).toBytes()])();
      return;
    case 'compute-budget': {
      const program = keyIndex(COMPUTE_BUDGET);
      const ix: Instruction = { program, accounts: g.chance(0.15) ? [0] : [], data: computeBudgetData(g, m) };
      const at = memoAt();
      m.instructions.splice(g.chance(0.75) ? Math.max(0, at) - (at > 0 && g.chance(0.3) ? g.int(at) : 0) : m.instructions.length, 0, ix);
      return;
    }
    case 'instructions':
      switch (g.int(8)) {
        case 0: { // an unrelated instruction (a transfer-like one) before or after the memo
          const program = keyIndex(g.pick([SYSTEM_PROGRAM, g.bytes(32)]));
          m.instructions.splice(g.int(m.instructions.length + 1), 0, { program, accounts: [0], data: g.bytes(g.int(16)) });
          return;
        }
        case 1: { const at = memoAt(); if (at >= 0) m.instructions.splice(at, 1); return; }
        case 2: { const at = memoAt(); if (at >= 0) m.instructions.push({ ...m.instructions[at]!, data: m.instructions[at]!.data.slice() }); return; }
        case 3: m.instructions.reverse(); return;
        case 4: { const ix = g.pick(m.instructions); if (ix) ix.program = g.pick([0, m.keys.length, 255, m.keys.length - 1, 1]); return; }
        case 5: m.instructions = []; return;
        case 6: { const ix = g.pick(m.instructions); if (ix) ix.accounts = [0]; return; }
        default: { const at = memoAt(); if (at > 0) m.instructions.unshift(...m.instructions.splice(at, 1)); return; }
      }
    case 'memo-accounts': {
      const ix = m.instructions[memoAt()];
      if (ix) ix.accounts = g.pick([[], [0], [1], [0, 0], [0, 1], [200], [m.keys.length], [m.keys.length - 1]]);
      return;
    }
    case 'memo-data': {
      const ix = m.instructions[memoAt()];
      if (!ix) return;
      const text = challenge(ctx.nonce, FEATURE);
      const other = g.pick(env.all);
      ix.data = g.pick([
        () => utf8(`${text}x`),
        () => utf8(text.slice(0, -1)),
        () => utf8(text.toUpperCase()),
        () => utf8(challenge(other.nonce, FEATURE)),
        () => utf8(challenge(ctx.nonce, 'tier')),
        () => new Uint8Array(0),
        () => concat(utf8(text), [0xc3, 0x28]),
        () => utf8(`${text}\n`),
        () => utf8(challenge(respellNonce(ctx.nonce), FEATURE)),
        () => utf8('CHALLENGE'),
        () => utf8('a'.repeat(800)),
        () => utf8('a'.repeat(1200)),
        () => utf8(` ${text}`),
      ])();
      return;
    }
    case 'lookups':
      if (m.prefix === undefined) m.prefix = 0x80;
      m.lookups ??= [];
      m.lookups.push(
        g.pick([
          () => ({ key: g.bytes(32), writable: [0], readonly: [] }),
          () => ({ key: g.bytes(32), writable: [], readonly: [] }),
          () => ({ key: g.bytes(32), writable: [], readonly: Array.from({ length: 250 }, (_, i) => i) }),
          () => ({ key: MEMO.slice(), writable: [], readonly: [1, 2] }),
        ])(),
      );
      return;
    case 'signatures':
      switch (g.int(5)) {
        case 0: m.signatures.push(g.bytes(64)); return;
        case 1: m.signatures = []; return;
        case 2: m.signatures[0] = new Uint8Array(64); return;
        case 3: m.signatures[0] = g.bytes(64); return;
        default: m.header[0] = 2; m.signatures.push(g.bytes(64)); return;
      }
    case 'shortvec':
      tweak.site = g.int(4 + 2 * m.instructions.length);
      tweak.kind = g.pick(['plus1', 'minus1', 'zero', 'max', 'overflow', 'alias', 'continued', 'plus128'] as const);
      ops.push(`site ${tweak.site} ${tweak.kind}`);
      return;
  }
}

/** Byte-level changes that know the regions of the encoded message (transaction or off-chain message). */
function regionMutation(env: Env, wire: Uint8Array, regions: [string, number, number][], ops: string[]): Uint8Array {
  const { g } = env;
  const [name, start, end] = g.pick(regions);
  const bytes = Buffer.from(wire);
  switch (g.int(4)) {
    case 0:
    case 1:
      ops.push(`region-flip:${name}`);
      bytes[start + g.int(end - start)]! ^= 1 << g.int(8);
      return bytes;
    case 2:
      ops.push(`region-set:${name}`);
      bytes[start + g.int(end - start)] = g.pick([0, 0x7f, 0x80, 0xff, g.int(256)]);
      return bytes;
    default:
      if (g.chance(0.5)) {
        ops.push(`truncate-at:${name}`);
        return bytes.subarray(0, g.chance(0.5) ? start : end - 1);
      }
      ops.push('extend');
      return Buffer.concat([bytes, Buffer.from(g.chance(0.3) ? new Uint8Array(1233 - Math.min(1232, bytes.length)) : g.bytes(1 + g.int(8)))]);
  }
}

/** Re-signs the message part of (possibly broken) wire bytes as the gate would cut it; writes the signature into the first slot. */
function resignTx(wire: Uint8Array, wallet: Wallet): { wire: Uint8Array; signature: Uint8Array } | undefined {
  let p = 0;
  let count = 0;
  for (let shift = 0; shift < 21 && p < wire.length; shift += 7) {
    const byte = wire[p++]!;
    count |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  const start = p + count * 64;
  if (start > wire.length) return undefined;
  const signature = signWith(wallet, wire.subarray(start));
  const out = Buffer.from(wire);
  if (count >= 1) out.set(signature, p);
  return { wire: out, signature };
}

// ---------------------------------------------------------------------------------------------
// Off-chain messages: a model of the three layouts

interface OffModel {
  domain: Uint8Array;
  version: number;
  layout: 'legacy' | 'v0' | 'v1';
  applicationDomain: Uint8Array;
  format: number;
  signers: Uint8Array[];
  count?: number;
  length?: number;
  body: Uint8Array;
}

function offModelOf(variant: string, wallet: Wallet, nonce: string): OffModel {
  const layout = variant === 'v0' ? 'v0' : variant === 'v1' ? 'v1' : 'legacy';
  return {
    domain: SIGNING_DOMAIN.slice(),
    version: layout === 'v1' ? 1 : 0,
    layout,
    applicationDomain: new Uint8Array(32),
    format: 0,
    signers: layout === 'legacy' ? [] : [wallet.publicKey],
    body: utf8(challenge(nonce, FEATURE)),
  };
}

function encodeOff(m: OffModel): { bytes: Uint8Array; regions: [string, number, number][] } {
  const regions: [string, number, number][] = [];
  const parts: Uint8Array[] = [];
  let at = 0;
  const put = (name: string, bytes: Uint8Array | number[]): void => {
    const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.map((x) => x & 0xff));
    if (b.length > 0) regions.push([name, at, at + b.length]);
    parts.push(b);
    at += b.length;
  };
  put('signing domain', m.domain);
  put('version', [m.version]);
  if (m.layout === 'v0') put('application domain', m.applicationDomain);
  if (m.layout !== 'v1') put('format', [m.format]);
  if (m.layout !== 'legacy') {
    put('signer count', [m.count ?? m.signers.length]);
    put('signers', concat(...m.signers));
  }
  if (m.layout !== 'v1') put('length', u16le(m.length ?? m.body.length));
  put('body', m.body);
  return { bytes: concat(...parts), regions };
}

function offchainMutation(env: Env, m: OffModel, ops: string[]): void {
  const { g, ctx } = env;
  const text = challenge(ctx.nonce, FEATURE);
  const kind = g.weighted([
    [2, 'signing-domain'],
    [3, 'version'],
    [4, 'layout'],
    [3, 'format'],
    [6, 'body'],
    [4, 'signers'],
    [3, 'length'],
    [1, 'application-domain'],
    [1, 'ambiguous'],
    [1, 'long'],
  ] as const);
  ops.push(`offchain:${kind}`);
  switch (kind) {
    case 'signing-domain':
      m.domain = g.pick([() => { const d = m.domain.slice(); d[g.int(16)]! ^= 1 << g.int(8); return d; }, () => concat([0xfe], utf8('solana offchain')), () => m.domain.subarray(1), () => concat([0xff], utf8('Solana offchain')), () => concat([0xff], utf8('solana offchain!'))])();
      return;
    case 'version':
      m.version = g.pick([0, 1, 2, 3, 0x80, 0xff]);
      return;
    case 'layout':
      m.layout = g.pick(['legacy', 'v0', 'v1'] as const);
      if (g.chance(0.8)) m.version = m.layout === 'v1' ? 1 : 0;
      if (m.layout !== 'legacy' && m.signers.length === 0) m.signers = [ctx.wallet.publicKey];
      return;
    case 'format':
      m.format = g.pick([0, 1, 2, 3, 0xff]);
      return;
    case 'body':
      m.body = g.pick([
        () => utf8(`${text}x`),
        () => utf8(text.slice(0, -1)),
        () => utf8(text.toLowerCase()),
        () => utf8(challenge(g.pick(env.all).nonce, FEATURE)),
        () => utf8(challenge(ctx.nonce, 'tier')),
        () => new Uint8Array(0),
        () => utf8(`${text}é`),
        () => utf8(`é${text}`),
        () => concat(utf8(text), [0xc3, 0x28]),
        () => concat(utf8(text), [0x80]),
        () => utf8(`${text}\n`),
        () => utf8(`${text}\u0000`),
        () => utf8(challenge(respellNonce(ctx.nonce), FEATURE)),
        () => concat(u16le(text.length), utf8(text)), // the pre-sRFC-38 v1 draft: a length before the body
      ])();
      return;
    case 'signers': {
      const other = g.pick(env.others).publicKey;
      const own = ctx.wallet.publicKey;
      if (g.chance(0.3)) m.count = g.pick([0, 2, 255, m.signers.length + 1]);
      else m.signers = g.pick([[], [own, other], [other, own], [other], [own, own], [own.subarray(0, 31)], [own, own, own]]);
      return;
    }
    case 'length':
      m.length = g.pick([m.body.length + 1, m.body.length - 1, 0, 0xffff, m.body.length + 32, m.body.length + 34, g.int(0x10000), 256 + m.body.length]) & 0xffff;
      return;
    case 'application-domain':
      m.applicationDomain = g.pick([() => g.bytes(32), () => new Uint8Array(32).fill(0xff), () => concat(utf8('x404'), new Uint8Array(28))])();
      return;
    case 'ambiguous': {
      // A v0 message whose bytes also read as a legacy one: the application domain starts with
      // format 1 and the legacy length of the rest; the rest is valid UTF-8.
      const signer = new Uint8Array(32).fill(0x41);
      const total = 16 + 1 + 32 + 1 + 1 + 32 + 2 + m.body.length;
      const domain = new Uint8Array(32).fill(0x61);
      domain.set([1, ...u16le(total - 20)]);
      Object.assign(m, { version: 0, layout: 'v0', applicationDomain: domain, format: 0, signers: [g.chance(0.5) ? signer : ctx.wallet.publicKey], count: undefined, length: undefined });
      return;
    }
    case 'long':
      m.body = utf8(`${text}${' '.repeat(1100 + g.int(400))}`);
      m.format = g.pick([0, 1, 2]);
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Plans

interface Expectation {
  status: number;
  code: string;
  header?: string;
  /** For INVALID_SIGNATURE: no field (the signature check itself failed). */
  noField?: boolean;
}

interface Plan {
  mode: Mode;
  index: number;
  ctx: Context;
  ops: string[];
  headers: Array<[string, string]>;
  /** The mode header was left alone (statistics of fields are kept per mode only for these). */
  modeIntact: boolean;
  expect?: Expectation;
}

function plan(mode: Mode, index: number, contexts: Record<Mode, Context[]>, env0: Omit<Env, 'g' | 'ctx'>): Plan {
  const g = new Gen(prng(SEED, MODES.indexOf(mode), index));
  const ctx = g.pick(contexts[mode]);
  const env: Env = { ...env0, g, ctx };
  const base = g.pick(ctx.bases);
  const ops: string[] = [base.variant];
  let wallet = ctx.wallet;
  let nonce = ctx.nonce;
  let bytes: Uint8Array | undefined = base.bytes;
  let signature = base.signature;
  let messageText: string | undefined;
  let expectation: Expectation | undefined;
  let modeIntact = true;
  let modeHeader: string | undefined = mode;
  let messagePresent = bytes !== undefined;
  const extraHeaders: Array<[string, string]> = [];
  let dropped: string | undefined;

  const structure = (): void => {
    const steps = g.weighted([[6, 1], [3, 2], [1, 3]] as const);
    if (mode === 'siws') {
      for (let n = 0; n < steps; n += 1) bytes = utf8(siwsMutation(env, new TextDecoder().decode(bytes), ops));
    } else if (mode === 'offchain') {
      const model = offModelOf(base.variant, wallet, nonce);
      for (let n = 0; n < steps; n += 1) offchainMutation(env, model, ops);
      const encoded = encodeOff(model);
      bytes = encoded.bytes;
      if (g.chance(0.25)) bytes = regionMutation(env, bytes, encoded.regions, ops);
      messagePresent = true;
    } else {
      const m = cloneTx(decodeTx(base.bytes!));
      const tweak: { site?: number; kind?: ShortvecTweak } = {};
      for (let n = 0; n < steps; n += 1) memoMutation(env, m, ops, tweak);
      const encoded = encodeTx(m, tweak.site === undefined ? undefined : { site: tweak.site, kind: tweak.kind! });
      bytes = encoded.wire;
      if (g.chance(0.25)) bytes = regionMutation(env, bytes, encoded.regions, ops);
    }
  };

  const resign = (): void => {
    ops.push('resigned');
    if (mode === 'memo-tx' && bytes !== undefined) {
      const done = resignTx(bytes, wallet);
      if (done) [bytes, signature] = [done.wire, done.signature];
    } else if (bytes !== undefined && messagePresent) signature = signWith(wallet, bytes);
    else signature = signWith(wallet, agaveOffchainMessage(challenge(nonce, FEATURE))); // what the gate rebuilds
  };

  const kind = g.weighted([
    [55, 'structure'],
    [22, 'blind'],
    [9, 'encoding'],
    [14, 'headers'],
  ] as const);
  ops.push(kind);
  switch (kind) {
    case 'structure':
      structure();
      if (mode === 'offchain' && g.chance(0.05)) {
        ops.push('omit-message');
        messagePresent = false;
      }
      if (ctx.deep && g.chance(0.55)) resign();
      break;
    case 'blind':
      if (g.chance(0.3)) structure();
      bytes = blindMutation(env, bytes ?? agaveOffchainMessage(challenge(nonce, FEATURE)), ops);
      messagePresent = true;
      if (ctx.deep && g.chance(0.5)) resign();
      break;
    case 'encoding': {
      if (g.chance(0.3)) structure();
      const encoded = encodingMutation(env, bytes ?? agaveOffchainMessage(challenge(nonce, FEATURE)), ops);
      messageText = encoded.text;
      messagePresent = true;
      expectation = encoded.expect;
      break;
    }
    case 'headers': {
      if (g.chance(0.3)) structure();
      const op = g.weighted([
        [3, 'nonce-other-context'],
        [2, 'nonce-other-feature'],
        [2, 'nonce-broken'],
        [2, 'nonce-respelled'],
        [2, 'nonce-respelled-rebuilt'],
        [2, 'addr-other'],
        [2, 'addr-other-rebuilt'],
        [2, 'addr-invalid'],
        [3, 'signature'],
        [3, 'sign-mode'],
        [1, 'missing'],
        [1, 'duplicate-message'],
      ] as const);
      ops.push(op);
      switch (op) {
        case 'nonce-other-context':
          nonce = g.pick(env.all.filter((other) => other !== ctx)).nonce;
          break;
        case 'nonce-other-feature':
          nonce = g.pick(env.tierNonces);
          expectation = { status: 401, code: 'INVALID_NONCE' };
          break;
        case 'nonce-broken': {
          const p = g.int(nonce.length);
          nonce = g.pick([
            nonce.toUpperCase(),
            nonce.slice(0, -1),
            `${nonce}a`,
            `${nonce.slice(0, p)}${nonce[p] === 'a' ? 'b' : 'a'}${nonce.slice(p + 1)}`,
            'A'.repeat(61),
            bs58.encode(g.bytes(38)),
            `${nonce.slice(0, p)}${nonce.slice(p + 1)}=`,
            '0',
          ]);
          expectation = { status: 401, code: 'INVALID_NONCE' };
          break;
        }
        case 'nonce-respelled':
          nonce = respellNonce(nonce);
          break;
        case 'nonce-respelled-rebuilt':
          nonce = respellNonce(nonce);
          if (ctx.deep) {
            const rebuilt = buildBase(mode, base.variant, wallet, nonce);
            [bytes, signature, messagePresent] = [rebuilt.bytes, rebuilt.signature, rebuilt.bytes !== undefined];
          }
          break;
        case 'addr-other':
          wallet = g.pick(env.others);
          if (ctx.deep && g.chance(0.5)) resign();
          break;
        case 'addr-other-rebuilt':
          // Another wallet proves the same nonce with its own message: nonces are not bound to a wallet.
          wallet = g.pick(env.others);
          if (ctx.deep) {
            const rebuilt = buildBase(mode, base.variant, wallet, nonce);
            [bytes, signature, messagePresent] = [rebuilt.bytes, rebuilt.signature, rebuilt.bytes !== undefined];
          }
          break;
        case 'addr-invalid':
          if (g.chance(0.15)) {
            // Non-ASCII at an end of the value: uWS drops it (asServerReads), so no expectation.
            extraHeaders.push(['X-404-Addr', g.pick([`${ctx.wallet.address}é`, `é${ctx.wallet.address}`, `${ctx.wallet.address}\u00a0`, `${ctx.wallet.address}é1`])]);
          } else {
            extraHeaders.push(['X-404-Addr', g.pick(['0OIl', bs58.encode(g.bytes(31)), bs58.encode(g.bytes(33)), ctx.wallet.address.replace(/[1-9A-HJ-NP-Za-km-z]$/, '0'), 'x'.repeat(200), `${ctx.wallet.address.slice(0, 20)}é${ctx.wallet.address.slice(20)}`])]);
            expectation = { status: 400, code: 'INVALID_HEADER', header: 'X-404-Addr' };
          }
          break;
        case 'signature': {
          const choice = g.int(8);
          if (choice < 3) {
            signature = g.pick([() => g.bytes(64), () => new Uint8Array(64), () => signWith(g.pick(env.others), bytes ?? new Uint8Array(0))])();
          } else {
            const value = g.pick([bs58.encode(g.bytes(63)), bs58.encode(g.bytes(65)), '0OIl', bs58.encode(signature).slice(0, -3), `${bs58.encode(signature)}1`, 'x'.repeat(200)]);
            extraHeaders.push(['X-404-Signature', value]);
            // (Appending '1' multiplies by 58: a signature starting with a byte below 5 stays 64 bytes long.)
            if (decode58(value)?.length !== 64) expectation = { status: 401, code: 'INVALID_SIGNATURE', noField: true };
          }
          break;
        }
        case 'sign-mode':
          modeIntact = false;
          modeHeader = g.pick(['SIWS', 'Memo-Tx', 'OFFCHAIN', ' offchain', 'challenge', 'siws', 'offchain', 'memo-tx', 'memo_tx', 'carrier-pigeon', 'siws,offchain', undefined]);
          if (modeHeader !== undefined && !['siws', 'offchain', 'memo-tx', 'challenge'].includes(modeHeader.trim().toLowerCase())) {
            expectation = { status: 400, code: 'INVALID_HEADER', header: 'X-404-Sign-Mode' };
          }
          break;
        case 'missing':
          dropped = g.pick(['X-404-Message', 'X-404-Nonce', 'X-404-Signature', 'X-404-Addr']);
          if (dropped !== 'X-404-Message') expectation = { status: 400, code: 'MISSING_HEADER' };
          else if (mode !== 'offchain') expectation = { status: 400, code: 'MISSING_HEADER' };
          break;
        case 'duplicate-message':
          if (bytes !== undefined) extraHeaders.push(['X-404-Message', b64(bytes)]);
          messagePresent = bytes !== undefined;
          if (bytes !== undefined) expectation = { status: 400, code: 'INVALID_HEADER', header: 'X-404-Message' };
          break;
      }
      break;
    }
  }

  const headers: Array<[string, string]> = Object.entries(blacklistPolicy());
  if (modeHeader !== undefined) headers.push(['X-404-Sign-Mode', modeHeader]);
  if (messagePresent && (messageText !== undefined || bytes !== undefined)) headers.push(['X-404-Message', messageText ?? b64(bytes!)]);
  headers.push(['X-404-Nonce', nonce], ['X-404-Signature', bs58.encode(signature)], ['X-404-Addr', wallet.address], ['X-404-Feature', FEATURE]);
  for (const [name, value] of extraHeaders) {
    const i = headers.findIndex(([existing]) => existing === name);
    if (name === 'X-404-Message' || i < 0) headers.push([name, value]);
    else headers[i] = [name, value];
  }
  if (dropped !== undefined) {
    const i = headers.findIndex(([name]) => name === dropped);
    if (i >= 0) headers.splice(i, 1);
  }
  // A never re-signed context must see no accepted proof, so that its nonce shows afterwards that
  // refusals do not spend: a mutation that left a proof intact (a no-op) gets a forged signature.
  const sentNonce = headers.find(([name]) => name === 'X-404-Nonce')?.[1] ?? '';
  if (env0.shallowNonceIds.has(nonceIdOf(sentNonce) ?? '') && proves(headers, env0.walletsByAddress, instant(Date.now()))) {
    ops.push('forged (no-op on a never re-signed context)');
    const forged = Buffer.from(signature);
    forged[g.int(64)]! ^= 1 << g.int(8);
    headers[headers.findIndex(([name]) => name === 'X-404-Signature')] = ['X-404-Signature', bs58.encode(forged)];
  }
  return { mode, index, ctx, ops, headers, modeIntact, ...(expectation ? { expect: expectation } : {}) };
}

// ---------------------------------------------------------------------------------------------
// The oracle: does this request prove the challenge? Independent of the gate's codecs.

const SKEW_MS = 60_000;
/** Clock slack between this process and the gate (same machine). */
const SLACK_MS = 1_000;

/** When the gate read the request: after `sentAt`, before `receivedAt` (the answer). */
interface Window {
  sentAt: number;
  receivedAt: number;
}

const instant = (ms: number): Window => ({ sentAt: ms, receivedAt: ms });

/** Milliseconds of an RFC 3339-like date-time, read laxly (any fraction, offsets, calendar overflow). */
function laxTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!m) return NaN;
  const date = new Date(0);
  date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  date.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), Number((m[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const offset = m[8] === undefined ? 0 : (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) * 60_000;
  return date.getTime() - offset;
}

function siwsProves(bytes: Uint8Array, wallet: Wallet, nonce: string, { sentAt, receivedAt }: Window): boolean {
  const text = decodeUtf8(bytes);
  if (text === undefined) return false;
  const parsed = parseSignInMessageText(text);
  if (!parsed || createSignInMessageText(parsed) !== text) return false;
  const lower = (s: string): string => s.replace(/[A-Z]+/g, (run) => run.toLowerCase());
  if (!DOMAINS.includes(lower(parsed.domain)) || parsed.address !== wallet.address) return false;
  const uri = /^https?:\/\/([^/?#]*)/.exec(parsed.uri ?? '');
  if (!uri || !DOMAINS.includes(lower(uri[1]!))) return false;
  if (parsed.version !== undefined && parsed.version !== '1') return false;
  if (parsed.chainId !== 'mainnet' && parsed.chainId !== 'solana:mainnet') return false;
  if (parsed.nonce !== nonce) return false;
  const issuedAt = laxTime(parsed.issuedAt);
  const nonceIssuedAt = nonceBytes(nonce)!.readUIntBE(0, 6);
  if (issuedAt === undefined || !(issuedAt >= nonceIssuedAt - SKEW_MS - SLACK_MS && issuedAt <= receivedAt + SKEW_MS + SLACK_MS)) return false;
  const expires = laxTime(parsed.expirationTime);
  if (expires !== undefined && !(expires > sentAt - SLACK_MS && expires > issuedAt)) return false;
  const notBefore = laxTime(parsed.notBefore);
  if (notBefore !== undefined && !(notBefore <= receivedAt + SKEW_MS + SLACK_MS)) return false;
  const resources = parsed.resources ?? [];
  if (!resources.includes(`x404:${FEATURE}`)) return false;
  return !resources.some((resource) => resource !== `x404:${FEATURE}` && lower(resource).startsWith('x404:'));
}

function offchainProves(bytes: Uint8Array, text: string, wallet: Wallet): boolean {
  const body = utf8(text);
  if (!equal(bytes.subarray(0, 16), SIGNING_DOMAIN)) return false;
  const version = bytes[16];
  const legacy = (): boolean => bytes.length === 20 + body.length && bytes[17]! <= 2 && bytes[18]! + bytes[19]! * 256 === body.length && equal(bytes.subarray(20), body);
  const v0 = (): boolean => {
    const at = 16 + 1 + 32 + 1;
    return bytes[at] === 1 && bytes[49]! <= 2 && equal(bytes.subarray(at + 1, at + 33), wallet.publicKey) && bytes.length === at + 35 + body.length && equal(bytes.subarray(at + 35), body) && bytes[at + 33]! + bytes[at + 34]! * 256 === body.length;
  };
  const v1 = (): boolean => bytes[17] === 1 && equal(bytes.subarray(18, 50), wallet.publicKey) && equal(bytes.subarray(50), body);
  return version === 0 ? legacy() || v0() : version === 1 ? v1() : false;
}

const ZERO_BLOCKHASH = bs58.encode(new Uint8Array(32));

function memoProves(wire: Uint8Array, text: string, wallet: Wallet, signature: Uint8Array): boolean {
  if (wire.length > 1232) return false;
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(wire);
    if (!equal(tx.serialize(), wire)) return false;
  } catch {
    return false;
  }
  const message = tx.message;
  if (tx.signatures.length !== 1 || !equal(tx.signatures[0], signature)) return false;
  if (!verifies(wallet, wire.subarray(1 + 64), signature)) return false;
  if (message.header.numRequiredSignatures !== 1 || !equal(message.staticAccountKeys[0]?.toBytes(), wallet.publicKey)) return false;
  if (message.recentBlockhash !== ZERO_BLOCKHASH || message.addressTableLookups.length > 0) return false;
  const instructions = message.compiledInstructions;
  const programOf = (i: number): Uint8Array | undefined => message.staticAccountKeys[instructions[i]!.programIdIndex]?.toBytes();
  const last = instructions.length - 1;
  if (last < 0 || !(equal(programOf(last), MEMO) || equal(programOf(last), MEMO_V1))) return false;
  if (!equal(instructions[last]!.data, utf8(text)) || instructions[last]!.accountKeyIndexes.some((index) => index !== 0)) return false;
  return instructions.slice(0, last).every((_, i) => equal(programOf(i), COMPUTE_BUDGET));
}

/**
 * A header value as the gate receives it. uWebSockets' parser skips, at both ends of a value, every
 * byte it reads as `char < 33`: OWS and control bytes, but also (signed char) every byte ≥ 0x80, so
 * a trailing or leading non-ASCII character vanishes ("<address>é" reads as "<address>"; see the
 * report of this fuzzer). The oracle judges what the gate sees.
 */
function asServerReads(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  let start = 0;
  let end = bytes.length;
  while (start < end && (bytes[start]! <= 0x20 || bytes[start]! >= 0x80)) start += 1;
  while (end > start && (bytes[end - 1]! <= 0x20 || bytes[end - 1]! >= 0x80)) end -= 1;
  return bytes.subarray(start, end).toString('utf8');
}

/** Whether the request, as sent, proves its challenge: the only requests the gate may accept. */
function proves(headers: Array<[string, string]>, walletsByAddress: ReadonlyMap<string, Wallet>, window: Window): boolean {
  const folded = new Map<string, string>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const trimmed = asServerReads(value);
    folded.set(key, folded.has(key) ? `${folded.get(key)}, ${trimmed}` : trimmed);
  }
  if (folded.get('x-404-feature') !== FEATURE) return false;
  const wallet = walletsByAddress.get(folded.get('x-404-addr') ?? '');
  const nonce = folded.get('x-404-nonce') ?? '';
  const signature = decode58(folded.get('x-404-signature'));
  if (!wallet || nonceBytes(nonce) === undefined || signature?.length !== 64) return false;
  const mode = folded.get('x-404-sign-mode')?.trim().toLowerCase() ?? 'challenge';
  const text = challenge(nonce, FEATURE);
  if (mode === 'challenge') return verifies(wallet, utf8(text), signature);
  const encoded = folded.get('x-404-message');
  let bytes: Uint8Array | undefined;
  if (encoded !== undefined) {
    if (encoded.length === 0 || encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
    bytes = new Uint8Array(Buffer.from(encoded, 'base64'));
    if (b64(bytes) !== encoded || bytes.length > MAX_MESSAGE_BYTES) return false;
  }
  switch (mode) {
    case 'siws':
      return bytes !== undefined && verifies(wallet, bytes, signature) && siwsProves(bytes, wallet, nonce, window);
    case 'offchain':
      if (bytes === undefined) return verifies(wallet, agaveOffchainMessage(text), signature);
      return verifies(wallet, bytes, signature) && offchainProves(bytes, text, wallet);
    case 'memo-tx':
      return bytes !== undefined && memoProves(bytes, text, wallet, signature);
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Checks of one answer

interface Parsed {
  status: number;
  code: string | undefined;
  body: Record<string, unknown> | undefined;
}

function parse(response: RawResponse): Parsed {
  let body: Record<string, unknown> | undefined;
  try {
    const value = JSON.parse(response.body.toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) body = value as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: response.status, code: typeof body?.error === 'string' ? body.error : undefined, body };
}

/** The field a 400 on X-404-Message names: "not a <mode> message: <field>: …", or the encoding rule. */
function malformedFieldOf(message: string): string {
  const named = /not a [a-z-]+ message: ([^:]+):/.exec(message);
  if (named) return named[1]!;
  if (/UTF-8/.test(message)) return '(utf-8)';
  if (/canonical/.test(message)) return '(canonical base64)';
  if (/1 to \d+ bytes/.test(message)) return '(length)';
  if (/standard base64/.test(message)) return '(base64)';
  return `(other: ${message.slice(0, 60)})`;
}

function problemWith(p: Plan, response: RawResponse, parsed: Parsed, accepted: boolean, oracle: boolean): string | undefined {
  const { status, code, body } = parsed;
  if (status === 500 || code === 'INTERNAL_ERROR') return `${status} ${code}: the gate failed`;
  if (status !== 200 && !CODES_BY_STATUS[status]) return `status ${status} is not one the contract names for a login`;
  if (!/^application\/json\b/.test(response.headers.get('content-type') ?? '')) return `content-type ${response.headers.get('content-type')}`;
  if (!body) return `body is not a JSON object: ${response.body.toString('utf8').slice(0, 120)}`;
  const addr = p.headers.find(([name]) => name === 'X-404-Addr')?.[1];
  if (status === 200) {
    if (body.success !== true || typeof body.token !== 'string' || body.publicKey !== addr) return '200 without success, token and publicKey = X-404-Addr';
  } else {
    if (typeof body.message !== 'string' || body.message.length === 0) return 'error body without message';
    if (body.message.length > 1000) return `error message of ${body.message.length} characters: echoes the input`;
    if (code === undefined || !CODES_BY_STATUS[status]!.has(code)) return `${status} with code ${String(code)}`;
    if (code === 'INVALID_HEADER' && !['X-404-Message', 'X-404-Addr', 'X-404-Sign-Mode'].includes(body.header as string)) return `INVALID_HEADER naming header ${String(body.header)}`;
    if (code === 'MISSING_HEADER' && !(Array.isArray(body.missing) && body.missing.length > 0)) return 'MISSING_HEADER without `missing`';
    const effective = p.modeIntact ? p.mode : undefined;
    if (code === 'INVALID_HEADER' && body.header === 'X-404-Message' && effective) {
      const field = malformedFieldOf(body.message);
      if (!field.startsWith('(') || field.startsWith('(other')) {
        if (!MALFORMED_FIELDS[effective].has(field)) return `400 on X-404-Message names unknown field "${field}"`;
      }
    }
    if (code === 'INVALID_SIGNATURE' && body.field !== undefined) {
      if (typeof body.field !== 'string' || !Object.values(MISMATCH_FIELDS).some((fields) => fields.has(body.field as string))) return `INVALID_SIGNATURE with unknown field ${JSON.stringify(body.field)}`;
      if (effective && !MISMATCH_FIELDS[effective].has(body.field)) return `INVALID_SIGNATURE names field "${body.field}", not one of ${effective}`;
      if (!body.message.includes(body.field)) return 'INVALID_SIGNATURE whose message does not name its field';
    }
  }
  if (accepted && !oracle) return `${status} ${code ?? ''}: the gate accepted a proof the oracle says does not prove the challenge`;
  if (p.expect) {
    const e = p.expect;
    if (status !== e.status || code !== e.code || (e.header !== undefined && body.header !== e.header) || (e.noField && body.field !== undefined)) {
      return `expected ${e.status} ${e.code}${e.header ? ` on ${e.header}` : ''}${e.noField ? ' without field' : ''}, got ${status} ${code} ${String(body.header ?? body.field ?? '')}`;
    }
  }
  return undefined;
}

function describePlan(p: Plan): string {
  const shown = p.headers
    .filter(([name]) => name.startsWith('X-404'))
    .map(([name, value]) => `${name}: ${value.length > 1800 ? `${value.slice(0, 1800)}…(${value.length})` : value}`)
    .join(' | ');
  return `seed ${SEED} ${p.mode} #${p.index} [${p.ops.join(', ')}] ${shown}`;
}

// ---------------------------------------------------------------------------------------------

let localnet: LocalnetHandle;
let gate: GateProcess;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
  gate = await startGate({
    rpcUrl: localnet.url,
    env: { RATE_LIMIT_PER_MINUTE: '0', WORKER_THREADS: '1', NONCE_TTL_SECONDS: '900', SIWS_DOMAINS: DOMAINS.join(','), SIWS_STATEMENT: 'Sign in to the launch' },
  });
});
afterAll(async () => {
  await gate?.stop('SIGKILL');
  await localnet?.close();
});

describe('sign-mode message fuzzing', () => {
  it(
    `answers ${REQUESTS_PER_MODE} mutated messages per sign mode within the contract (seed ${SEED})`,
    async () => {
      const pid = gate.child.pid!;
      T0 = Date.now();

      // Contexts: WALLETS_PER_MODE wallets per mode × NONCES_PER_WALLET nonces; the last nonce of each wallet is never re-signed.
      const walletOf = (tag: number, i: number): Wallet => walletFrom(new Gen(prng(SEED, 1000 + tag, i)).bytes(32));
      const others = [walletOf(99, 0), walletOf(99, 1)];
      const contexts = {} as Record<Mode, Context[]>;
      const all: Context[] = [];
      for (const mode of MODES) {
        contexts[mode] = [];
        for (let w = 0; w < WALLETS_PER_MODE; w += 1) {
          const wallet = walletOf(MODES.indexOf(mode), w);
          for (let n = 0; n < NONCES_PER_WALLET; n += 1) {
            const { nonce } = await getNonce(gate.url, FEATURE);
            const ctx: Context = {
              mode,
              index: contexts[mode].length,
              wallet,
              nonce,
              nonceId: nonceIdOf(nonce)!,
              deep: n < NONCES_PER_WALLET - 1,
              bases: VARIANTS[mode].map((variant) => buildBase(mode, variant, wallet, nonce)),
            };
            contexts[mode].push(ctx);
            all.push(ctx);
          }
        }
      }
      const tierNonces = [(await getNonce(gate.url, 'tier')).nonce, (await getNonce(gate.url, 'tier')).nonce];
      const walletsByAddress = new Map<string, Wallet>([...all.map((ctx) => ctx.wallet), ...others].map((wallet) => [wallet.address, wallet]));
      for (const wallet of walletsByAddress.values()) localnet.state.setLamports(wallet.address, 1_000_000_000);
      const shallowNonceIds = new Set(all.filter((ctx) => !ctx.deep).map((ctx) => ctx.nonceId));
      const env0 = { all, others, tierNonces, shallowNonceIds, walletsByAddress };

      // Each base message signs in (checked through the oracle here; at the gate by the final logins).
      for (const ctx of all) {
        for (const base of ctx.bases) {
          expect(proves(baseHeaders(ctx, base), walletsByAddress, instant(Date.now())), `${ctx.mode} ${base.variant} base proves`).toBe(true);
        }
      }

      const pool = new RawPool(gate.port, CONCURRENCY);
      const schedule: Array<[Mode, number]> = [];
      for (let i = 0; i < REQUESTS_PER_MODE; i += 1) for (const mode of MODES) schedule.push([mode, i]);
      const failures: string[] = [];
      const counts = Object.fromEntries(MODES.map((mode) => [mode, new Map<string, number>()])) as Record<Mode, Map<string, number>>;
      const fields401 = Object.fromEntries(MODES.map((mode) => [mode, new Map<string, number>()])) as Record<Mode, Map<string, number>>;
      const fields400 = Object.fromEntries(MODES.map((mode) => [mode, new Map<string, number>()])) as Record<Mode, Map<string, number>>;
      const acceptedByNonce = new Map<string, number>();
      const successesByNonce = new Map<string, number>();
      const oracleOnly: string[] = [];
      let oracleOnlyCount = 0;
      const oracleOnlyBy = new Map<string, number>();
      const bump = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);
      const each = async ([mode, index]: (typeof schedule)[number]): Promise<void> => {
        let p: Plan | undefined;
        try {
          p = plan(mode, index, contexts, env0);
          const sentAt = Date.now();
          const response = await pool.send({ method: 'GET', target: PATH, headers: p.headers });
          const receivedAt = Date.now();
          const parsed = parse(response);
          const accepted = parsed.status === 200 || parsed.code === 'NONCE_REUSED';
          const oracle = proves(p.headers, walletsByAddress, { sentAt, receivedAt });
          bump(counts[mode], `${parsed.status} ${parsed.code ?? ''}`.trim());
          const problem = problemWith(p, response, parsed, accepted, oracle);
          if (problem && failures.length < 25) failures.push(`${describePlan(p)}: ${problem} — ${response.body.toString('utf8').slice(0, 300)}`);
          const nonceId = nonceIdOf(p.headers.find(([name]) => name === 'X-404-Nonce')?.[1] ?? '');
          if (accepted && nonceId) bump(acceptedByNonce, nonceId);
          if (parsed.status === 200 && nonceId) bump(successesByNonce, nonceId);
          if (oracle && !accepted) {
            oracleOnlyCount += 1;
            const key = `${mode} ${parsed.status} ${String(parsed.body?.field ?? (parsed.body?.header === 'X-404-Message' ? malformedFieldOf(String(parsed.body.message)) : parsed.code))}`;
            bump(oracleOnlyBy, key);
            if (oracleOnlyBy.get(key) === 1 && process.env.FUZZ_VERBOSE) oracleOnly.push(`${describePlan(p)} → ${parsed.status} ${parsed.code} ${String(parsed.body?.message ?? '').slice(0, 200)}`);
          }
          if (p.modeIntact && parsed.code === 'INVALID_SIGNATURE') bump(fields401[mode], typeof parsed.body?.field === 'string' ? parsed.body.field : '(signature)');
          if (p.modeIntact && parsed.code === 'INVALID_HEADER') {
            bump(fields400[mode], parsed.body?.header === 'X-404-Message' ? malformedFieldOf(String(parsed.body.message)) : `[${String(parsed.body?.header)}]`);
          }
        } catch (error) {
          if (failures.length < 25) failures.push(`${p ? describePlan(p) : `seed ${SEED} ${mode} #${index}`}: ${(error as Error).stack ?? (error as Error).message}`);
        }
      };
      const { sent, elapsedMs, warmRssKb, finalRssKb, peakRssKb } = await runSchedule(schedule, { pid, concurrency: CONCURRENCY, budgetMs: TIME_BUDGET_MS, each }).finally(() =>
        pool.close(),
      );

      // The table for the closing note.
      const keys = [...new Set(MODES.flatMap((mode) => [...counts[mode].keys()]))].sort();
      const table = [
        `${'status code'.padEnd(26)}${MODES.map((mode) => mode.padStart(10)).join('')}`,
        ...keys.map((key) => `${key.padEnd(26)}${MODES.map((mode) => String(counts[mode].get(key) ?? 0).padStart(10)).join('')}`),
      ].join('\n');
      const fieldList = (map: Map<string, number>): string => [...map].sort((a, b) => b[1] - a[1]).map(([field, n]) => `${field}=${n}`).join(', ');
      console.log(
        `sign-mode fuzz (seed ${SEED}): ${Math.min(sent, schedule.length)} requests in ${elapsedMs} ms (${Math.round((Math.min(sent, schedule.length) / elapsedMs) * 1000)}/s); ` +
          `RSS warm ${warmRssKb} kB, peak ${peakRssKb} kB, final ${finalRssKb} kB\n${table}\n` +
          MODES.map((mode) => `${mode} 401 fields: ${fieldList(fields401[mode])}\n${mode} 400 fields: ${fieldList(fields400[mode])}`).join('\n') +
          `\naccepted proofs: ${[...acceptedByNonce.values()].reduce((a, b) => a + b, 0)} on ${acceptedByNonce.size} nonces; ` +
          `oracle-valid but refused (the gate is stricter than the oracle): ${oracleOnlyCount} — ${fieldList(oracleOnlyBy)}${oracleOnly.length ? `\n  ${oracleOnly.join('\n  ')}` : ''}`,
      );

      expect(failures).toEqual([]);
      expect(sent, `time budget of ${TIME_BUDGET_MS} ms ran out`).toBeGreaterThanOrEqual(schedule.length);
      // A nonce yields one token, whatever the spelling it was sent in.
      for (const [nonceId, successes] of successesByNonce) expect(successes, `200s for nonce ${nonceId}`).toBe(1);

      // The fuzzer reached deep: several distinct fields refused at each level, and proofs accepted.
      const minimum: Record<Mode, { mismatch: number; malformed: number; mustMismatch: string[]; mustMalform: string[] }> = {
        siws: { mismatch: 7, malformed: 8, mustMismatch: ['domain', 'address', 'Nonce', 'Issued At', 'Resources', 'URI', 'Chain ID'], mustMalform: ['message', 'Issued At', 'URI'] },
        offchain: { mismatch: 2, malformed: 5, mustMismatch: ['body', 'signers'], mustMalform: ['header version', 'message length', 'body'] },
        'memo-tx': { mismatch: 7, malformed: 5, mustMismatch: ['instructions', 'memo', 'recentBlockhash', 'feePayer', 'signature', 'accountKeys'], mustMalform: ['transaction', 'instructions', 'header'] },
      };
      for (const mode of MODES) {
        const mismatches = [...fields401[mode].keys()].filter((field) => MISMATCH_FIELDS[mode].has(field));
        const malformations = [...fields400[mode].keys()].filter((field) => MALFORMED_FIELDS[mode].has(field));
        expect(mismatches.length, `${mode}: distinct 401 fields ${mismatches.join(', ')}`).toBeGreaterThanOrEqual(minimum[mode].mismatch);
        expect(malformations.length, `${mode}: distinct 400 fields ${malformations.join(', ')}`).toBeGreaterThanOrEqual(minimum[mode].malformed);
        expect(mismatches, mode).toEqual(expect.arrayContaining(minimum[mode].mustMismatch));
        expect(malformations, mode).toEqual(expect.arrayContaining(minimum[mode].mustMalform));
        expect(fields401[mode].get('(signature)') ?? 0, `${mode}: signature failures`).toBeGreaterThan(0);
        const statuses = counts[mode];
        expect(statuses.get('200') ?? 0, `${mode}: accepted mutated proofs`).toBeGreaterThan(0);
        for (const key of ['401 INVALID_NONCE', '400 MISSING_HEADER', '401 INVALID_SIGNATURE', '400 INVALID_HEADER']) expect(statuses.get(key) ?? 0, `${mode}: ${key}`).toBeGreaterThan(0);
      }

      // Alive; no refused login spent a nonce: each context's untouched message signs in unless a
      // mutation of it was accepted, in which case its nonce is spent.
      expect(gate.child.exitCode).toBeNull();
      let unspentChecked = 0;
      for (const ctx of all) {
        const headers = Object.fromEntries(baseHeaders(ctx, ctx.bases[0]!));
        const answer = await get(`${gate.url}${PATH}`, headers);
        if ((acceptedByNonce.get(ctx.nonceId) ?? 0) === 0) {
          unspentChecked += ctx.deep ? 0 : 1;
          expect([answer.status, answer.body.error], `${ctx.mode} context ${ctx.index}: nothing accepted, so the nonce must be unspent`).toEqual([200, undefined]);
        } else {
          expect([answer.status, answer.body.error], `${ctx.mode} context ${ctx.index}: a proof was accepted, so the nonce is spent`).toEqual([401, 'NONCE_REUSED']);
        }
      }
      console.log(`nonces checked unspent after the run: ${unspentChecked} of ${all.filter((ctx) => !ctx.deep).length} never re-signed contexts`);
      expect(unspentChecked, 'never re-signed contexts whose nonce was checked unspent').toBe(all.filter((ctx) => !ctx.deep).length);

      // A normal login of a fresh wallet still works.
      const fresh = newWallet();
      const { nonce } = await getNonce(gate.url, FEATURE);
      const login = await get(`${gate.url}${PATH}`, { ...signedHeaders(fresh, nonce, FEATURE), ...blacklistPolicy() });
      expect([login.status, login.body.publicKey]).toEqual([200, publicKeyOf(fresh)]);

      // Bounded memory: what the first tenth of the run warmed up may grow, but not without limit.
      expect(finalRssKb - warmRssKb, `RSS grew from ${warmRssKb} kB to ${finalRssKb} kB`).toBeLessThan(128 * 1024);
      expect(peakRssKb, `peak RSS ${peakRssKb} kB`).toBeLessThan(768 * 1024);
    },
    Number.isFinite(TIME_BUDGET_MS) ? TIME_BUDGET_MS + 90_000 : HANG_MS,
  );
});

/** The login headers of an unmutated base message. */
function baseHeaders(ctx: Context, base: Base): Array<[string, string]> {
  return [
    ...Object.entries(blacklistPolicy()),
    ['X-404-Sign-Mode', ctx.mode],
    ...(base.bytes === undefined ? [] : ([['X-404-Message', b64(base.bytes)]] as Array<[string, string]>)),
    ['X-404-Nonce', ctx.nonce],
    ['X-404-Signature', bs58.encode(base.signature)],
    ['X-404-Addr', ctx.wallet.address],
    ['X-404-Feature', FEATURE],
  ];
}
