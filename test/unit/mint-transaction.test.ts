import { AddressLookupTableAccount, Keypair, PublicKey, SystemProgram, VersionedTransaction, Transaction } from '@solana/web3.js';
import { getTransactionDecoder, getCompiledTransactionMessageDecoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { checkTemplate, confirmDestination, type TemplateSpec } from '../../src/mint/check.js';
import { decodeTransaction } from '../../src/transaction/decode.js';
import { encodeMessage, encodeTransaction } from '../../src/transaction/encode.js';
import { keyRole, MAX_TRANSACTION_BYTES } from '../../src/transaction/message.js';
import {
  associatedTokenAccount,
  buildTokenMint,
  createAtaIdempotent,
  mintTo,
  refusalOf,
  signWith,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  tokenMintInstructions,
  type TokenMintBuild,
} from '../helpers/mint.js';

const BLOCKHASH = new PublicKey(Keypair.generate().publicKey).toBase58();
const gate = Keypair.generate();
const mint = Keypair.generate().publicKey;
const AMOUNT = 1_000_000n;

const spec = (overrides: Partial<TemplateSpec> = {}): TemplateSpec => ({
  program: 'spl-token',
  signer: gate.publicKey.toBytes(),
  mint: mint.toBytes(),
  amount: AMOUNT,
  allowPrograms: [],
  ...overrides,
});

const build = (overrides: Partial<TokenMintBuild> = {}): { bytes: Uint8Array; payer: Keypair } => {
  const payer = overrides.payer ?? Keypair.generate();
  return { bytes: buildTokenMint({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH, ...overrides }), payer };
};

describe('the wire codec', () => {
  it('decodes what @solana/web3.js serializes, legacy and v0, and writes the same bytes back', () => {
    for (const version of ['legacy', 0] as const) {
      const { bytes, payer } = build({ version, computeUnitLimit: 60_000 });
      const tx = decodeTransaction(bytes);
      expect(tx.message.version).toBe(version);
      expect(tx.signatures).toHaveLength(2);
      expect(Buffer.from(tx.message.accountKeys[0]!)).toEqual(payer.publicKey.toBuffer());
      expect(encodeMessage(tx.message)).toEqual(tx.messageBytes);
      expect(encodeTransaction(tx.signatures, tx.messageBytes)).toEqual(new Uint8Array(bytes));
      // web3.js reads our message the same way.
      const theirs = version === 'legacy' ? Transaction.from(bytes).compileMessage().serialize() : VersionedTransaction.deserialize(bytes).message.serialize();
      expect(new Uint8Array(theirs)).toEqual(new Uint8Array(tx.messageBytes));
    }
  });

  it('reads keys, roles and instructions as @solana/kit does', () => {
    const { bytes } = build({ version: 0, computeUnitLimit: 50_000 });
    const tx = decodeTransaction(bytes);
    const kitTransaction = getTransactionDecoder().decode(bytes);
    // kit 8 also knows a v1 message shape (the gate refuses it: unsupported_version); this one is v0.
    const kit = getCompiledTransactionMessageDecoder().decode(kitTransaction.messageBytes) as unknown as {
      header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
      staticAccounts: string[];
      instructions: { programAddressIndex: number; accountIndices?: number[] }[];
    };
    expect({ numRequiredSignatures: kit.header.numSignerAccounts, numReadonlySignedAccounts: kit.header.numReadonlySignerAccounts, numReadonlyUnsignedAccounts: kit.header.numReadonlyNonSignerAccounts }).toEqual(tx.message.header);
    expect(kit.staticAccounts).toEqual(tx.message.accountKeys.map((key) => new PublicKey(key).toBase58()));
    expect(kit.instructions.map((instruction) => instruction.programAddressIndex)).toEqual(tx.message.instructions.map((instruction) => instruction.programIdIndex));
    expect(kit.instructions.map((instruction) => [...(instruction.accountIndices ?? [])])).toEqual(tx.message.instructions.map((instruction) => [...instruction.accountIndexes]));
    const gateIndex = tx.message.accountKeys.findIndex((key) => new PublicKey(key).equals(gate.publicKey));
    expect(keyRole(tx.message.header, tx.message.accountKeys.length, gateIndex)).toEqual({ signer: true, writable: false });
    expect(keyRole(tx.message.header, tx.message.accountKeys.length, 0)).toEqual({ signer: true, writable: true });
  });

  it('refuses bytes Solana would refuse, with a reason', () => {
    const { bytes } = build();
    expect(refusalOf(() => decodeTransaction(new Uint8Array(MAX_TRANSACTION_BYTES + 1)))).toBe('too_large');
    expect(refusalOf(() => decodeTransaction(bytes.subarray(0, bytes.length - 1)))).toBe('truncated');
    expect(refusalOf(() => decodeTransaction(new Uint8Array([...bytes, 0])))).toBe('trailing_bytes');
    // One signature slot for two signers.
    expect(refusalOf(() => decodeTransaction(new Uint8Array([1, ...bytes.subarray(1 + 64)])))).toBe('signature_count');
    // A compact-u16 with a needless continuation byte (0x82 0x00 for 2).
    expect(refusalOf(() => decodeTransaction(new Uint8Array([0x82, 0x00, ...bytes.subarray(1)])))).toBe('length_encoding');
    // The message reads on its own (the INVALID_TRANSACTION body has no field): it names where.
    expect(() => decodeTransaction(new Uint8Array([0x82, 0x00, ...bytes.subarray(1)]))).toThrow(/^signatures: over-long compact-u16 length/);
    // Version 1 does not exist.
    const v1 = bytes.slice();
    const messageStart = 1 + 2 * 64;
    expect(refusalOf(() => decodeTransaction(new Uint8Array([...v1.subarray(0, messageStart), 0x81, ...v1.subarray(messageStart)])))).toBe('unsupported_version');
    // A count of 65,535 signatures is refused before anything is allocated for them.
    expect(refusalOf(() => decodeTransaction(new Uint8Array([0xff, 0xff, 0x03])))).toBe('truncated');
    expect(refusalOf(() => decodeTransaction(new Uint8Array([])))).toBe('truncated');
  });
});

describe('the spl-token template', () => {
  it('accepts the template: with or without ATA creation and compute budget, legacy or v0, MintTo or MintToChecked', () => {
    for (const version of ['legacy', 0] as const) {
      for (const createAta of [true, false]) {
        const { bytes, payer } = build({ version, createAta, computeUnitLimit: createAta ? 80_000 : undefined });
        const match = checkTemplate(decodeTransaction(bytes), spec());
        expect(new PublicKey(match.feePayer).equals(payer.publicKey)).toBe(true);
        confirmDestination(match, associatedTokenAccount(payer.publicKey, mint).toBytes());
      }
    }
    const payer = Keypair.generate();
    const checked = build({ payer, instructions: [mintTo(mint, associatedTokenAccount(payer.publicKey, mint), gate.publicKey, AMOUNT, { decimals: 6 })] });
    expect(checkTemplate(decodeTransaction(checked.bytes), spec()).signerIndex).toBe(1);
  });

  it('token-2022 is the same template under its own program, and refuses the other', () => {
    const payer = Keypair.generate();
    const bytes = buildTokenMint({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH, tokenProgram: TOKEN_2022_PROGRAM, createAta: false });
    const match = checkTemplate(decodeTransaction(bytes), spec({ program: 'token-2022' }));
    confirmDestination(match, associatedTokenAccount(payer.publicKey, mint, TOKEN_2022_PROGRAM).toBytes());
    expect(refusalOf(() => checkTemplate(decodeTransaction(bytes), spec()))).toBe('wrong_program');
  });

  it('refuses each forbidden shape with its reason', () => {
    const payer = Keypair.generate();
    const ata = associatedTokenAccount(payer.publicKey, mint);
    const otherMint = Keypair.generate().publicKey;
    const stranger = Keypair.generate();
    const nonce = Keypair.generate().publicKey;
    const table = new AddressLookupTableAccount({ key: Keypair.generate().publicKey, state: { deactivationSlot: BigInt('18446744073709551615'), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [TOKEN_PROGRAM, mint] } });
    const cases: [string, Uint8Array][] = [
      ['wrong_amount', build({ payer, instructions: [mintTo(mint, ata, gate.publicKey, AMOUNT + 1n)] }).bytes],
      ['wrong_mint', build({ payer, instructions: [mintTo(otherMint, associatedTokenAccount(payer.publicKey, otherMint), gate.publicKey, AMOUNT)] }).bytes],
      ['wrong_authority', build({ payer, instructions: [{ ...mintTo(mint, ata, gate.publicKey, AMOUNT), keys: [...mintTo(mint, ata, stranger.publicKey, AMOUNT).keys.map((key, i) => (i === 2 ? { ...key, isSigner: false } : key)), { pubkey: gate.publicKey, isSigner: true, isWritable: false }] } as never] }).bytes],
      ['instruction_not_allowed', build({ payer, extra: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: stranger.publicKey, lamports: 1 })] }).bytes],
      ['mint_instruction', build({ payer, extra: [mintTo(mint, ata, gate.publicKey, AMOUNT)] }).bytes],
      ['signer_key_writable', build({ payer, instructions: [mintTo(mint, ata, gate.publicKey, AMOUNT, { authorityWritable: true })] }).bytes],
      ['signer_key_fee_payer', buildTokenMint({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH, feePayer: gate })],
      ['durable_nonce', build({ payer, instructions: [SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: payer.publicKey }), ...tokenMintInstructions({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH })] }).bytes],
      ['lookup_table', build({ payer, version: 0, tables: [table] }).bytes],
      ['signer_key_elsewhere', build({ payer, extra: [createAtaIdempotent(payer.publicKey, gate.publicKey, mint)] }).bytes],
      ['ata_instruction', build({ payer, createAta: false, extra: [createAtaIdempotent(payer.publicKey, stranger.publicKey, mint)] }).bytes],
    ];
    for (const [reason, bytes] of cases) expect(refusalOf(() => checkTemplate(decodeTransaction(bytes), spec())), reason).toBe(reason);
    // A second signer, even through an allowed program.
    const memo = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
    const signedNote = { programId: memo, keys: [{ pubkey: stranger.publicKey, isSigner: true, isWritable: false }], data: Buffer.from('hi') };
    const withSigner = build({ payer, cosigners: [stranger], extra: [signedNote as never] }).bytes;
    expect(refusalOf(() => checkTemplate(decodeTransaction(withSigner), spec({ allowPrograms: [memo.toBytes()] })))).toBe('extra_signer');
  });

  it('refuses a MintTo to anyone but the fee payer\'s own ATA', () => {
    const payer = Keypair.generate();
    const someoneElse = associatedTokenAccount(Keypair.generate().publicKey, mint);
    const { bytes } = build({ payer, createAta: false, instructions: [mintTo(mint, someoneElse, gate.publicKey, AMOUNT)] });
    const match = checkTemplate(decodeTransaction(bytes), spec());
    expect(refusalOf(() => confirmDestination(match, associatedTokenAccount(payer.publicKey, mint).toBytes()))).toBe('wrong_destination');
  });

  it('lets allow_programs add instructions, unless they name the gate\'s key', () => {
    const payer = Keypair.generate();
    const memo = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
    const note = (keys: PublicKey[]) => ({ programId: memo, keys: keys.map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })), data: Buffer.from('hi') });
    const allowed = spec({ allowPrograms: [memo.toBytes()] });
    expect(checkTemplate(decodeTransaction(build({ payer, extra: [note([]) as never] }).bytes), allowed).signerIndex).toBeGreaterThan(0);
    expect(refusalOf(() => checkTemplate(decodeTransaction(build({ payer, extra: [note([]) as never] }).bytes), spec()))).toBe('instruction_not_allowed');
    expect(refusalOf(() => checkTemplate(decodeTransaction(build({ payer, extra: [note([gate.publicKey]) as never] }).bytes), allowed))).toBe('signer_key_elsewhere');
  });

  it('refuses a transaction without the gate\'s key, or with it as a mere account', () => {
    const payer = Keypair.generate();
    const ata = associatedTokenAccount(payer.publicKey, mint);
    const other = Keypair.generate();
    expect(refusalOf(() => checkTemplate(decodeTransaction(build({ payer, instructions: [mintTo(mint, ata, other.publicKey, AMOUNT)], cosigners: [other] }).bytes), spec()))).toBe('signer_key_missing');
    const asAccount = { programId: TOKEN_PROGRAM, keys: [{ pubkey: mint, isSigner: false, isWritable: true }, { pubkey: ata, isSigner: false, isWritable: true }, { pubkey: gate.publicKey, isSigner: false, isWritable: false }], data: mintTo(mint, ata, gate.publicKey, AMOUNT).data };
    const bytes = signWith([asAccount as never], payer.publicKey, BLOCKHASH, [payer], 'legacy');
    expect(refusalOf(() => checkTemplate(decodeTransaction(bytes), spec()))).toBe('signer_key_missing');
  });
});
