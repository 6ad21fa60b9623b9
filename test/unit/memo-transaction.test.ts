import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import {
  COMPUTE_BUDGET_PROGRAM_ID,
  MAX_TRANSACTION_BYTES,
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
  checkMemoTransaction,
  decodeMemoTransaction,
  memoTransactionMessage,
  serializeSignedTransaction,
} from '../../src/sign-modes/memo-transaction.js';
import { MessageRejected } from '../../src/sign-modes/message-rejected.js';

const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const MEMO_V1 = new PublicKey('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo');
/** solana-program/memo's newer pinocchio program: not one the gate accepts. */
const MEMO_V4 = new PublicKey('Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH');
const ZERO_BLOCKHASH = '11111111111111111111111111111111';
const CHALLENGE = `CHALLENGE::${'n0Nce_-'.repeat(6)}::/x404_auth/premium::SOLANA_PREMIUM`;

type Version = 'legacy' | 0;

function memo(wallet: PublicKey | null, text = CHALLENGE, programId = MEMO): TransactionInstruction {
  const keys = wallet ? [{ pubkey: wallet, isSigner: true, isWritable: false }] : [];
  return new TransactionInstruction({ programId, keys, data: Buffer.from(text) });
}

interface Built {
  bytes: Uint8Array;
  wallet: Keypair;
  signature: Uint8Array;
}

interface BuildOptions {
  wallet?: Keypair;
  /** Co-signers besides the wallet and the fee payer. */
  signers?: Keypair[];
  blockhash?: string;
  tables?: AddressLookupTableAccount[];
  /** Default: the wallet. */
  payer?: Keypair;
}

/** A transaction signed the way a wallet signs it: web3.js compiles, the keypair signs. */
function build(version: Version, instructions: TransactionInstruction[], options: BuildOptions = {}): Built {
  const { wallet = Keypair.generate(), signers = [], blockhash = ZERO_BLOCKHASH, tables = [] } = options;
  const payer = options.payer ?? wallet;
  let bytes: Uint8Array;
  if (version === 'legacy') {
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
    tx.sign(...new Set([payer, wallet, ...signers]));
    bytes = tx.serialize();
  } else {
    const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(tables);
    const tx = new VersionedTransaction(message);
    tx.sign([...new Set([payer, wallet, ...signers])]);
    bytes = tx.serialize();
  }
  return { bytes: Uint8Array.from(bytes), wallet, signature: Uint8Array.from(bytes.subarray(1, 65)) };
}

function accept({ bytes, wallet, signature }: Built, challenge = CHALLENGE): Uint8Array {
  return checkMemoTransaction(decodeMemoTransaction(bytes), { wallet: wallet.publicKey.toBytes(), challenge, signature }).message;
}

function rejection(run: () => unknown): MessageRejected {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MessageRejected);
    return error as MessageRejected;
  }
  throw new Error('accepted');
}

function rejected(built: Built, challenge = CHALLENGE): MessageRejected {
  return rejection(() => accept(built, challenge));
}

function verifies(wallet: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(wallet).toString('base64url') }, format: 'jwk' });
  return verify(null, message, key, signature);
}

/** The same bytes with `count` bytes at `at` replaced by `insert`. */
function splice(bytes: Uint8Array, at: number, count: number, insert: number[] | Uint8Array = []): Uint8Array {
  return Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at + count)]);
}

/**
 * Offsets in a one-signer transaction (what the builder makes): the signature count at 0, the
 * signature, then the message; v0 has its prefix byte first.
 */
function layout(version: Version, keyCount: number) {
  const header = 65 + (version === 0 ? 1 : 0);
  const keys = header + 4;
  const blockhash = keys + keyCount * 32;
  const instructionCount = blockhash + 32;
  return { header, keyCount: header + 3, keys, blockhash, instructionCount, firstInstruction: instructionCount + 1 };
}

function signWith(keypair: Keypair, message: Uint8Array): Uint8Array {
  const d = Buffer.from(keypair.secretKey.subarray(0, 32)).toString('base64url');
  const x = Buffer.from(keypair.publicKey.toBytes()).toString('base64url');
  return new Uint8Array(sign(null, message, createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d, x }, format: 'jwk' })));
}

