import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { describeTransaction } from 'x404-devpage/mint-transaction.js';
import { associatedTokenAccount, buildTokenMint, createAtaIdempotent, mintTo, TOKEN_2022_PROGRAM } from '../helpers/mint.js';

/**
 * What the watch page's mint view says about a transaction (packages/devpage/src/mint-transaction.ts), held
 * against transactions built and read by @solana/web3.js: each key's role, each instruction of the
 * token templates with its accounts and arguments, and anything else shown raw.
 */
const payer = Keypair.fromSeed(new Uint8Array(32).fill(7));
const gate = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey;
const mint = Keypair.fromSeed(new Uint8Array(32).fill(11)).publicKey;
const blockhash = Keypair.fromSeed(new Uint8Array(32).fill(13)).publicKey.toBase58();

describe("the mint view's reading of a transaction", () => {
  it('gives every key the role web3.js reads from the header, legacy and v0', () => {
    for (const version of ['legacy', 0] as const) {
      const bytes = buildTokenMint({ payer, gate, mint, amount: 1n, blockhash, computeUnitLimit: 60_000, version });
      const described = describeTransaction(bytes);
      const web3 = VersionedTransaction.deserialize(bytes).message;
      expect(described.version).toBe(version);
      expect(described.size).toBe(bytes.length);
      expect(described.blockhash).toBe(blockhash);
      expect(described.numRequiredSignatures).toBe(2);
      expect(described.keys).toEqual(
        web3.staticAccountKeys.map((key, index) => ({ index, address: key.toBase58(), signer: web3.isAccountSigner(index), writable: web3.isAccountWritable(index) })),
      );
      expect(described.keys.find((key) => key.address === gate.toBase58())).toMatchObject({ signer: true, writable: false });
      expect(described.keys[0]).toMatchObject({ address: payer.publicKey.toBase58(), signer: true, writable: true });
      expect(Buffer.from(described.messageBytes).equals(Buffer.from(web3.serialize()))).toBe(true);
    }
  });

  it('decodes the token template: compute budget, the ATA creation and MintTo, with each account named', () => {
    const described = describeTransaction(buildTokenMint({ payer, gate, mint, amount: 123_456_789_012n, blockhash, computeUnitLimit: 60_000 }));
    const ata = associatedTokenAccount(payer.publicKey, mint).toBase58();
    const wallet = payer.publicKey.toBase58();
    expect(described.instructions).toEqual([
      { program: ComputeBudgetProgram.programId.toBase58(), name: 'SetComputeUnitLimit', accounts: [], args: { units: '60000' } },
      {
        program: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
        name: 'CreateIdempotent',
        accounts: [
          { role: 'funding account (payer)', address: wallet },
          { role: 'associated token account', address: ata },
          { role: 'wallet (owner)', address: wallet },
          { role: 'mint', address: mint.toBase58() },
          { role: 'System program', address: SystemProgram.programId.toBase58() },
          { role: 'token program', address: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
        ],
        args: {},
      },
      {
        program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        name: 'MintTo',
        accounts: [
          { role: 'mint', address: mint.toBase58() },
          { role: 'destination', address: ata },
          { role: 'mint authority', address: gate.toBase58() },
        ],
        args: { amount: '123456789012' },
      },
    ]);
  });

  it('reads MintToChecked under Token-2022, a u64 amount above 2^53 exactly, and the compute unit price', () => {
    const ata = associatedTokenAccount(payer.publicKey, mint, TOKEN_2022_PROGRAM);
    const described = describeTransaction(
      buildTokenMint({
        payer,
        gate,
        mint,
        amount: 0n,
        blockhash,
        instructions: [
          ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5_000n }),
          createAtaIdempotent(payer.publicKey, payer.publicKey, mint, TOKEN_2022_PROGRAM),
          mintTo(mint, ata, gate, 18_446_744_073_709_551_615n, { tokenProgram: TOKEN_2022_PROGRAM, decimals: 6 }),
        ],
      }),
    );
    expect(described.instructions.map((instruction) => [instruction.name, instruction.args])).toEqual([
      ['SetComputeUnitPrice', { 'micro-lamports per unit': '5000' }],
      ['CreateIdempotent', {}],
      ['MintToChecked', { amount: '18446744073709551615', decimals: '6' }],
    ]);
    expect(described.instructions[2]?.program).toBe(TOKEN_2022_PROGRAM.toBase58());
  });

  it('shows an instruction of any other program as its program and raw data', () => {
    const other = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
    const described = describeTransaction(
      buildTokenMint({ payer, gate, mint, amount: 1n, blockhash, extra: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: other, lamports: 1 })] }),
    );
    const transfer = described.instructions.at(-1);
    expect(transfer).toEqual({
      program: SystemProgram.programId.toBase58(),
      name: 'instruction 2',
      accounts: [
        { role: 'account', address: payer.publicKey.toBase58() },
        { role: 'account', address: other.toBase58() },
      ],
      args: { data: '02 00 00 00 01 00 00 00 00 00 00 00' },
    });
  });
});
