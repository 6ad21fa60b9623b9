import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { AccountInfo } from '../../src/chain/types.js';
import { authorityProblem, readTokenMint } from '../../src/mint/authority.js';
import { PROGRAM_IDS } from '../../src/mint/template-programs.js';
import { loadPolicyFile } from '../../src/policy/load.js';
import { candyGuardAccount, some, umiKey, type CandyProgram } from '../helpers/candy.js';
import { writeKeypairFile } from '../helpers/mint.js';

/**
 * The signer's role read from the account that holds it (src/mint/authority.ts): a token mint's
 * mintAuthority in the spl-token / token-2022 layouts, a candy guard's thirdPartySigner as the
 * official clients serialize it. Anything else is a sentence naming the problem.
 */
const dir = mkdtempSync(join(tmpdir(), 'x404-authority-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const gate = Keypair.generate();
writeKeypairFile(join(dir, 'signer.json'), gate);
const tokenMint = Keypair.generate().publicKey.toBase58();
const guard = Keypair.generate().publicKey.toBase58();
const machine = Keypair.generate().publicKey.toBase58();
writeFileSync(join(dir, 'list.txt'), `${Keypair.generate().publicKey.toBase58()}\n`);
writeFileSync(
  join(dir, 'policies.json'),
  JSON.stringify({
    rules: { r: { wallets: 'list.txt' } },
    mints: {
      spl: { rule: 'r', signer: 'signer.json', program: 'spl-token', mint: tokenMint, amount: '1' },
      t22: { rule: 'r', signer: 'signer.json', program: 'token-2022', mint: tokenMint, amount: '1' },
      candy: { rule: 'r', signer: 'signer.json', program: 'candy-guard', candy_guard: guard, candy_machine: machine },
      core: { rule: 'r', signer: 'signer.json', program: 'core-candy-guard', candy_guard: guard, candy_machine: machine },
    },
  }),
);
const mints = loadPolicyFile(join(dir, 'policies.json'), 'open').mints;

/** A Mint account: COption authority, supply, decimals, is_initialized, no freeze authority. */
function mintData(authority: Uint8Array | null, options: { supply?: bigint; initialized?: boolean; extensions?: boolean } = {}): Buffer {
  const data = Buffer.alloc(options.extensions ? 170 : 82);
  if (authority) {
    data.writeUInt32LE(1, 0);
    Buffer.from(authority).copy(data, 4);
  }
  data.writeBigUInt64LE(options.supply ?? 7n, 36);
  data[45] = options.initialized === false ? 0 : 1;
  if (options.extensions) data[165] = 1; // AccountType::Mint
  return data;
}
const account = (owner: string, data: Uint8Array): AccountInfo => ({ owner, lamports: 1, executable: false, data: Buffer.from(data) });

describe('token mints', () => {
  it('reads the authority and the supply of both layouts', () => {
    expect(readTokenMint(account(PROGRAM_IDS.token, mintData(gate.publicKey.toBytes(), { supply: 42n })), PROGRAM_IDS.token)).toEqual({ mintAuthority: gate.publicKey.toBytes(), supply: 42n });
    expect(authorityProblem(mints.get('spl')!, account(PROGRAM_IDS.token, mintData(gate.publicKey.toBytes())))).toBeUndefined();
    expect(authorityProblem(mints.get('t22')!, account(PROGRAM_IDS.token2022, mintData(gate.publicKey.toBytes())))).toBeUndefined();
    expect(authorityProblem(mints.get('t22')!, account(PROGRAM_IDS.token2022, mintData(gate.publicKey.toBytes(), { extensions: true })))).toBeUndefined();
  });

  it('names each problem', () => {
    const other = Keypair.generate().publicKey;
    const spl = mints.get('spl')!;
    expect(authorityProblem(spl, account(PROGRAM_IDS.token, mintData(other.toBytes())))).toContain(`mint authority is ${other.toBase58()}, not this gate's signer ${gate.publicKey.toBase58()}`);
    expect(authorityProblem(spl, account(PROGRAM_IDS.token, mintData(null)))).toContain('has no mint authority');
    expect(authorityProblem(spl, null)).toContain('there is no account');
    expect(authorityProblem(spl, account(PROGRAM_IDS.token2022, mintData(gate.publicKey.toBytes())))).toContain('not SPL Token');
    expect(authorityProblem(spl, account(PROGRAM_IDS.token, mintData(gate.publicKey.toBytes(), { initialized: false })))).toContain('not an initialized token mint');
    // A token account (165 bytes) is not a mint, whoever owns it.
    expect(authorityProblem(spl, account(PROGRAM_IDS.token, Buffer.alloc(165)))).toContain('not an initialized token mint');
    expect(authorityProblem(mints.get('t22')!, account(PROGRAM_IDS.token2022, Buffer.alloc(170)))).toContain('not an initialized token mint');
  });
});

describe('candy guards', () => {
  const guardSet = (signer: string) => ({ thirdPartySigner: some({ signerKey: umiKey(signer) }) });
  const owner = (program: CandyProgram): string => (program === 'candy-guard' ? PROGRAM_IDS.candyGuard : PROGRAM_IDS.coreCandyGuard);

  for (const [name, program] of [['candy', 'candy-guard'], ['core', 'core-candy-guard']] as const) {
    it(`${program}: the thirdPartySigner is the signer, or the problem is named`, () => {
      const mint = mints.get(name)!;
      expect(authorityProblem(mint, account(owner(program), candyGuardAccount(program, guardSet(gate.publicKey.toBase58()))))).toBeUndefined();
      const stranger = Keypair.generate().publicKey.toBase58();
      expect(authorityProblem(mint, account(owner(program), candyGuardAccount(program, guardSet(stranger))))).toContain('thirdPartySigner is not this gate\'s signer');
      expect(authorityProblem(mint, account(owner(program), candyGuardAccount(program, {})))).toContain('thirdPartySigner is not this gate\'s signer');
      expect(authorityProblem(mint, account(PROGRAM_IDS.system, candyGuardAccount(program, guardSet(gate.publicKey.toBase58()))))).toContain(`is not a ${program} account`);
      expect(authorityProblem(mint, account(owner(program), new Uint8Array(10)))).toContain('cannot be read');
    });
  }
});