/** A transaction from the builder, signed with node:crypto. */
function built(version: Version, options: { computeUnitPrice?: bigint; walletSignsMemo?: boolean; challenge?: string } = {}): Built {
  const wallet = Keypair.generate();
  const message = memoTransactionMessage({ wallet: wallet.publicKey.toBytes(), version, ...options, challenge: options.challenge ?? CHALLENGE });
  const signature = signWith(wallet, message);
  return { bytes: serializeSignedTransaction(message, signature), wallet, signature };
}

describe('memo transactions as wallets sign them (@solana/web3.js)', () => {
  const cases: [string, (wallet: PublicKey) => TransactionInstruction[]][] = [
    ['a signed memo', (wallet) => [memo(wallet)]],
    ['an unsigned memo', () => [memo(null)]],
    ['a memo v1', (wallet) => [memo(wallet, CHALLENGE, MEMO_V1)]],
    ['compute unit limit and price', (wallet) => [ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 12_345n }), memo(wallet)]],
    ['a compute unit price, an unsigned memo', () => [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }), memo(null)]],
    [
      'all four Compute Budget kinds',
      (wallet) => [
        ComputeBudgetProgram.requestHeapFrame({ bytes: 64 * 1024 }),
        ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2n ** 64n - 1n }),
        new TransactionInstruction({ programId: ComputeBudgetProgram.programId, keys: [], data: Buffer.from([4, 0, 0, 1, 0]) }),
        memo(wallet),
      ],
    ],
  ];

  for (const version of ['legacy', 0] as const) {
    it.each(cases)(`accepts ${version === 0 ? 'v0' : 'legacy'}: %s, and the signature verifies over the message`, (_, instructions) => {
      const wallet = Keypair.generate();
      const tx = build(version, instructions(wallet.publicKey), { wallet });
      const message = accept(tx);
      expect(decodeMemoTransaction(tx.bytes).message.version).toBe(version);
      expect(verifies(wallet.publicKey.toBytes(), message, tx.signature)).toBe(true);
      expect(Buffer.from(message).equals(Buffer.from(tx.bytes.subarray(65)))).toBe(true);
    });
  }

  it('decodes the fields web3.js wrote', () => {
    const wallet = Keypair.generate();
    const tx = build(0, [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7 }), memo(wallet.publicKey)], { wallet });
    const decoded = decodeMemoTransaction(tx.bytes);
    expect(decoded.message.header).toEqual({ numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 });
    expect(decoded.message.accountKeys).toEqual([wallet.publicKey.toBytes(), COMPUTE_BUDGET_PROGRAM_ID, MEMO_PROGRAM_ID]);
    expect(decoded.message.recentBlockhash).toEqual(new Uint8Array(32));
    expect(decoded.message.instructions.map((instruction) => instruction.programIdIndex)).toEqual([1, 2]);
    expect(new TextDecoder().decode(decoded.message.instructions[1]!.data)).toBe(CHALLENGE);
    expect(decoded.message.lookups).toEqual([]);
  });
});

