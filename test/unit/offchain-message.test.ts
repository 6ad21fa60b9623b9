import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import {
  challengeOffchainMessage,
  checkOffchainMessage,
  defaultOffchainMessage,
  MESSAGE_FORMAT,
  parseOffchainMessage,
  serializeOffchainMessage,
  SIGNING_DOMAIN,
  type OffchainMessage,
  type OffchainMessageInput,
} from '../../src/sign-modes/offchain-message.js';
import { MessageRejected } from '../../src/sign-modes/message-rejected.js';

/** b"\xffsolana offchain", byte by byte. */
const DOMAIN = [0xff, 0x73, 0x6f, 0x6c, 0x61, 0x6e, 0x61, 0x20, 0x6f, 0x66, 0x66, 0x63, 0x68, 0x61, 0x69, 0x6e];
const ZEROS_32 = new Array<number>(32).fill(0);

const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];
const hex = (text: string): number[] => [...Buffer.from(text, 'hex')];
const bytes = (...parts: (readonly number[] | Uint8Array)[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => [...part]));
const sha256Base58 = (data: Uint8Array): string => bs58.encode(createHash('sha256').update(data).digest());

/** RFC 8032 §7.1 TEST 1: a fixed wallet, so that vectors can spell its public key out. */
const WALLET_SECRET = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const WALLET_KEY = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const WALLET = Uint8Array.from(WALLET_KEY);
const OTHER = Uint8Array.from(hex('3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c'));

/** The gate's challenge: 99 printable ASCII bytes. */
const NONCE = 'mfrggzdfmztwq2lknnwg23tpobyxe43uov3ho6dzpjqwey3emvtgo2djnjvwy3l';
const CHALLENGE = `CHALLENGE::${NONCE}::/x404_auth/vip::SPL_VIP`;

function newWallet(): { publicKey: Uint8Array; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')), privateKey };
}

function verifies(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
  return verify(null, message, key, signature);
}

function rejection(run: () => unknown): { kind: string; field: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof MessageRejected) return { kind: error.kind, field: error.field };
    throw error;
  }
  throw new Error('expected a MessageRejected');
}

