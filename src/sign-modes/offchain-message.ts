/**
 * Sign mode `offchain`: the wallet signs a Solana off-chain message whose body is the challenge.
 * Hardware wallets refuse arbitrary text but sign these; the 16-byte signing domain starting with
 * 0xff keeps the signature from ever being valid over a transaction. Browser-safe (the SDK and the
 * CLI build messages with this module): Uint8Array, TextEncoder and a fatal TextDecoder only.
 *
 * Every message starts with the signing domain b"\xffsolana offchain" (16 bytes) and a header
 * version byte. Three layouts follow it in the wild; their names are Ledger's (device-sdk-ts
 * SignMessageVersion: Legacy, V0, V1):
 *
 *   legacy  version 0 ‖ format u8 ‖ length u16 LE ‖ body                    (20-byte header)
 *   v0      version 0 ‖ application domain [32] ‖ format u8 ‖ signer count u8 ‖ signers [32 × n]
 *           ‖ length u16 LE ‖ body                                           (53 + 32n bytes)
 *   v1      version 1 ‖ signer count u8 ‖ signers [32 × n, strictly ascending] ‖ body (no length)
 *
 * Formats (legacy and v0): 0 restricted ASCII (0x20–0x7e only), 1 limited UTF-8, both at most
 * 1232 bytes (PACKET_DATA_SIZE) header included; 2 extended UTF-8, at most 65535. A writer picks
 * the first that fits: ASCII if printable and short enough, else UTF-8 (1, or 2 when long); a
 * reader accepts any format the body satisfies. v1 has no format: the body is UTF-8.
 *
 * Who produces what (read, not copied):
 * - anza-xyz/solana-sdk offchain-message/src/lib.rs (master 122f32e5, crate 3.0.0; unchanged since
 *   fed203a9 moved agave's sdk/src/offchain_message.rs into the crate, which came from
 *   solana-labs/solana sdk/src/offchain_message.rs, PR #27456): serialises **legacy** only
 *   (MAX_LEN 65515 = u16::MAX − 20, MAX_LEN_LEDGER 1212 = 1232 − 20), its tests publish the bytes
 *   and SHA-256 of "Test Message" and "Тестовое сообщение" (test/unit/offchain-message.test.ts).
 *   Its deserialize rejects ≤ 3 bytes after the version, an unknown version or format, a length
 *   that is not exactly the rest, and a body outside its format or limit — but it never compares
 *   the signing domain (open PR #877 adds that); this module does compare it. Closed PR #269 would
 *   have moved the crate to the spec's v0 layout; it publishes one hash for it, also tested.
 * - anza-xyz/agave Cargo.toml (0004f81e, 4.4.0-alpha.2): solana-offchain-message = "3.0.0";
 *   cli/src/wallet.rs (e31e6c05): `solana sign-offchain-message` is OffchainMessage::new(version
 *   (default 0), text).sign(keypair), i.e. the **legacy** bytes — which name no signer, so the
 *   CLI's message does not depend on the key (defaultOffchainMessage).
 * - anza-xyz/agave and solana-labs/solana docs/src/proposals/off-chain-message-signing.md: the
 *   spec, whose preamble is the **v0** layout (signer count MUST NOT be zero, length MUST NOT be
 *   zero; limits count the preamble). The first draft (solana-labs/solana PR #26915) was the
 *   legacy layout, which is what Agave shipped. agave PR #12965 (2026-06) makes sRFC 38's v1 the
 *   primary spec; its text was not available here, so v1 follows the two implementations below.
 * - LedgerHQ/app-solana libsol/include/sol/offchain_message_signing.h, libsol/parser.c (22be9023),
 *   src/handle_sign_offchain_message.c (newest stored), src/globals.h: the app reads **v0** (formats
 *   0 and 1 only) and **v1** (signers strictly ascending, body = the trailing bytes), needs at least
 *   one signer and its own key among them, and caps the whole message at 15312 bytes. App 1.3.0
 *   (eb28df9, 2022) up to about 1.8.0 read **legacy** instead; no current app does.
 * - LedgerHQ/device-sdk-ts packages/signer/signer-solana/src/internal/app-binder/services/
 *   OffchainMessageBuilder.ts and task/SendSignMessageTask.ts (782348be): builds v0 with a 32-byte
 *   zero application domain (unless the dApp passes one) and one signer, the device's key; on
 *   0x6a81 (bad header) it falls back v1 → v0 → legacy. Its v1 fallback also tries a pre-sRFC-38
 *   v1 with a u16 length before the body; this module does not accept that draft (it reads as a
 *   v1 message whose body starts with two length bytes, and so fails the body check).
 * - LedgerHQ/ledger-live libs/ledgerjs/packages/hw-app-solana/src/Solana.ts: signOffchainMessage
 *   sends the caller's bytes unchanged (no layout of its own).
 * - anza-xyz/kit packages/offchain-messages/src/codecs/preamble-v0.ts, preamble-v1.ts,
 *   message-v0.ts, message-v1.ts (56cfbe27): v0 as the spec; v1 as Ledger's (published byte
 *   vectors for both, tested).
 *
 * All three layouts are accepted because each is what some signer produces today (the Agave CLI,
 * current Ledger firmware through device-sdk-ts, kit and wallets following sRFC 38). Legacy and v0
 * share version 0: a message is read as the layout whose length field accounts for exactly the
 * bytes that follow, and refused if it reads validly as both. Where Ledger is laxer than the spec
 * and Agave (its is_data_ascii counts \n as ASCII in v0 format 0; it takes formats 0 and 1 up to
 * 15312 bytes), this module follows the spec and Agave.
 */