describe('memoTransactionMessage: the bytes web3.js compiles', () => {
  const challenges = [CHALLENGE, 'x', `CHALLENGE::${'a'.repeat(180)}::/x404_auth/f::M_F`]; // the last one needs a 2-byte length
  const prices = [undefined, 0n, 5_000n, 2n ** 64n - 1n];

  it.each(['legacy', 0] as const)('%s: every challenge length, compute unit price and memo signer', (version) => {
    for (let round = 0; round < 8; round++) {
      const wallet = Keypair.generate();
      for (const challenge of challenges) {
        for (const computeUnitPrice of prices) {
          for (const walletSignsMemo of [true, false]) {
            const instructions = [
              ...(computeUnitPrice === undefined ? [] : [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: computeUnitPrice })]),
              memo(walletSignsMemo ? wallet.publicKey : null, challenge),
            ];
            const ours = memoTransactionMessage({ wallet: wallet.publicKey.toBytes(), challenge, version, computeUnitPrice, walletSignsMemo });
            let theirs: Uint8Array;
            let signed: Uint8Array;
            if (version === 'legacy') {
              const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: ZERO_BLOCKHASH }).add(...instructions);
              theirs = tx.serializeMessage();
              tx.sign(wallet);
              signed = tx.serialize();
            } else {
              const compiled = new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: ZERO_BLOCKHASH, instructions }).compileToV0Message();
              const tx = new VersionedTransaction(compiled);
              theirs = tx.message.serialize();
              tx.sign([wallet]);
              signed = tx.serialize();
            }
            expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(theirs).toString('hex'));
            const signature = signed.subarray(1, 65);
            expect(Buffer.from(serializeSignedTransaction(ours, signature)).equals(Buffer.from(signed))).toBe(true);
            expect(accept({ bytes: Uint8Array.from(signed), wallet, signature }, challenge)).toEqual(ours);
          }
        }
      }
    }
  });

  it('defaults to a signed memo and no Compute Budget instruction', () => {
    const wallet = Keypair.generate();
    const message = memoTransactionMessage({ wallet: wallet.publicKey.toBytes(), challenge: CHALLENGE, version: 'legacy' });
    const theirs = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: ZERO_BLOCKHASH }).add(memo(wallet.publicKey)).serializeMessage();
    expect(Buffer.from(message).equals(theirs)).toBe(true);
  });

  it('builds up to 1232 bytes and no further; the decoder takes 1232 and refuses 1233', () => {
    const wallet = Keypair.generate().publicKey.toBytes();
    let length = 1000;
    for (;;) {
      const challenge = 'C'.repeat(length + 1);
      if (rejectsAsTooLong(() => memoTransactionMessage({ wallet, challenge, version: 'legacy' }))) break;
      length++;
    }
    const largest = built('legacy', { challenge: 'C'.repeat(length) });
    expect(largest.bytes.length).toBe(MAX_TRANSACTION_BYTES);
    accept(largest, 'C'.repeat(length));
    const error = rejection(() => decodeMemoTransaction(Uint8Array.from([...largest.bytes, 0])));
    expect([error.kind, error.field]).toEqual(['malformed', 'transaction']);
    expect(error.message).toMatch(/1233 bytes/);
  });

  it('refuses a wallet that is not 32 bytes, a price beyond u64, a message with another signer count', () => {
    const wallet = Keypair.generate().publicKey.toBytes();
    expect(() => memoTransactionMessage({ wallet: wallet.subarray(1), challenge: CHALLENGE, version: 0 })).toThrow(RangeError);
    expect(() => memoTransactionMessage({ wallet, challenge: CHALLENGE, version: 0, computeUnitPrice: 2n ** 64n })).toThrow(RangeError);
    expect(() => memoTransactionMessage({ wallet, challenge: CHALLENGE, version: 0, computeUnitPrice: -1n })).toThrow(RangeError);
    const message = memoTransactionMessage({ wallet, challenge: CHALLENGE, version: 0 });
    expect(() => serializeSignedTransaction(message, new Uint8Array(63))).toThrow(RangeError);
    expect(() => serializeSignedTransaction(splice(message, 1, 1, [2]), new Uint8Array(64))).toThrow(RangeError);
  });
});

function rejectsAsTooLong(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(RangeError);
    return true;
  }
}

