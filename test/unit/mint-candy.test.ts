import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { readSignerSlot, isSignerKey, CandyGuardUnreadable, GUARD_SIZES } from '../../src/mint/candy-guard.js';
import { checkTemplate, confirmSignerSlot, type TemplateSpec } from '../../src/mint/check.js';
import { decodeTransaction } from '../../src/transaction/decode.js';
import { independentReading, refusalOf } from '../helpers/mint.js';
import { prng, Seeded } from '../helpers/seeded.js';
import { buildCandyMint, candyGuardAccount, clientGuardSizes, some, sol, umiKey, type CandyMintBuild, type CandyProgram } from '../helpers/candy.js';

/**
 * The candy templates, on transactions and guard accounts the official Metaplex clients build
 * (Candy Guard programs cannot execute here, so these are judged without execution): accepted with
 * the gate's key read-only in the thirdPartySigner slot, refused with each forbidden change.
 */
const gate = Keypair.generate();
const treasury = Keypair.generate().publicKey;
const BLOCKHASH = Keypair.generate().publicKey.toBase58();
const PROGRAMS: CandyProgram[] = ['candy-guard', 'core-candy-guard'];

interface Setup {
  program: CandyProgram;
  candyGuard: PublicKey;
  candyMachine: PublicKey;
  spec: TemplateSpec;
  build(overrides?: Partial<CandyMintBuild>): Uint8Array;
}

function setup(program: CandyProgram, group?: string): Setup {
  const candyGuard = Keypair.generate().publicKey;
  const candyMachine = Keypair.generate().publicKey;
  return {
    program,
    candyGuard,
    candyMachine,
    spec: { program, signer: gate.publicKey.toBytes(), candyGuard: candyGuard.toBytes(), candyMachine: candyMachine.toBytes(), group, allowPrograms: [] },
    build: (overrides = {}) =>
      buildCandyMint({
        program,
        payer: Keypair.generate(),
        newAccount: Keypair.generate(),
        candyGuard,
        candyMachine,
        group,
        blockhash: BLOCKHASH,
        mintArgs: { solPayment: some({ destination: umiKey(treasury.toBase58()) }), thirdPartySigner: gate.publicKey },
        demoteGate: gate.publicKey,
        ...overrides,
      }),
  };
}

/** The guard set the candy guard account holds: solPayment, then the gate as thirdPartySigner. */
const signerGuards = (signer = gate.publicKey) => ({
  solPayment: some({ lamports: sol(0.5), destination: umiKey(treasury.toBase58()) }),
  thirdPartySigner: some({ signerKey: umiKey(signer.toBase58()) }),
});

describe('the guard set on-chain, as the clients serialize it', () => {
  for (const program of PROGRAMS) {
    it(`${program}: the gate's table of guard sizes is the client's`, () => {
      expect(GUARD_SIZES[program]).toEqual(clientGuardSizes(program));
    });

    it(`${program}: finds the thirdPartySigner and its slot after the guards before it`, () => {
      const plain = readSignerSlot(candyGuardAccount(program, signerGuards()), program, undefined);
      expect(isSignerKey(plain, gate.publicKey.toBytes())).toBe(true);
      expect(plain.slot).toBe(1);

      const paying = readSignerSlot(
        candyGuardAccount(program, {
          ...signerGuards(),
          botTax: some({ lamports: sol(0.01), lastInstruction: true }),
          tokenPayment: some({ amount: 5n, mint: umiKey(Keypair.generate().publicKey.toBase58()), destinationAta: umiKey(treasury.toBase58()) }),
          startDate: some({ date: 1_800_000_000n }),
          // After the signer: no effect on its slot, but the decoder must step over them.
          programGate: some({ additional: [umiKey(Keypair.generate().publicKey.toBase58()), umiKey(Keypair.generate().publicKey.toBase58())] }),
          mintLimit: some({ id: 1, limit: 1 }),
        }),
        program,
        undefined,
      );
      expect(paying.slot).toBe(program === 'candy-guard' ? 3 : 4);
      expect(isSignerKey(readSignerSlot(candyGuardAccount(program, signerGuards(Keypair.generate().publicKey)), program, undefined), gate.publicKey.toBytes())).toBe(false);
      expect(readSignerSlot(candyGuardAccount(program, { startDate: some({ date: 1n }) }), program, undefined).signerKey).toBeUndefined();
    });

    it(`${program}: a group's guards are merged over the default set`, () => {
      const data = candyGuardAccount(program, { solPayment: signerGuards().solPayment }, [
        { label: 'early', guards: { thirdPartySigner: signerGuards().thirdPartySigner, programGate: some({ additional: [] }) } },
        { label: 'public', guards: { startDate: some({ date: 5n }) } },
      ]);
      const early = readSignerSlot(data, program, 'early');
      expect(isSignerKey(early, gate.publicKey.toBytes())).toBe(true);
      expect(early.slot).toBe(1);
      expect(readSignerSlot(data, program, 'public').signerKey).toBeUndefined();
      expect(() => readSignerSlot(data, program, undefined)).toThrow(CandyGuardUnreadable);
      expect(() => readSignerSlot(data, program, 'late')).toThrow(CandyGuardUnreadable);
      expect(() => readSignerSlot(data.subarray(0, data.length - 3), program, 'public')).toThrow(CandyGuardUnreadable);
    });
  }
});

