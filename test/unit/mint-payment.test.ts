import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { checkTemplate, type TemplateSpec } from '../../src/mint/check.js';
import { readPayment } from '../../src/mint/payment.js';
import { tokenMintTransaction } from '../../src/sdk/mint.js';
import { decodeTransaction } from '../../src/transaction/decode.js';
import { buildTokenMint, refusalOf, tokenMintInstructions, type TokenMintBuild } from '../helpers/mint.js';

/** A paid mint's template: exactly one System Program transfer of the price, from the fee payer to the destination. */
const BLOCKHASH = Keypair.generate().publicKey.toBase58();
const gate = Keypair.generate();
const mint = Keypair.generate().publicKey;
const treasury = Keypair.generate().publicKey;
const PRICE = 5_000_000n;
const payment = readPayment({ lamports: PRICE.toString(), destination: treasury.toBase58() }, gate.publicKey.toBytes(), (why) => {
  throw new Error(why);
});
const spec: TemplateSpec = { program: 'spl-token', signer: gate.publicKey.toBytes(), mint: mint.toBytes(), amount: 1n, allowPrograms: [], payment };

const transfer = (from: PublicKey, to: PublicKey, lamports: bigint): TransactionInstruction => SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports });
const judge = (build: (payer: Keypair) => Partial<TokenMintBuild>): string => {
  const payer = Keypair.generate();
  const bytes = buildTokenMint({ payer, gate: gate.publicKey, mint, amount: 1n, blockhash: BLOCKHASH, ...build(payer) });
  return refusalOf(() => checkTemplate(decodeTransaction(bytes), spec));
};

describe('paid mints', () => {
  it('accepts the price paid once, before or after the mint', () => {
    expect(judge((payer) => ({ extra: [transfer(payer.publicKey, treasury, PRICE)] }))).toBe('accepted');
    expect(judge((payer) => ({ instructions: [transfer(payer.publicKey, treasury, PRICE), ...defaultInstructions(payer)] }))).toBe('accepted');
  });

  it('refuses a missing, short, misdirected, foreign or repeated payment as `payment`', () => {
    const other = Keypair.generate();
    expect(judge(() => ({}))).toBe('payment');
    expect(judge((payer) => ({ extra: [transfer(payer.publicKey, treasury, PRICE - 1n)] }))).toBe('payment');
    expect(judge((payer) => ({ extra: [transfer(payer.publicKey, treasury, PRICE + 1n)] }))).toBe('payment');
    expect(judge((payer) => ({ extra: [transfer(payer.publicKey, Keypair.generate().publicKey, PRICE)] }))).toBe('payment');
    expect(judge(() => ({ extra: [transfer(other.publicKey, treasury, PRICE)], cosigners: [other] }))).toBe('payment');
    expect(judge((payer) => ({ extra: [transfer(payer.publicKey, treasury, PRICE), transfer(payer.publicKey, treasury, PRICE)] }))).toBe('payment');
    expect(judge((payer) => ({ extra: [SystemProgram.allocate({ accountPubkey: payer.publicKey, space: 8 }), transfer(payer.publicKey, treasury, PRICE)] }))).toBe('payment');
  });

  it('a mint without a price still refuses any System Program instruction', () => {
    const payer = Keypair.generate();
    const bytes = buildTokenMint({ payer, gate: gate.publicKey, mint, amount: 1n, blockhash: BLOCKHASH, extra: [transfer(payer.publicKey, treasury, PRICE)] });
    expect(refusalOf(() => checkTemplate(decodeTransaction(bytes), { ...spec, payment: undefined }))).toBe('instruction_not_allowed');
  });

  it('the SDK builds the transfer when the configuration has a price', async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const configuration = {
      name: 'paid', signer: gate.publicKey.toBase58(), program: 'spl-token' as const, mint: mint.toBase58(), amount: '1', perWallet: 1, supply: null,
      issued: 0, reserved: 0, start: null, end: null, allowPrograms: [], payment: { lamports: PRICE.toString(), destination: treasury.toBase58() },
    };
    const bytes = await tokenMintTransaction({ configuration, wallet, blockhash: BLOCKHASH });
    expect(refusalOf(() => checkTemplate(decodeTransaction(bytes), spec))).toBe('accepted');
    const free = await tokenMintTransaction({ configuration: { ...configuration, payment: null }, wallet, blockhash: BLOCKHASH });
    expect(refusalOf(() => checkTemplate(decodeTransaction(free), spec))).toBe('payment');
  });
});

/** The template's own instructions, as buildTokenMint makes them without `instructions`. */
function defaultInstructions(payer: Keypair): TransactionInstruction[] {
  return tokenMintInstructions({ payer, gate: gate.publicKey, mint, amount: 1n, blockhash: BLOCKHASH });
}
