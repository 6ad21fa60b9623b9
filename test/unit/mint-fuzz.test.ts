import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction, AddressLookupTableAccount, type MessageCompiledInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { checkTemplate, confirmDestination, type TemplateSpec } from '../../src/mint/check.js';
import { decodeTransaction } from '../../src/transaction/decode.js';
import { TRANSACTION_REASONS } from '../../src/contract/mint.js';
import { ATA_PROGRAM, associatedTokenAccount, createAtaIdempotent, independentReading, mintTo, refusalOf, signWith, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, tokenMintInstructions } from '../helpers/mint.js';
import { prng, Seeded } from '../helpers/seeded.js';

/**
 * 10,000 mutated transactions — bytes flipped, cut, spliced, and instructions changed, added,
 * dropped — through the gate's whole in-process judgment (decode, template, destination). Each must
 * be refused with a documented reason, or accepted only if an independent reading of it (web3.js
 * decodes it; this file's own rules say what the template is) finds exactly the template. A sample
 * goes over HTTP to a real gate in test/e2e/mint.test.ts.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 27);
const gate = Keypair.generate();
const payer = Keypair.generate();
const mint = Keypair.generate().publicKey;
const AMOUNT = 7n;
const BLOCKHASH = Keypair.generate().publicKey.toBase58();
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const COMPUTE_BUDGET = new PublicKey('ComputeBudget111111111111111111111111111111');
const spec: TemplateSpec = { program: 'spl-token', signer: gate.publicKey.toBytes(), mint: mint.toBytes(), amount: AMOUNT, allowPrograms: [MEMO.toBytes()] };
const payerAta = associatedTokenAccount(payer.publicKey, mint);
/** Keys made once: generating a keypair per mutation would be most of the run's time. */
const STRANGERS = Array.from({ length: 8 }, () => Keypair.generate().publicKey);
const KEYS = [gate.publicKey, payer.publicKey, mint, payerAta, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, SystemProgram.programId, ...STRANGERS];

/** The gate's judgment: the reason it refuses, or 'accepted'. */
function judge(bytes: Uint8Array): string {
  return refusalOf(() => {
    const match = checkTemplate(decodeTransaction(bytes), spec);
    confirmDestination(match, associatedTokenAccount(new PublicKey(match.feePayer), mint).toBytes());
  });
}

/** An independent reading: web3.js decodes the message; the template's rules, restated here. */
function isTemplate(bytes: Uint8Array): boolean {
  const reading = independentReading(bytes, gate.publicKey);
  if (reading === undefined) return false;
  const { message, keys, gateIndex } = reading;
  if (message.header.numRequiredSignatures !== 2) return false;
  const feePayer = keys[0]!;
  const ata = associatedTokenAccount(feePayer, mint);
  let mints = 0;
  const kinds = new Set<number>();
  for (const instruction of message.compiledInstructions as MessageCompiledInstruction[]) {
    const program = keys[instruction.programIdIndex]!;
    const accounts = instruction.accountKeyIndexes.map((index) => keys[index]);
    const data = Buffer.from(instruction.data);
    if (accounts.some((account) => account === undefined)) return false;
    if (program.equals(COMPUTE_BUDGET)) {
      const lengths: Record<number, number> = { 1: 5, 2: 5, 3: 9, 4: 5 };
      if (accounts.length > 0 || lengths[data[0]!] !== data.length || kinds.has(data[0]!)) return false;
      kinds.add(data[0]!);
    } else if (program.equals(ATA_PROGRAM)) {
      const expected = [feePayer, ata, feePayer, mint, SystemProgram.programId, TOKEN_PROGRAM];
      if (data.length !== 1 || data[0] !== 1 || accounts.length !== 6 || !expected.every((key, i) => key.equals(accounts[i]!))) return false;
    } else if (program.equals(TOKEN_PROGRAM)) {
      const isMintTo = (data[0] === 7 && data.length === 9) || (data[0] === 14 && data.length === 10);
      if (!isMintTo || accounts.length !== 3 || !accounts[0]!.equals(mint) || !accounts[1]!.equals(ata) || !accounts[2]!.equals(gate.publicKey)) return false;
      if (data.readBigUInt64LE(1) !== AMOUNT) return false;
      mints++;
    } else if (program.equals(MEMO)) {
      if (accounts.some((account) => account!.equals(gate.publicKey))) return false;
    } else {
      return false;
    }
    if (instruction.programIdIndex === gateIndex) return false;
  }
  return mints === 1;
}

/** The fuzzer's building blocks: instruction-level mutations of the template. */
class MintFuzz extends Seeded {
  key(): PublicKey {
    return this.pick(KEYS);
  }