describe('rejections of transactions web3.js can build', () => {
  for (const version of ['legacy', 0] as const) {
    const name = version === 0 ? 'v0' : 'legacy';
    const other = Keypair.generate();

    it(`${name}: an extra instruction, before or after the memo`, () => {
      const wallet = Keypair.generate();
      const transfer = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: other.publicKey, lamports: 1 });
      for (const instructions of [[transfer, memo(wallet.publicKey)], [memo(wallet.publicKey), transfer], [memo(wallet.publicKey), memo(wallet.publicKey)]]) {
        const error = rejected(build(version, instructions, { wallet }));
        expect([error.kind, error.field]).toEqual(['mismatch', 'instructions']);
      }
    });

    it(`${name}: no memo, or a Compute Budget instruction after it`, () => {
      const wallet = Keypair.generate();
      const price = ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 });
      for (const instructions of [[price], [memo(null), price]]) {
        const error = rejected(build(version, instructions, { wallet }));
        expect([error.kind, error.field]).toEqual(['mismatch', 'instructions']);
      }
    });

    it(`${name}: Compute Budget instructions that are not real ones, or repeated`, () => {
      const wallet = Keypair.generate();
      const budget = (data: number[], keys: PublicKey[] = []) =>
        new TransactionInstruction({ programId: ComputeBudgetProgram.programId, keys: keys.map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })), data: Buffer.from(data) });
      const invalid = [
        [ComputeBudgetProgram.requestUnits({ units: 1, additionalFee: 0 })], // kind 0, retired
        [budget([3, 1, 0, 0, 0])], // a price needs 8 bytes
        [budget([2, 1, 0, 0, 0, 0])], // a limit needs 4
        [budget([5, 0, 0, 0, 0])],
        [budget([])],
        [budget([2, 1, 0, 0, 0], [wallet.publicKey])],
        [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2 })],
      ];
      for (const instructions of invalid) {
        const error = rejected(build(version, [...instructions, memo(wallet.publicKey)], { wallet }));
        expect([error.kind, error.field]).toEqual(['mismatch', 'instructions']);
      }
    });

    it(`${name}: a memo from another program`, () => {
      const wallet = Keypair.generate();
      for (const programId of [MEMO_V4, Keypair.generate().publicKey, SystemProgram.programId]) {
        const error = rejected(build(version, [memo(wallet.publicKey, CHALLENGE, programId)], { wallet }));
        expect([error.kind, error.field]).toEqual(['mismatch', 'instructions']);
      }
    });

    it(`${name}: a second signer, and a fee payer that is not the wallet`, () => {
      const wallet = Keypair.generate();
      const keys = [wallet, other].map((signer) => ({ pubkey: signer.publicKey, isSigner: true, isWritable: false }));
      const twoSigners = build(version, [new TransactionInstruction({ programId: MEMO, data: Buffer.from(CHALLENGE), keys })], { wallet, signers: [other] });
      expect(decodeMemoTransaction(twoSigners.bytes).signatures).toHaveLength(2);
      let error = rejected(twoSigners);
      expect([error.kind, error.field]).toEqual(['mismatch', 'signers']);

      error = rejected(build(version, [memo(wallet.publicKey)], { wallet, payer: other }));
      expect([error.kind, error.field]).toEqual(['mismatch', 'signers']);

      const paidByOther = build(version, [memo(null)], { wallet: other });
      error = rejected({ ...paidByOther, wallet });
      expect([error.kind, error.field]).toEqual(['mismatch', 'feePayer']);
    });

    it(`${name}: a real-looking blockhash`, () => {
      const wallet = Keypair.generate();
      const error = rejected(build(version, [memo(wallet.publicKey)], { wallet, blockhash: bs58.encode(randomBytes(32)) }));
      expect([error.kind, error.field]).toEqual(['mismatch', 'recentBlockhash']);
    });

    it(`${name}: a memo one byte off, a byte short or long, or for another challenge`, () => {
      const wallet = Keypair.generate();
      const oneOff = CHALLENGE.slice(0, 40) + String.fromCharCode(CHALLENGE.charCodeAt(40) ^ 1) + CHALLENGE.slice(41);
      for (const text of [oneOff, CHALLENGE.slice(0, -1), `${CHALLENGE} `, CHALLENGE.toLowerCase(), '']) {
        const error = rejected(build(version, [memo(wallet.publicKey, text)], { wallet }));
        expect([error.kind, error.field]).toEqual(['mismatch', 'memo']);
      }
    });

    it(`${name}: a memo listing another account, writable or not, or the wallet twice`, () => {
      const wallet = Keypair.generate();
      const listing = (keys: { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[]) => new TransactionInstruction({ programId: MEMO, keys, data: Buffer.from(CHALLENGE) });
      const walletMeta = { pubkey: wallet.publicKey, isSigner: true, isWritable: false };
      for (const instruction of [
        listing([walletMeta, { pubkey: other.publicKey, isSigner: false, isWritable: true }]),
        listing([{ pubkey: other.publicKey, isSigner: false, isWritable: false }]),
        listing([walletMeta, walletMeta]),
      ]) {
        const error = rejected(build(version, [instruction], { wallet }));
        expect([error.kind, error.field]).toEqual(['mismatch', 'memo']);
      }
    });

    it(`${name}: a signature other than the one sent`, () => {
      const wallet = Keypair.generate();
      const tx = build(version, [memo(wallet.publicKey)], { wallet });
      const error = rejected({ ...tx, signature: build(version, [memo(wallet.publicKey, 'other')], { wallet }).signature });
      expect([error.kind, error.field]).toEqual(['mismatch', 'signature']);
    });
  }

  it('v0 with an address lookup table', () => {
    const wallet = Keypair.generate();
    const extra = Keypair.generate().publicKey;
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [extra] },
    });
    const instruction = new TransactionInstruction({ programId: MEMO, data: Buffer.from(CHALLENGE), keys: [{ pubkey: extra, isSigner: false, isWritable: false }] });
    const tx = build(0, [instruction], { wallet, tables: [table] });
    expect(decodeMemoTransaction(tx.bytes).message.lookups).toHaveLength(1);
    const error = rejected(tx);
    expect([error.kind, error.field]).toEqual(['mismatch', 'addressTableLookups']);
  });
});