import { concatBytes, equalBytes } from '../lib/bytes.js';
import { excerpt, malformed, mismatch } from './message-rejected.js';

/** b"\xffsolana offchain"; the module keeps its own copy, so that no caller can change what it checks. */
const DOMAIN = new Uint8Array([0xff, ...new TextEncoder().encode('solana offchain')]);
export const SIGNING_DOMAIN: Uint8Array = DOMAIN.slice();

export const MESSAGE_FORMAT = { restrictedAscii: 0, limitedUtf8: 1, extendedUtf8: 2 } as const;
export type MessageFormat = (typeof MESSAGE_FORMAT)[keyof typeof MESSAGE_FORMAT];

/** PACKET_DATA_SIZE: the most a message in format 0 or 1 may take, header included. */
export const HARDWARE_WALLET_MAX_BYTES = 1232;
/** u16::MAX: the most any off-chain message may take, header included (our cap for v1 too). */
export const MAX_MESSAGE_BYTES = 0xffff;

export type OffchainMessage =
  | { layout: 'legacy'; version: 0; format: MessageFormat; body: Uint8Array }
  | {
      layout: 'v0';
      version: 0;
      applicationDomain: Uint8Array;
      format: MessageFormat;
      signers: Uint8Array[];
      body: Uint8Array;
    }
  | { layout: 'v1'; version: 1; signers: Uint8Array[]; body: Uint8Array };

/** What serializeOffchainMessage needs; a format left out is chosen as Agave's writer does. */
export type OffchainMessageInput =
  | { layout: 'legacy'; body: Uint8Array; format?: MessageFormat }
  | {
      layout: 'v0';
      body: Uint8Array;
      signers: readonly Uint8Array[];
      /** 32 bytes; zeros (Ledger shows "Domain not provided") when left out. */
      applicationDomain?: Uint8Array;
      format?: MessageFormat;
    }
  | { layout: 'v1'; body: Uint8Array; signers: readonly Uint8Array[] };

const KEY_BYTES = 32;
const VERSION_OFFSET = DOMAIN.length; // 16
const LEGACY_LENGTH_OFFSET = VERSION_OFFSET + 2; // after version and format
const V0_SIGNER_COUNT_OFFSET = VERSION_OFFSET + 1 + KEY_BYTES + 1; // after version, domain, format
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The message `bytes` hold, or `malformed` naming the first field that breaks its layout. Nothing
 * is trusted before it is checked; the returned arrays are copies.
 */