describe('layouts, byte by byte', () => {
  it('legacy, restricted ASCII: what `solana sign-offchain-message <challenge>` signs', () => {
    expect(CHALLENGE).toHaveLength(0x63);
    const expected = bytes(
      DOMAIN, // signing domain
      [0x00], // header version
      [0x00], // message format: restricted ASCII
      [0x63, 0x00], // message length: 99, u16 LE
      utf8(CHALLENGE), // body
    );
    expect(defaultOffchainMessage(CHALLENGE, WALLET)).toEqual(expected);
    expect(defaultOffchainMessage(CHALLENGE, OTHER)).toEqual(expected); // the CLI's bytes name no signer
    expect(serializeOffchainMessage({ layout: 'legacy', body: new TextEncoder().encode(CHALLENGE) })).toEqual(expected);
    expect(parseOffchainMessage(expected)).toEqual({ layout: 'legacy', version: 0, format: 0, body: new TextEncoder().encode(CHALLENGE) });
  });

  it('legacy, limited UTF-8', () => {
    const expected = bytes(DOMAIN, [0x00], [0x01], [0x0c, 0x00], [0xd0, 0x9f, 0xd1, 0x80, 0xd0, 0xb8, 0xd0, 0xb2, 0xd0, 0xb5, 0xd1, 0x82]);
    expect(serializeOffchainMessage({ layout: 'legacy', body: new TextEncoder().encode('Привет') })).toEqual(expected);
    expect(parseOffchainMessage(expected)).toMatchObject({ layout: 'legacy', format: 1 });
  });

  it('legacy, extended UTF-8 once the message passes 1232 bytes (1212-byte body is the last in format 0)', () => {
    const longest = new Array<number>(1212).fill(0x61);
    expect(serializeOffchainMessage({ layout: 'legacy', body: Uint8Array.from(longest) })).toEqual(bytes(DOMAIN, [0x00], [0x00], [0xbc, 0x04], longest));
    const body = [...longest, 0x61];
    const expected = bytes(DOMAIN, [0x00], [0x02], [0xbd, 0x04], body); // 1213 = 0x04bd
    expect(serializeOffchainMessage({ layout: 'legacy', body: Uint8Array.from(body) })).toEqual(expected);
    expect(parseOffchainMessage(expected)).toMatchObject({ layout: 'legacy', format: 2 });
  });

  it('v0, restricted ASCII: what Ledger device-sdk-ts sends by default (zero domain, the wallet as sole signer)', () => {
    const expected = bytes(
      DOMAIN, // signing domain
      [0x00], // header version
      ZEROS_32, // application domain
      [0x00], // message format: restricted ASCII
      [0x01], // signer count
      WALLET_KEY, // signer
      [0x63, 0x00], // message length: 99
      utf8(CHALLENGE),
    );
    expect(challengeOffchainMessage(CHALLENGE, WALLET, 'v0')).toEqual(expected);
    expect(parseOffchainMessage(expected)).toEqual({
      layout: 'v0',
      version: 0,
      applicationDomain: new Uint8Array(32),
      format: 0,
      signers: [WALLET],
      body: new TextEncoder().encode(CHALLENGE),
    });
  });

  it('v0, limited UTF-8 with an application domain', () => {
    const domain = new Array<number>(32).fill(0).map((_, i) => i + 1);
    const expected = bytes(DOMAIN, [0x00], domain, [0x01], [0x01], WALLET_KEY, [0x02, 0x00], [0xc3, 0xa9]); // "é"
    expect(serializeOffchainMessage({ layout: 'v0', body: new TextEncoder().encode('é'), signers: [WALLET], applicationDomain: Uint8Array.from(domain) })).toEqual(expected);
    expect(parseOffchainMessage(expected)).toMatchObject({ layout: 'v0', format: 1, applicationDomain: Uint8Array.from(domain) });
  });

  it('v0, extended UTF-8 once header (85 bytes with one signer) and body pass 1232', () => {
    const body = new Array<number>(1148).fill(0x62); // 85 + 1148 = 1233
    const expected = bytes(DOMAIN, [0x00], ZEROS_32, [0x02], [0x01], WALLET_KEY, [0x7c, 0x04], body);
    expect(serializeOffchainMessage({ layout: 'v0', body: Uint8Array.from(body), signers: [WALLET] })).toEqual(expected);
    expect(parseOffchainMessage(expected)).toMatchObject({ layout: 'v0', format: 2 });
  });

  it('v1: signer count, signers, then the body with no length', () => {
    const expected = bytes(
      DOMAIN, // signing domain
      [0x01], // header version
      [0x01], // signer count
      WALLET_KEY, // signer
      utf8(CHALLENGE), // body: the rest
    );
    expect(challengeOffchainMessage(CHALLENGE, WALLET, 'v1')).toEqual(expected);
    expect(parseOffchainMessage(expected)).toEqual({ layout: 'v1', version: 1, signers: [WALLET], body: new TextEncoder().encode(CHALLENGE) });
  });

  it('v1: the serializer sorts signers', () => {
    // OTHER (3d…) sorts before WALLET (d7…).
    const expected = bytes(DOMAIN, [0x01], [0x02], OTHER, WALLET_KEY, utf8('hi'));
    expect(serializeOffchainMessage({ layout: 'v1', body: new TextEncoder().encode('hi'), signers: [WALLET, OTHER] })).toEqual(expected);
  });

  it('legacy, extended UTF-8 up to 65535 bytes header included (Agave MAX_LEN 65515)', () => {
    const body = new Array<number>(65515).fill(0x63);
    const expected = bytes(DOMAIN, [0x00], [0x02], [0xeb, 0xff], body);
    expect(Buffer.from(serializeOffchainMessage({ layout: 'legacy', body: Uint8Array.from(body) })).equals(expected)).toBe(true);
    expect(parseOffchainMessage(expected)).toMatchObject({ layout: 'legacy', format: 2 });
  });

  it('exports the signing domain and format ids of the spec; changing the export changes nothing', () => {
    expect(SIGNING_DOMAIN).toEqual(Uint8Array.from(DOMAIN));
    expect(MESSAGE_FORMAT).toEqual({ restrictedAscii: 0, limitedUtf8: 1, extendedUtf8: 2 });
    SIGNING_DOMAIN.fill(0);
    try {
      expect(defaultOffchainMessage('hi', WALLET).subarray(0, 16)).toEqual(Uint8Array.from(DOMAIN));
      expect(rejection(() => parseOffchainMessage(bytes(new Array<number>(16).fill(0), [0x00, 0x00, 0x02, 0x00], utf8('hi'))))).toEqual({
        kind: 'malformed',
        field: 'signing domain',
      });
    } finally {
      SIGNING_DOMAIN.set(DOMAIN);
    }
  });
});