describe('rejections by byte surgery', () => {
  for (const version of ['legacy', 0] as const) {
    const name = version === 0 ? 'v0' : 'legacy';
    const at = layout(version, 2);

    /** The same transaction with one more read-only key after the others. */
    const withExtraKey = (bytes: Uint8Array, key: Uint8Array) => splice(splice(splice(bytes, at.blockhash, 0, key), at.keyCount, 1, [3]), at.header + 2, 1, [2]);

    /** The memo instruction's offsets: program index, account count, account, data length. */
    const memoAt = { program: at.firstInstruction, accountCount: at.firstInstruction + 1, account: at.firstInstruction + 2, dataLength: at.firstInstruction + 3 };

    it(`${name}: the layout these tests assume`, () => {
      const tx = built(version);
      expect(tx.bytes[0]).toBe(1);
      expect(tx.bytes[at.keyCount]).toBe(2);
      expect(tx.bytes.subarray(at.keys, at.keys + 32)).toEqual(tx.wallet.publicKey.toBytes());
      expect(tx.bytes.subarray(at.keys + 32, at.keys + 64)).toEqual(MEMO_PROGRAM_ID);
      expect(tx.bytes[at.instructionCount]).toBe(1);
      expect([tx.bytes[memoAt.program], tx.bytes[memoAt.accountCount], tx.bytes[memoAt.account], tx.bytes[memoAt.dataLength]]).toEqual([1, 1, 0, CHALLENGE.length]);
      accept(tx);
    });

    const surgery: [string, (bytes: Uint8Array, tx: Built) => Uint8Array, 'malformed' | 'mismatch', string][] = [
      ['an over-long signature count', (b) => splice(b, 0, 1, [0x81, 0x00]), 'malformed', 'signatures'],
      ['an over-long key count', (b) => splice(b, at.keyCount, 1, [0x82, 0x00]), 'malformed', 'accountKeys'],
      ['an over-long instruction count', (b) => splice(b, at.instructionCount, 1, [0x81, 0x80, 0x00]), 'malformed', 'instructions'],
      ['an over-long memo length', (b) => splice(b, memoAt.dataLength, 1, [CHALLENGE.length | 0x80, 0x00]), 'malformed', 'instructions'],
      ['a compact-u16 above 65535', (b) => splice(b, 0, 1, [0xff, 0xff, 0x04]), 'malformed', 'signatures'],
      ['a compact-u16 of four bytes', (b) => splice(b, 0, 1, [0x81, 0x80, 0x80, 0x00]), 'malformed', 'signatures'],
      ['a trailing byte', (b) => Uint8Array.from([...b, 0]), 'malformed', 'transaction'],
      ['more than 1232 bytes', (b) => Uint8Array.from([...b, ...new Uint8Array(MAX_TRANSACTION_BYTES + 1 - b.length)]), 'malformed', 'transaction'],
      ['a program index out of range', (b) => splice(b, memoAt.program, 1, [2]), 'malformed', 'instructions'],
      ['the fee payer as the program', (b) => splice(b, memoAt.program, 1, [0]), 'malformed', 'instructions'],
      ['an account index out of range', (b) => splice(b, memoAt.account, 1, [2]), 'malformed', 'instructions'],
      ['two signatures for one signer', (b) => splice(b, 0, 1, [2, ...new Uint8Array(64)]), 'malformed', 'signatures'],
      ['no signature for one signer', (b) => splice(b, 0, 65, [0]), 'malformed', 'signatures'],
      ['no writable signer', (b) => splice(b, at.header + 1, 1, [1]), 'malformed', 'header'],
      ['more read-only keys than keys', (b) => splice(b, at.header + 2, 1, [2]), 'malformed', 'header'],
      ['a writable memo program', (b) => splice(b, at.header + 2, 1, [0]), 'mismatch', 'accountKeys'],
      ['an unused key', (b) => withExtraKey(b, randomBytes(32)), 'mismatch', 'accountKeys'],
      ['the wallet twice', (b, tx) => withExtraKey(b, tx.wallet.publicKey.toBytes()), 'mismatch', 'accountKeys'],
      ['the memo program twice', (b) => withExtraKey(b, MEMO_PROGRAM_ID), 'mismatch', 'accountKeys'],
      ['a nonzero blockhash byte', (b) => splice(b, at.blockhash + 31, 1, [1]), 'mismatch', 'recentBlockhash'],
      ['a memo byte flipped', (b) => splice(b, memoAt.dataLength + 1, 1, [b[memoAt.dataLength + 1]! ^ 0x20]), 'mismatch', 'memo'],
    ];
    if (version === 0) {
      surgery.push(
        ['message version 1', (b) => splice(b, at.header - 1, 1, [0x81]), 'malformed', 'version'],
        ['message version 127', (b) => splice(b, at.header - 1, 1, [0xff]), 'malformed', 'version'],
        ['a lookup that loads nothing', (b) => splice(b, b.length - 1, 1, [1, ...randomBytes(32), 0, 0]), 'malformed', 'addressTableLookups'],
        ['a lookup', (b) => splice(b, b.length - 1, 1, [1, ...randomBytes(32), 0, 1, 0]), 'mismatch', 'addressTableLookups'],
        ['a truncated lookup list', (b) => splice(b, b.length - 1, 1, [1, ...randomBytes(20)]), 'malformed', 'addressTableLookups'],
      );
    }

    it.each(surgery)(`${name}: %s`, (_, cut, kind, field) => {
      const tx = built(version);
      const error = rejected({ ...tx, bytes: cut(tx.bytes, tx) });
      expect([error.kind, error.field]).toEqual([kind, field]);
    });

    it(`${name}: the v2 memo program swapped for v1 keeps the shape, so the signature check is what catches it`, () => {
      const tx = built(version);
      const message = accept({ ...tx, bytes: splice(tx.bytes, at.keys + 32, 32, MEMO_V1_PROGRAM_ID) });
      expect(verifies(tx.wallet.publicKey.toBytes(), message, tx.signature)).toBe(false);
      expect(verifies(tx.wallet.publicKey.toBytes(), tx.bytes.subarray(65), tx.signature)).toBe(true);
    });

    it(`${name}: truncated at every offset`, () => {
      const tx = built(version, { computeUnitPrice: 99n });
      const fields = new Set<string>();
      for (let length = 0; length < tx.bytes.length; length++) {
        const error = rejection(() => decodeMemoTransaction(tx.bytes.subarray(0, length)));
        expect(error.kind).toBe('malformed');
        expect(error.message).toMatch(/^truncated: /);
        fields.add(error.field);
      }
      expect([...fields].sort()).toEqual(['accountKeys', 'header', 'instructions', 'recentBlockhash', 'signatures', ...(version === 0 ? ['addressTableLookups'] : [])].sort());
    });
  }
});