export function parseOffchainMessage(bytes: Uint8Array): OffchainMessage {
  if (bytes.length > MAX_MESSAGE_BYTES) {
    throw malformed('message length', `the message is ${bytes.length} bytes; an off-chain message is at most ${MAX_MESSAGE_BYTES}`);
  }
  const reader = new Reader(bytes);
  if (!equalBytes(reader.take(DOMAIN.length, 'signing domain'), DOMAIN)) {
    throw malformed('signing domain', 'is not "\\xffsolana offchain"');
  }
  const version = reader.u8('header version');
  if (version === 1) return parseV1(reader);
  if (version !== 0) throw malformed('header version', `is ${version}; only 0 and 1 are defined`);

  const legacy = lengthFitsRest(bytes, LEGACY_LENGTH_OFFSET) ? attempt(() => parseLegacy(new Reader(bytes, VERSION_OFFSET + 1))) : undefined;
  const v0LengthOffset = v0LengthOffsetOf(bytes);
  const v0 = lengthFitsRest(bytes, v0LengthOffset) ? attempt(() => parseV0(new Reader(bytes, VERSION_OFFSET + 1))) : undefined;
  if (legacy?.message && v0?.message) {
    throw malformed('header version', 'reads as both the legacy and the v0 layout; refusing to guess which one the wallet showed');
  }
  const chosen = v0?.message ? v0 : legacy?.message ? legacy : (v0 ?? legacy);
  if (!chosen) {
    throw malformed(
      'message length',
      `matches the bytes that follow it in neither version-0 layout: the legacy length (offset ${LEGACY_LENGTH_OFFSET}) ` +
        `is ${u16At(bytes, LEGACY_LENGTH_OFFSET) ?? 'cut short'}, the v0 length (after the signers) is ` +
        `${u16At(bytes, v0LengthOffset) ?? 'cut short'}, in a ${bytes.length}-byte message`,
    );
  }
  if (!chosen.message) throw chosen.error;
  return chosen.message;
}

function parseLegacy(reader: Reader): OffchainMessage {
  const format = readFormat(reader);
  const body = readBody(reader, format);
  return { layout: 'legacy', version: 0, format, body };
}

function parseV0(reader: Reader): OffchainMessage {
  const applicationDomain = reader.take(KEY_BYTES, 'application domain').slice();
  const format = readFormat(reader);
  const signers = readSigners(reader);
  const body = readBody(reader, format);
  return { layout: 'v0', version: 0, applicationDomain, format, signers, body };
}

function parseV1(reader: Reader): OffchainMessage {
  const signers = readSigners(reader);
  for (let i = 1; i < signers.length; i++) {
    if (compareBytes(signers[i - 1]!, signers[i]!) >= 0) {
      throw malformed('signers', 'are not in strictly ascending byte order (v1 sorts them and forbids duplicates)');
    }
  }
  const body = reader.take(reader.remaining, 'body').slice();
  if (body.length === 0) throw malformed('body', 'is empty');
  if (!isUtf8(body)) throw malformed('body', 'is not valid UTF-8');
  return { layout: 'v1', version: 1, signers, body };
}

function readFormat(reader: Reader): MessageFormat {
  const format = reader.u8('message format');
  if (format > MESSAGE_FORMAT.extendedUtf8) throw malformed('message format', `is ${format}; only 0, 1 and 2 are defined`);
  return format as MessageFormat;
}

function readSigners(reader: Reader): Uint8Array[] {
  const count = reader.u8('signers');
  if (count === 0) throw malformed('signers', 'count is zero; a message names at least one signer');
  const keys = reader.take(count * KEY_BYTES, 'signers');
  return Array.from({ length: count }, (_, i) => keys.slice(i * KEY_BYTES, (i + 1) * KEY_BYTES));
}