describe('published vectors', () => {
  // anza-xyz/solana-sdk offchain-message/src/lib.rs, test_offchain_message_ascii.
  it('Agave: "Test Message" (legacy, format 0), bytes and SHA-256', () => {
    const serialized = Uint8Array.from([
      255, 115, 111, 108, 97, 110, 97, 32, 111, 102, 102, 99, 104, 97, 105, 110, 0, 0, 12, 0, 84, 101, 115, 116, 32, 77, 101, 115, 115, 97, 103, 101,
    ]);
    expect(serializeOffchainMessage({ layout: 'legacy', body: new TextEncoder().encode('Test Message') })).toEqual(serialized);
    expect(sha256Base58(serialized)).toBe('HG5JydBGjtjTfD3sSn21ys5NTWPpXzmqifiGC2BVUjkD');
    expect(parseOffchainMessage(serialized)).toEqual({ layout: 'legacy', version: 0, format: 0, body: new TextEncoder().encode('Test Message') });
  });

  // anza-xyz/solana-sdk offchain-message/src/lib.rs, test_offchain_message_utf8.
  it('Agave: "Тестовое сообщение" (legacy, format 1), bytes and SHA-256', () => {
    const serialized = Uint8Array.from([
      255, 115, 111, 108, 97, 110, 97, 32, 111, 102, 102, 99, 104, 97, 105, 110, 0, 1, 35, 0, 208, 162, 208, 181, 209, 129, 209, 130, 208, 190, 208,
      178, 208, 190, 208, 181, 32, 209, 129, 208, 190, 208, 190, 208, 177, 209, 137, 208, 181, 208, 189, 208, 184, 208, 181,
    ]);
    expect(serializeOffchainMessage({ layout: 'legacy', body: new TextEncoder().encode('Тестовое сообщение') })).toEqual(serialized);
    expect(sha256Base58(serialized)).toBe('6GXTveatZQLexkX4WeTpJ3E7uk1UojRXpKp43c4ArSun');
    expect(parseOffchainMessage(serialized)).toMatchObject({ layout: 'legacy', format: 1 });
  });

  // anza-xyz/solana-sdk closed PR #269 (the spec's v0 layout, never merged), test_offchain_message_utf8:
  // zero application domain, one all-zero placeholder signer.
  it('solana-sdk PR #269: "Тестовое сообщение" in the v0 layout, SHA-256', () => {
    const serialized = serializeOffchainMessage({ layout: 'v0', body: new TextEncoder().encode('Тестовое сообщение'), signers: [new Uint8Array(32)] });
    expect(serialized.subarray(0, 85)).toEqual(bytes(DOMAIN, [0x00], ZEROS_32, [0x01], [0x01], ZEROS_32, [35, 0]));
    expect(sha256Base58(serialized)).toBe('E5tkTdEzcYTe5deSvw5jqzwPUEVBT83P4aHCYxjtzEW8');
  });

  // anza-xyz/kit packages/offchain-messages/src/__tests__/message-v0-codec-test.ts and message-v1-codec-test.ts.
  const KIT_APPLICATION_DOMAIN = [
    0x0d, 0x3b, 0x73, 0x0b, 0x9e, 0x88, 0x9b, 0x4b, 0x66, 0x1e, 0xd2, 0xa3, 0xce, 0x19, 0x1f, 0x68, 0xd3, 0x7d, 0xa7, 0x44, 0x32, 0x06, 0xa1, 0x82,
    0xb9, 0x46, 0x89, 0x1e, 0x00, 0x00, 0x00, 0x00,
  ];
  const KIT_SIGNER_A = [
    0x0c, 0xfe, 0x2c, 0xc9, 0x52, 0x55, 0x0e, 0x94, 0xc7, 0x25, 0x63, 0x9a, 0x4b, 0xd1, 0x1d, 0x4e, 0xa5, 0xa6, 0x38, 0x36, 0x51, 0xc3, 0x08, 0xb7,
    0x18, 0xc3, 0xae, 0xf2, 0x86, 0xbc, 0xa1, 0xaf,
  ];
  const KIT_SIGNER_B = [
    0x0c, 0xfe, 0x2c, 0xc9, 0x52, 0x5c, 0x95, 0xef, 0xb9, 0x72, 0xc0, 0xc5, 0xb7, 0xae, 0x0f, 0xd5, 0x20, 0xd9, 0x7e, 0x94, 0x8f, 0xd8, 0xbb, 0x2c,
    0x10, 0xa1, 0x01, 0x02, 0xce, 0x98, 0xb3, 0xa6,
  ];

  it('kit: a v0 message with an application domain and two signers', () => {
    const encoded = bytes(DOMAIN, [0x00], KIT_APPLICATION_DOMAIN, [0x00], [0x02], KIT_SIGNER_A, KIT_SIGNER_B, [0x0b, 0x00], utf8('Hello world'));
    const input: OffchainMessageInput = {
      layout: 'v0',
      body: new TextEncoder().encode('Hello world'),
      applicationDomain: Uint8Array.from(KIT_APPLICATION_DOMAIN),
      signers: [Uint8Array.from(KIT_SIGNER_A), Uint8Array.from(KIT_SIGNER_B)],
    };
    expect(parseOffchainMessage(encoded)).toEqual({ ...input, version: 0, format: 0 });
    expect(serializeOffchainMessage(input)).toEqual(encoded);
    expect(bs58.encode(Uint8Array.from(KIT_SIGNER_A))).toBe('signerAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  });

  it('kit: a v1 message with two signers and a newline in the body', () => {
    const encoded = bytes(DOMAIN, [0x01], [0x02], KIT_SIGNER_A, KIT_SIGNER_B, utf8('Hello\nworld'));
    const input: OffchainMessageInput = {
      layout: 'v1',
      body: new TextEncoder().encode('Hello\nworld'),
      signers: [Uint8Array.from(KIT_SIGNER_B), Uint8Array.from(KIT_SIGNER_A)],
    };
    expect(parseOffchainMessage(encoded)).toEqual({ layout: 'v1', version: 1, body: input.body, signers: [Uint8Array.from(KIT_SIGNER_A), Uint8Array.from(KIT_SIGNER_B)] });
    expect(serializeOffchainMessage(input)).toEqual(encoded);
  });
});

describe('signatures: what the gate verifies', () => {
  it.each(['legacy', 'v0', 'v1'] as const)('a %s message signed by the wallet verifies, parses and passes the check', (layout) => {
    const wallet = newWallet();
    const message = challengeOffchainMessage(CHALLENGE, wallet.publicKey, layout);
    const signature = new Uint8Array(sign(null, message, wallet.privateKey));
    expect(verifies(wallet.publicKey, message, signature)).toBe(true);
    expect(() => checkOffchainMessage(parseOffchainMessage(message), { challenge: CHALLENGE, wallet: wallet.publicKey })).not.toThrow();
    expect(verifies(newWallet().publicKey, message, signature)).toBe(false);
  });

  it('domain separation: a signature over the bare challenge is not one over its off-chain message, and layouts differ', () => {
    const wallet = newWallet();
    const bare = new Uint8Array(sign(null, new TextEncoder().encode(CHALLENGE), wallet.privateKey));
    const legacy = defaultOffchainMessage(CHALLENGE, wallet.publicKey);
    const v0 = challengeOffchainMessage(CHALLENGE, wallet.publicKey, 'v0');
    expect(verifies(wallet.publicKey, legacy, bare)).toBe(false);
    expect(verifies(wallet.publicKey, v0, new Uint8Array(sign(null, legacy, wallet.privateKey)))).toBe(false);
  });

  it('the fixed RFC 8032 wallet signs the CLI bytes deterministically', () => {
    const privateKey = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(WALLET_SECRET, 'hex').toString('base64url'), x: Buffer.from(WALLET).toString('base64url') },
      format: 'jwk',
    });
    const message = defaultOffchainMessage(CHALLENGE, WALLET);
    const signature = sign(null, message, privateKey);
    expect(sign(null, message, privateKey)).toEqual(signature);
    expect(verifies(WALLET, message, signature)).toBe(true);
  });
});