/** xorshift32: the same sequence on every run, so a failure can be replayed. */
function prng(seed: number): (below: number) => number {
  let state = seed >>> 0 || 1;
  return (below) => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % below;
  };
}

describe('mutations of valid transactions', () => {
  it('2,000 seeded flips, truncations, insertions and deletions: accepted only if unchanged in substance, else MessageRejected', () => {
    const random = prng(0x404);
    const wallet = Keypair.generate();
    const bases = [
      build('legacy', [memo(wallet.publicKey)], { wallet }),
      build(0, [memo(null)], { wallet }),
      build('legacy', [ComputeBudgetProgram.setComputeUnitLimit({ units: 5000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 3 }), memo(wallet.publicKey)], { wallet }),
      build(0, [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 3 }), memo(wallet.publicKey, CHALLENGE, MEMO_V1)], { wallet }),
    ];
    /** Bases 2 and 3 carry Compute Budget values, which any u32/u64 satisfies. */
    const changedButAccepted = [0, 0, 0, 0];
    let unchanged = 0;
    let rejectedCount = 0;
    for (let round = 0; round < 2000; round++) {
      const which = round % bases.length;
      const base = bases[which]!;
      const bytes = [...base.bytes];
      for (let edits = 1 + random(3); edits > 0 && bytes.length > 0; edits--) {
        const position = random(bytes.length + 1);
        switch (random(5)) {
          case 0:
            bytes[position % bytes.length] = bytes[position % bytes.length]! ^ (1 << random(8));
            break;
          case 1:
            bytes[position % bytes.length] = random(256);
            break;
          case 2:
            bytes.splice(position, 0, random(256));
            break;
          case 3:
            bytes.splice(position % bytes.length, 1 + random(3));
            break;
          default:
            bytes.length = position;
        }
      }
      const mutated = Uint8Array.from(bytes);
      try {
        const message = accept({ ...base, bytes: mutated });
        if (Buffer.from(mutated).equals(Buffer.from(base.bytes))) {
          unchanged++;
        } else {
          // Only the Compute Budget values are free: a changed one leaves a signature that no longer verifies.
          expect(verifies(wallet.publicKey.toBytes(), message, base.signature)).toBe(false);
          changedButAccepted[which]!++;
        }
      } catch (error) {
        expect(error).toBeInstanceOf(MessageRejected);
        rejectedCount++;
      }
    }
    expect(changedButAccepted.slice(0, 2)).toEqual([0, 0]);
    expect(unchanged + changedButAccepted.reduce((sum, count) => sum + count) + rejectedCount).toBe(2000);
    expect(rejectedCount).toBeGreaterThan(1800);
  });
});