/** The u16 length, then exactly that many bytes to the end, within the format's charset and limit. */
function readBody(reader: Reader, format: MessageFormat): Uint8Array {
  const length = reader.u16('message length');
  if (length === 0) throw malformed('message length', 'is zero; the body may not be empty');
  if (length !== reader.remaining) throw malformed('message length', `is ${length} but ${reader.remaining} bytes follow`);
  if (format !== MESSAGE_FORMAT.extendedUtf8 && reader.total > HARDWARE_WALLET_MAX_BYTES) {
    throw malformed('message length', `the message is ${reader.total} bytes; format ${format} allows ${HARDWARE_WALLET_MAX_BYTES}, header included`);
  }
  const body = reader.take(length, 'body').slice();
  if (format === MESSAGE_FORMAT.restrictedAscii) {
    const at = body.findIndex((byte) => !isPrintableAscii(byte));
    if (at >= 0) throw malformed('body', `byte ${at} is 0x${body[at]!.toString(16).padStart(2, '0')}; format 0 allows 0x20–0x7e only`);
  } else if (!isUtf8(body)) {
    throw malformed('body', `is not valid UTF-8, which format ${format} requires`);
  }
  return body;
}

/**
 * Throws `mismatch` unless `message` proves `expected.challenge` for `expected.wallet`: the body is
 * the challenge's UTF-8 bytes, and a layout that names signers names the wallet and no one else.
 * A message with more signers is, per the spec, valid only with all their signatures; the gate
 * checks one, the wallet's. The legacy layout names nobody: the signature alone binds the wallet.
 * The application domain is not checked: the gate has none of its own, and the challenge's nonce,
 * path and feature already tie the signature to this gate.
 */
export function checkOffchainMessage(message: OffchainMessage, expected: { challenge: string; wallet: Uint8Array }): void {
  if (!equalBytes(message.body, new TextEncoder().encode(expected.challenge))) {
    throw mismatch('body', `is ${excerpt(new TextDecoder().decode(message.body))}, not the challenge`);
  }
  if (message.layout === 'legacy') return;
  if (message.signers.length !== 1) {
    throw mismatch('signers', `lists ${message.signers.length} signers; the gate verifies one signature, so only the wallet may be listed`);
  }
  if (!equalBytes(message.signers[0]!, expected.wallet)) throw mismatch('signers', 'the signer is not the wallet');
}

/**
 * The bytes a wallet signs for `input`. Refuses (with the parser's `malformed`) whatever
 * parseOffchainMessage would refuse, so nothing built here fails at the gate.
 */
export function serializeOffchainMessage(input: OffchainMessageInput): Uint8Array {
  const { body } = input;
  let header: Uint8Array;
  if (input.layout === 'legacy') {
    const format = input.format ?? formatFor(body, LEGACY_LENGTH_OFFSET + 2);
    header = concatBytes(DOMAIN, [0, format], u16le(body.length));
  } else {
    const signers = checkedKeys(input.signers);
    if (input.layout === 'v0') {
      const applicationDomain = input.applicationDomain ?? new Uint8Array(KEY_BYTES);
      if (applicationDomain.length !== KEY_BYTES) throw malformed('application domain', `is ${applicationDomain.length} bytes, not ${KEY_BYTES}`);
      const format = input.format ?? formatFor(body, V0_SIGNER_COUNT_OFFSET + 1 + signers.length * KEY_BYTES + 2);
      header = concatBytes(DOMAIN, [0], applicationDomain, [format, signers.length], ...signers, u16le(body.length));
    } else {
      header = concatBytes(DOMAIN, [1, signers.length], ...[...signers].sort(compareBytes));
    }
  }
  const bytes = concatBytes(header, body);
  parseOffchainMessage(bytes);
  return bytes;
}