describe('rejections', () => {
  const legacy = (format: number, length: number, body: readonly number[]): Uint8Array => bytes(DOMAIN, [0x00, format], [length & 0xff, length >> 8], body);
  const v0 = (format: number, signers: readonly number[][], length: number, body: readonly number[]): Uint8Array =>
    bytes(DOMAIN, [0x00], ZEROS_32, [format, signers.length], ...signers, [length & 0xff, length >> 8], body);
  const v1 = (signers: readonly number[][], body: readonly number[]): Uint8Array => bytes(DOMAIN, [0x01, signers.length], ...signers, body);
  const hi = utf8('hi');
  const A = new Array<number>(32).fill(0x11);
  const B = new Array<number>(32).fill(0x22);

  const cases: [string, Uint8Array, string][] = [
    ['a wrong signing domain', bytes([0xfe], DOMAIN.slice(1), [0x00, 0x00, 0x02, 0x00], hi), 'signing domain'],
    ['a message shorter than the signing domain', Uint8Array.from(DOMAIN.slice(0, 10)), 'signing domain'],
    ['no header version', Uint8Array.from(DOMAIN), 'header version'],
    ['header version 2', bytes(DOMAIN, [0x02, 0x00, 0x02, 0x00], hi), 'header version'],
    ['header version 0xff', bytes(DOMAIN, [0xff], hi), 'header version'],
    ['legacy: message format 3', legacy(3, 2, hi), 'message format'],
    ['v0: message format 3', v0(3, [WALLET_KEY], 2, hi), 'message format'],
    ['legacy: zero length, no body', legacy(0, 0, []), 'message length'],
    ['v0: zero length, no body', v0(0, [WALLET_KEY], 0, []), 'message length'],
    ['legacy: truncated body', legacy(0, 3, hi), 'message length'],
    ['legacy: a trailing byte', legacy(0, 1, hi), 'message length'],
    ['v0: truncated body', v0(0, [WALLET_KEY], 3, hi), 'message length'],
    ['v0: a trailing byte', v0(0, [WALLET_KEY], 1, hi), 'message length'],
    ['legacy: cut inside the length', bytes(DOMAIN, [0x00, 0x00, 0x02]), 'message length'],
    ['legacy: format 0 past 1232 bytes', legacy(0, 1213, new Array<number>(1213).fill(0x61)), 'message length'],
    ['v0: format 1 past 1232 bytes', v0(1, [WALLET_KEY], 1148, new Array<number>(1148).fill(0x61)), 'message length'],
    ['more than 65535 bytes', legacy(2, 0xffff, new Array<number>(0xffff).fill(0x61)), 'message length'],
    ['legacy: format 0 with a non-ASCII byte', legacy(0, 2, [0xc3, 0xa9]), 'body'],
    ['legacy: format 0 with a newline (v0 ASCII has none)', legacy(0, 3, [0x61, 0x0a, 0x62]), 'body'],
    ['legacy: format 0 with DEL', legacy(0, 1, [0x7f]), 'body'],
    ['legacy: format 1 with invalid UTF-8', legacy(1, 2, [0x61, 0xff]), 'body'],
    ['legacy: format 1 with a UTF-16 surrogate', legacy(1, 3, [0xed, 0xa0, 0x80]), 'body'],
    ['legacy: format 2 with a truncated sequence', legacy(2, 2, [0x61, 0xc3]), 'body'],
    ['v0: format 0 with a newline (current Ledger firmware would sign it)', v0(0, [WALLET_KEY], 3, [0x61, 0x0a, 0x62]), 'body'],
    ['v0: format 1 with an overlong encoding', v0(1, [WALLET_KEY], 2, [0xc0, 0xaf]), 'body'],
    ['v0: signer count 0', v0(0, [], 2, hi), 'signers'],
    ['v1: signer count 0', v1([], hi), 'signers'],
    ['v1: no signer count', bytes(DOMAIN, [0x01]), 'signers'],
    ['v1: cut inside the signers', bytes(DOMAIN, [0x01, 0x02], A, B.slice(0, 10)), 'signers'],
    ['v1: signers out of order', v1([B, A], hi), 'signers'],
    ['v1: a duplicate signer', v1([A, A], hi), 'signers'],
    ['v1: an empty body', v1([A], []), 'body'],
    ['v1: invalid UTF-8', v1([A], [0x61, 0x80]), 'body'],
  ];

  it.each(cases)('%s', (_, message, field) => {
    expect(rejection(() => parseOffchainMessage(message))).toEqual({ kind: 'malformed', field });
  });

  it('a version-0 message that reads validly in both layouts is refused', () => {
    // v0: domain 0x01 0x43 0x00 …, format 0, one signer, length 2, "hi" (87 bytes in all). Read as
    // legacy: format 1, length 0x0043 = 67 = 87 − 20, and a 67-byte body of valid UTF-8.
    const applicationDomain = [0x01, 0x43, ...new Array<number>(30).fill(0)];
    const message = bytes(DOMAIN, [0x00], applicationDomain, [0x00, 0x01], new Array<number>(32).fill(0x41), [0x02, 0x00], hi);
    expect(message).toHaveLength(87);
    expect(rejection(() => parseOffchainMessage(message))).toEqual({ kind: 'malformed', field: 'header version' });
  });

  it('a version-0 message whose legacy length also fits, but which is only valid as v0, is read as v0', () => {
    // Same, with a legacy "format" byte of 7: only the v0 reading is valid.
    const applicationDomain = [0x07, 0x43, ...new Array<number>(30).fill(0)];
    const message = bytes(DOMAIN, [0x00], applicationDomain, [0x00, 0x01], new Array<number>(32).fill(0x41), [0x02, 0x00], hi);
    expect(parseOffchainMessage(message)).toMatchObject({ layout: 'v0', body: Uint8Array.from(hi) });
  });

  it('the pre-sRFC-38 v1 draft with a length before the body reads as a body that is not the challenge', () => {
    const draft = bytes(DOMAIN, [0x01, 0x01], WALLET_KEY, [0x63, 0x00], utf8(CHALLENGE));
    const parsed = parseOffchainMessage(draft);
    expect(parsed.body).toHaveLength(101);
    expect(rejection(() => checkOffchainMessage(parsed, { challenge: CHALLENGE, wallet: WALLET }))).toEqual({ kind: 'mismatch', field: 'body' });
  });

  it('the serializer refuses what the parser would refuse', () => {
    const body = new TextEncoder().encode('hi');
    expect(rejection(() => serializeOffchainMessage({ layout: 'legacy', body: new Uint8Array(0) }))).toEqual({ kind: 'malformed', field: 'message length' });
    expect(rejection(() => serializeOffchainMessage({ layout: 'legacy', body: new TextEncoder().encode('é'), format: 0 }))).toEqual({ kind: 'malformed', field: 'body' });
    expect(rejection(() => serializeOffchainMessage({ layout: 'legacy', body: Uint8Array.from([0xff]) }))).toEqual({ kind: 'malformed', field: 'body' });
    expect(rejection(() => serializeOffchainMessage({ layout: 'v0', body, signers: [] }))).toEqual({ kind: 'malformed', field: 'signers' });
    expect(rejection(() => serializeOffchainMessage({ layout: 'v0', body, signers: [new Uint8Array(31)] }))).toEqual({ kind: 'malformed', field: 'signers' });
    expect(rejection(() => serializeOffchainMessage({ layout: 'v0', body, signers: [WALLET], applicationDomain: new Uint8Array(31) }))).toEqual({
      kind: 'malformed',
      field: 'application domain',
    });
    expect(rejection(() => serializeOffchainMessage({ layout: 'v1', body, signers: [WALLET, WALLET] }))).toEqual({ kind: 'malformed', field: 'signers' });
    expect(rejection(() => serializeOffchainMessage({ layout: 'v1', body: new Uint8Array(0xffff), signers: [WALLET] }))).toEqual({ kind: 'malformed', field: 'message length' });
    expect(rejection(() => defaultOffchainMessage(CHALLENGE, new Uint8Array(33)))).toEqual({ kind: 'malformed', field: 'signers' });
  });
});