describe('the shared decoder (src/transaction/decode.ts), read as X-404-Message', () => {
  it('a count the bytes cannot hold is refused before anything is read for it, as a truncation of that field', () => {
    const tx = built('legacy');
    const cases: [string, Uint8Array, string][] = [
      ['65,535 signatures', Uint8Array.of(0xff, 0xff, 0x03, ...tx.bytes.subarray(1)), 'signatures'],
      ['65,535 account keys', splice(tx.bytes, 65 + 3, 1, [0xff, 0xff, 0x03]), 'accountKeys'],
      ['65,535 instructions', splice(tx.bytes, 65 + 3 + 1 + 2 * 32 + 32, 1, [0xff, 0xff, 0x03]), 'instructions'],
    ];
    for (const [name, bytes, field] of cases) {
      const error = rejection(() => decodeMemoTransaction(bytes));
      expect([error.kind, error.field], name).toEqual(['malformed', field]);
      expect(error.message, name).toMatch(/^truncated: 65535 .* do not fit in \d+ bytes$/);
    }
  });

  it('names the field once: the field is the error\'s own, the text does not repeat it', () => {
    const tx = built('legacy');
    const error = rejection(() => decodeMemoTransaction(Uint8Array.of(0x81, 0x00, ...tx.bytes.subarray(1))));
    expect([error.kind, error.field, error.message]).toEqual(['malformed', 'signatures', 'over-long compact-u16 length (a zero byte after the first)']);
  });
});