/**
 * Exactly the bytes `solana sign-offchain-message <challenge>` signs (Agave 4.x with
 * solana-offchain-message 3.0.0): the legacy layout, format chosen from the text. That layout
 * names no signer, so the bytes are the same for every key; `wallet` is only checked to be a key,
 * so that callers need not change when the CLI moves to a layout that names the signer.
 */
export function defaultOffchainMessage(challenge: string, wallet: Uint8Array): Uint8Array {
  return challengeOffchainMessage(challenge, wallet, 'legacy');
}

/**
 * The message each layout's usual signer builds for `challenge` and `wallet`: legacy as the Agave
 * CLI (and Ledger app < 1.8), v0 as Ledger's device-sdk-ts by default (zero application domain, the
 * wallet as sole signer), v1 as sRFC 38 wallets (the wallet as sole signer). The gate can try
 * these when a client sends a signature but not the message bytes.
 */
export function challengeOffchainMessage(challenge: string, wallet: Uint8Array, layout: OffchainMessage['layout']): Uint8Array {
  const [key] = checkedKeys([wallet]);
  const body = new TextEncoder().encode(challenge);
  return serializeOffchainMessage(layout === 'legacy' ? { layout, body } : { layout, body, signers: [key!] });
}

/** Agave's OffchainMessage::new choice: ASCII if printable and within 1232 bytes, else UTF-8 (1, or 2 past 1232). */
function formatFor(body: Uint8Array, headerBytes: number): MessageFormat {
  if (headerBytes + body.length > HARDWARE_WALLET_MAX_BYTES) return MESSAGE_FORMAT.extendedUtf8;
  return body.every(isPrintableAscii) ? MESSAGE_FORMAT.restrictedAscii : MESSAGE_FORMAT.limitedUtf8;
}

function checkedKeys(keys: readonly Uint8Array[]): Uint8Array[] {
  if (keys.length === 0 || keys.length > 0xff) throw malformed('signers', `count is ${keys.length}; it must be 1–255`);
  for (const key of keys) if (key.length !== KEY_BYTES) throw malformed('signers', `a public key is ${KEY_BYTES} bytes, not ${key.length}`);
  return [...keys];
}

/** Sequential reads that throw `malformed(field, …)` instead of running past the end. */
class Reader {
  constructor(
    private readonly bytes: Uint8Array,
    private offset = 0,
  ) {}

  get total(): number {
    return this.bytes.length;
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  take(count: number, field: string): Uint8Array {
    if (count > this.remaining) throw malformed(field, `is cut short: ${count} bytes needed at offset ${this.offset}, ${this.remaining} left`);
    this.offset += count;
    return this.bytes.subarray(this.offset - count, this.offset);
  }

  u8(field: string): number {
    return this.take(1, field)[0]!;
  }

  u16(field: string): number {
    const [low, high] = this.take(2, field);
    return low! | (high! << 8);
  }
}

function attempt(parse: () => OffchainMessage): { message: OffchainMessage; error?: never } | { message?: never; error: unknown } {
  try {
    return { message: parse() };
  } catch (error) {
    return { error };
  }
}

function u16At(bytes: Uint8Array, offset: number | undefined): number | undefined {
  if (offset === undefined || offset + 2 > bytes.length) return undefined;
  return bytes[offset]! | (bytes[offset + 1]! << 8);
}

/** Whether the u16 at `offset` counts exactly the bytes after it: how a version-0 layout is told apart. */
function lengthFitsRest(bytes: Uint8Array, offset: number | undefined): boolean {
  return offset !== undefined && u16At(bytes, offset) === bytes.length - offset - 2;
}

function v0LengthOffsetOf(bytes: Uint8Array): number | undefined {
  const count = bytes[V0_SIGNER_COUNT_OFFSET];
  return count === undefined ? undefined : V0_SIGNER_COUNT_OFFSET + 1 + count * KEY_BYTES;
}

function isPrintableAscii(byte: number): boolean {
  return byte >= 0x20 && byte <= 0x7e;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function u16le(value: number): number[] {
  return [value & 0xff, (value >> 8) & 0xff];
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