describe('mint transactions the clients build', () => {
  for (const program of PROGRAMS) {
    it(`${program}: accepted with the gate read-only in the thirdPartySigner slot`, () => {
      for (const version of ['legacy', 0] as const) {
        const s = setup(program);
        const match = checkTemplate(decodeTransaction(s.build({ version })), s.spec);
        confirmSignerSlot(match, readSignerSlot(candyGuardAccount(program, signerGuards()), program, undefined).slot);
        expect(match.signerSlot).toBe(1);
      }
      const grouped = setup(program, 'early');
      expect(checkTemplate(decodeTransaction(grouped.build()), grouped.spec).signerSlot).toBe(1);
    });

    it(`${program}: refused as the client builds it (the gate writable), without the gate, or with each forbidden change`, () => {
      const s = setup(program);
      const payer = Keypair.generate();
      const cases: [string, Uint8Array][] = [
        ['signer_key_writable', s.build({ demoteGate: undefined })],
        ['signer_key_missing', s.build({ mintArgs: { solPayment: some({ destination: umiKey(treasury.toBase58()) }) } })],
        ['candy_accounts', s.build({ candyMachine: Keypair.generate().publicKey })],
        ['candy_accounts', s.build({ candyGuard: Keypair.generate().publicKey })],
        ['candy_accounts', s.build({ payer, minter: Keypair.generate().publicKey })],
        ['wrong_group', s.build({ group: 'early' })],
        ['instruction_not_allowed', s.build({ payer, extra: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: treasury, lamports: 1 })] })],
        ['signer_key_writable', s.build({ payer, extra: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: gate.publicKey, lamports: 1 })] })],
        ['signer_key_elsewhere', s.build({ payer, extra: [new TransactionInstruction({ programId: SystemProgram.programId, keys: [{ pubkey: gate.publicKey, isSigner: false, isWritable: false }], data: Buffer.alloc(0) })] })],
      ];
      for (const [reason, bytes] of cases) expect(refusalOf(() => checkTemplate(decodeTransaction(bytes), s.spec)), reason).toBe(reason);

      // The gate's key in the wrong slot: no solPayment account before it, but the guard set has one.
      const early = checkTemplate(decodeTransaction(s.build({ mintArgs: { thirdPartySigner: gate.publicKey } })), s.spec);
      expect(early.signerSlot).toBe(0);
      expect(refusalOf(() => confirmSignerSlot(early, 1))).toBe('signer_slot');
    });
  }
});

describe('fuzzing the candy templates', () => {
  /** An independent reading with web3.js: accepted means the gate's key is read-only, once, in the guard's slot, and the fixed accounts are the configured ones. */
  function isCandyTemplate(bytes: Uint8Array, s: Setup, slot: number): boolean {
    const reading = independentReading(bytes, gate.publicKey);
    if (reading === undefined) return false;
    const { message, keys, gateIndex } = reading;
    const fixed = s.program === 'candy-guard' ? 25 : 13;
    const guardProgram = new PublicKey(s.program === 'candy-guard' ? 'Guard1JwRhJkVH6XZhzoYxeBVQe872VH6QggF4BWmS9g' : 'CMAGAKJ67e9hRZgfC5SFTbZH8MgEmtqazKXjmkaJjWTJ');
    let mints = 0;
    for (const instruction of message.compiledInstructions) {
      const program = keys[instruction.programIdIndex]!;
      const positions = instruction.accountKeyIndexes.flatMap((index, position) => (index === gateIndex ? [position] : []));
      if (program.equals(guardProgram)) {
        mints++;
        const at = (i: number) => keys[instruction.accountKeyIndexes[i]!];
        if (!at(0)?.equals(s.candyGuard) || !at(2)?.equals(s.candyMachine) || instruction.accountKeyIndexes[4] !== 0 || instruction.accountKeyIndexes[5] !== 0) return false;
        if (positions.length !== 1 || positions[0] !== fixed + slot) return false;
      } else if (program.toBase58() === 'ComputeBudget111111111111111111111111111111') {
        if (positions.length > 0) return false;
      } else {
        return false;
      }
    }
    return mints === 1;
  }

  for (const program of PROGRAMS) {
    it(`${program}: 2,000 byte-level mutations of a client-built mint → refused, or still the template`, () => {
      const s = setup(program);
      const valid = s.build();
      const slot = readSignerSlot(candyGuardAccount(program, signerGuards()), program, undefined).slot;
      let accepted = 0;
      for (let i = 0; i < 2000; i++) {
        const fuzz = new Seeded(prng(2707, i, program.length));
        const bytes = Array.from(valid);
        for (let k = 0; k <= fuzz.int(3); k++) {
          const at = fuzz.int(bytes.length);
          if (fuzz.chance(0.7)) bytes[at] = fuzz.int(256);
          else if (fuzz.chance(0.5)) bytes.splice(at, 1 + fuzz.int(8));
          else bytes.splice(at, 0, ...fuzz.bytes(1 + fuzz.int(8)));
        }
        const mutated = Uint8Array.from(bytes);
        const verdict = refusalOf(() => confirmSignerSlot(checkTemplate(decodeTransaction(mutated), s.spec), slot));
        if (verdict === 'accepted') {
          accepted++;
          expect(isCandyTemplate(mutated, s, slot), `case ${i}`).toBe(true);
        }
      }
      // Mutations of signatures, mint arguments and guard accounts keep the template (the programs judge those).
      expect(accepted).toBeGreaterThan(0);
    });
  }
});