describe('checkOffchainMessage', () => {
  const expected = { challenge: CHALLENGE, wallet: WALLET };
  const challengeBytes = new TextEncoder().encode(CHALLENGE);

  it.each(['legacy', 'v0', 'v1'] as const)('accepts the %s message of the challenge for the wallet', (layout) => {
    expect(() => checkOffchainMessage(parseOffchainMessage(challengeOffchainMessage(CHALLENGE, WALLET, layout)), expected)).not.toThrow();
  });

  it('accepts any application domain and a format wider than needed', () => {
    const message = serializeOffchainMessage({ layout: 'v0', body: challengeBytes, signers: [WALLET], applicationDomain: new Uint8Array(32).fill(7), format: 2 });
    expect(() => checkOffchainMessage(parseOffchainMessage(message), expected)).not.toThrow();
  });

  it.each(['legacy', 'v0', 'v1'] as const)('%s: another body is a mismatch on body', (layout) => {
    const message = parseOffchainMessage(challengeOffchainMessage(`${CHALLENGE} `, WALLET, layout));
    expect(rejection(() => checkOffchainMessage(message, expected))).toEqual({ kind: 'mismatch', field: 'body' });
  });

  it.each(['v0', 'v1'] as const)('%s: another signer is a mismatch on signers', (layout) => {
    const message = parseOffchainMessage(challengeOffchainMessage(CHALLENGE, OTHER, layout));
    expect(rejection(() => checkOffchainMessage(message, expected))).toEqual({ kind: 'mismatch', field: 'signers' });
  });

  it.each(['v0', 'v1'] as const)('%s: the wallet among two signers is a mismatch on signers', (layout) => {
    const message = parseOffchainMessage(serializeOffchainMessage({ layout, body: challengeBytes, signers: [WALLET, OTHER] }));
    expect(rejection(() => checkOffchainMessage(message, expected))).toEqual({ kind: 'mismatch', field: 'signers' });
  });
});