  instruction(): TransactionInstruction {
    switch (this.int(10)) {
      case 0:
        return mintTo(this.chance(0.7) ? mint : this.key(), this.chance(0.7) ? payerAta : this.key(), this.chance(0.8) ? gate.publicKey : this.key(), this.chance(0.6) ? AMOUNT : BigInt(this.int(1000)), { authorityWritable: this.chance(0.1), decimals: this.chance(0.3) ? this.int(10) : undefined, tokenProgram: this.chance(0.9) ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM });
      case 1:
        return createAtaIdempotent(this.chance(0.8) ? payer.publicKey : this.key(), this.chance(0.8) ? payer.publicKey : this.key(), this.chance(0.8) ? mint : this.key());
      case 2:
        return SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: this.key(), lamports: this.int(10) });
      case 3:
        return SystemProgram.nonceAdvance({ noncePubkey: this.pick(STRANGERS), authorizedPubkey: this.chance(0.5) ? payer.publicKey : gate.publicKey });
      case 4:
        return ComputeBudgetProgram.setComputeUnitLimit({ units: this.int(1_400_000) });
      case 5:
        return ComputeBudgetProgram.setComputeUnitPrice({ microLamports: this.int(1000) });
      case 6:
        return new TransactionInstruction({ programId: MEMO, keys: this.chance(0.5) ? [] : [{ pubkey: this.key(), isSigner: false, isWritable: this.chance(0.3) }], data: Buffer.from('x') });
      case 7:
        // A token instruction that is not MintTo: Transfer (3) from the gate's key.
        return new TransactionInstruction({ programId: TOKEN_PROGRAM, keys: [{ pubkey: this.key(), isSigner: false, isWritable: true }, { pubkey: payerAta, isSigner: false, isWritable: true }, { pubkey: gate.publicKey, isSigner: true, isWritable: false }], data: Buffer.from([3, 1, 0, 0, 0, 0, 0, 0, 0]) });
      case 8:
        return new TransactionInstruction({ programId: this.key(), keys: [{ pubkey: gate.publicKey, isSigner: this.chance(0.5), isWritable: this.chance(0.5) }], data: Buffer.from(this.bytes(this.int(12))) });
      default:
        return tokenMintInstructions({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH, createAta: false })[0]!;
    }
  }

  /** The template, then a few instruction-level changes; compiled by web3.js (unsigned: the in-process judge does not verify). */
  transaction(): Uint8Array {
    const list = tokenMintInstructions({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH, createAta: this.chance(0.6), computeUnitLimit: this.chance(0.4) ? 100_000 : undefined });
    const changes = this.int(3);
    for (let i = 0; i < changes; i++) {
      const at = this.int(list.length + 1);
      const action = this.int(3);
      if (action === 0) list.splice(at, 0, this.instruction());
      else if (action === 1 && list.length > 0) list.splice(Math.min(at, list.length - 1), 1);
      else list.splice(Math.min(at, list.length - 1), 1, this.instruction());
    }
    if (list.length === 0) list.push(this.instruction());
    const feePayer = this.chance(0.05) ? gate.publicKey : payer.publicKey;
    const version = this.chance(0.5) ? 'legacy' : 0;
    const tables = version === 0 && this.chance(0.1) ? [new AddressLookupTableAccount({ key: this.pick(STRANGERS), state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [mint, payerAta, TOKEN_PROGRAM] } })] : [];
    try {
      return signWith(list, feePayer, BLOCKHASH, [], version, tables);
    } catch {
      // web3.js refuses some lists (e.g. more than 256 keys): mutate the bytes of the template instead.
      return this.bytesOf(signWith(tokenMintInstructions({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH }), payer.publicKey, BLOCKHASH, [], 'legacy'));
    }
  }

  /** Byte-level: flips, cuts, insertions, splices of a valid transaction. */
  bytesOf(valid: Uint8Array): Uint8Array {
    const bytes = Array.from(valid);
    const changes = 1 + this.int(4);
    for (let i = 0; i < changes; i++) {
      const at = this.int(bytes.length + 1);
      switch (this.int(5)) {
        case 0:
          if (bytes.length > 0) {
            const index = Math.min(at, bytes.length - 1);
            bytes[index] = bytes[index]! ^ (1 << this.int(8));
          }
          break;
        case 1:
          bytes[Math.min(at, bytes.length - 1)] = this.pick([0, 1, 2, 0x7f, 0x80, 0xff, this.int(256)]);
          break;
        case 2:
          bytes.splice(at, this.int(40));
          break;
        case 3:
          bytes.splice(at, 0, ...this.bytes(this.int(40)));
          break;
        default: {
          const from = this.int(bytes.length);
          bytes.splice(at, 0, ...bytes.slice(from, from + 32));
        }
      }
    }
    return Uint8Array.from(bytes);
  }
}

describe('fuzzing the template check', () => {
  it(`10,000 mutated transactions: refused with a documented reason, or exactly the template (seed ${SEED})`, () => {
    const valid = signWith(tokenMintInstructions({ payer, gate: gate.publicKey, mint, amount: AMOUNT, blockhash: BLOCKHASH, computeUnitLimit: 90_000 }), payer.publicKey, BLOCKHASH, [payer], 'legacy');
    expect(judge(valid)).toBe('accepted');
    const reasons = new Map<string, number>();
    let accepted = 0;
    for (let i = 0; i < 10_000; i++) {
      const fuzz = new MintFuzz(prng(SEED, i));
      const bytes = i % 2 === 0 ? fuzz.bytesOf(valid) : fuzz.transaction();
      const verdict = judge(bytes);
      reasons.set(verdict, (reasons.get(verdict) ?? 0) + 1);
      if (verdict === 'accepted') {
        accepted++;
        expect(isTemplate(bytes), `case ${i} was accepted but is not the template`).toBe(true);
      } else {
        expect(Object.keys(TRANSACTION_REASONS), `case ${i}: ${verdict}`).toContain(verdict);
      }
    }
    // The fuzzer reaches deep: most reasons, and some accepted variants (compute budget, ATA creation, memos).
    expect(accepted).toBeGreaterThan(50);
    expect(reasons.size).toBeGreaterThan(15);
  });
});