describe('round trip', () => {
  const inputs: OffchainMessage[] = [
    { layout: 'legacy', version: 0, format: 0, body: new TextEncoder().encode(CHALLENGE) },
    { layout: 'legacy', version: 0, format: 1, body: new TextEncoder().encode(CHALLENGE) },
    { layout: 'legacy', version: 0, format: 2, body: new TextEncoder().encode('Ünïcödé ✓') },
    { layout: 'v0', version: 0, applicationDomain: new Uint8Array(32).fill(9), format: 0, signers: [WALLET], body: new TextEncoder().encode(CHALLENGE) },
    { layout: 'v0', version: 0, applicationDomain: new Uint8Array(32), format: 1, signers: [WALLET, OTHER, WALLET], body: new TextEncoder().encode('é') },
    { layout: 'v1', version: 1, signers: [OTHER, WALLET], body: new TextEncoder().encode('line one\nline two') },
  ];

  it.each(inputs)('parse(serialize($layout, format $format)) gives it back', (message) => {
    const serialized = serializeOffchainMessage(message);
    expect(parseOffchainMessage(serialized)).toEqual(message);
    expect(serializeOffchainMessage(parseOffchainMessage(serialized))).toEqual(serialized);
  });

  it('parsed arrays are copies, not views of the input', () => {
    const serialized = challengeOffchainMessage(CHALLENGE, WALLET, 'v0');
    const parsed = parseOffchainMessage(serialized);
    serialized.fill(0);
    expect(parsed.body).toEqual(new TextEncoder().encode(CHALLENGE));
    expect(parsed.layout === 'v0' && parsed.signers[0]).toEqual(WALLET);
  });
});
