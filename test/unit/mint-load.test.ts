import { sign, verify, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadPolicyFile } from '../../src/policy/load.js';
import { writeKeypairFile } from '../helpers/mint.js';

/** POLICIES_FILE "mints": validated against the one description, the signer's key read and checked, never echoed. */
const dir = mkdtempSync(join(tmpdir(), 'x404-mints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const signer = Keypair.generate();
writeKeypairFile(join(dir, 'signer.json'), signer);
const MINT = Keypair.generate().publicKey.toBase58();
const BASE = {
  blacklist: { launch: { excluded_mints: [], max_holdings: {} } },
  rules: { launch: { all: [{ feature: 'blacklist', policy: 'launch' }] } },
};
const genesis = { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: MINT, amount: '1', per_wallet: 1, supply: 5000, start: '2026-12-01T16:00:00Z', end: '2026-12-01T18:00:00Z', allow_programs: ['ComputeBudget111111111111111111111111111111'] };
let count = 0;
const write = (content: unknown): string => {
  const path = join(dir, `p${count++}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};
const load = (mints: unknown) => loadPolicyFile(write({ ...BASE, mints }), 'open');
function refusal(mints: unknown): string {
  try {
    load(mints);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('mint configurations', () => {
  it('loads the issue\'s example and serves its public fields only', () => {
    const mint = load({ genesis }).mints.get('genesis')!;
    expect(mint.listing).toEqual({
      name: 'genesis',
      signer: signer.publicKey.toBase58(),
      program: 'spl-token',
      rule: 'launch',
      mint: MINT,
      amount: '1',
      tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      perWallet: 1,
      supply: 5000,
      start: '2026-12-01T16:00:00.000Z',
      end: '2026-12-01T18:00:00.000Z',
      allowPrograms: ['ComputeBudget111111111111111111111111111111'],
      maxOnchainSupply: null,
      payment: null,
    });
    // The key signs as the keypair file's key, and never prints.
    const message = Buffer.from('hello');
    const signature = sign(null, message, mint.signer.privateKey);
    expect(verify(null, message, createPublicKey(mint.signer.privateKey), signature)).toBe(true);
    expect(new Uint8Array(createPublicKey(mint.signer.privateKey).export({ format: 'der', type: 'spki' }).subarray(12))).toEqual(signer.publicKey.toBytes());
    const printed = JSON.stringify(mint, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value));
    expect(printed).toContain(signer.publicKey.toBase58());
    for (const secret of [Buffer.from(signer.secretKey.subarray(0, 32)).toString('hex'), Buffer.from(signer.secretKey.subarray(0, 32)).toString('base64'), JSON.stringify([...signer.secretKey.subarray(0, 8)]).slice(1, -1)]) {
      expect(printed).not.toContain(secret);
    }
  });

  it('loads a paid mint with an on-chain supply cap, and serves both', () => {
    const treasury = Keypair.generate().publicKey.toBase58();
    const mint = load({ genesis: { ...genesis, payment: { lamports: '5000000', destination: treasury }, max_onchain_supply: '100' } }).mints.get('genesis')!;
    expect(mint.listing).toMatchObject({ payment: { lamports: '5000000', destination: treasury }, maxOnchainSupply: '100' });
    expect(mint.payment?.lamports).toBe(5_000_000n);
    expect(mint.maxOnchainSupply).toBe(100n);
  });

  it('loads candy templates, and a feature under a named policy as the condition', () => {
    const guard = Keypair.generate().publicKey.toBase58();
    const machine = Keypair.generate().publicKey.toBase58();
    const set = load({
      nft: { feature: 'blacklist', policy: 'launch', signer: 'signer.json', program: 'core-candy-guard', candy_guard: guard, candy_machine: machine, group: 'early' },
    });
    expect(set.mints.get('nft')!.listing).toMatchObject({ feature: 'blacklist', policy: 'launch', candyGuard: guard, candyMachine: machine, group: 'early', perWallet: 1, supply: null, start: null, end: null });
  });

  it('refuses each mistake with a message naming the mint and the field', () => {
    const cases: [unknown, string][] = [
      [{ ...genesis, colour: 'red' }, 'field colour: unknown field'],
      [{ ...genesis, program: 'spl' }, 'field program: must be one of spl-token, token-2022, candy-guard, core-candy-guard'],
      [{ ...genesis, candy_guard: MINT }, 'field candy_guard: not a field of spl-token mints'],
      [{ ...genesis, amount: undefined }, 'field amount: missing'],
      [{ ...genesis, amount: '0' }, 'field amount: must be from 1'],
      [{ ...genesis, rule: 'nope' }, 'field rule: no rule "nope"'],
      [{ ...genesis, feature: 'blacklist' }, 'not both'],
      [{ ...genesis, rule: undefined }, 'needs its condition'],
      [{ ...genesis, signer: 'missing.json' }, 'cannot be read (ENOENT)'],
      [{ ...genesis, per_wallet: 0 }, 'field per_wallet: must be a whole number'],
      [{ ...genesis, start: '2026-12-01 16:00' }, 'field start: must be an ISO 8601 time'],
      [{ ...genesis, end: '2026-12-01T15:00:00Z' }, 'field end: must be after start'],
      [{ ...genesis, allow_programs: ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'] }, 'cannot be allowed'],
      [{ ...genesis, allow_programs: ['BPFLoaderUpgradeab1e11111111111111111111111'] }, 'cannot be allowed'],
      [{ ...genesis, mint: 'not-an-address' }, 'field mint: must be a base58 address'],
      [{ ...genesis, payment: { lamports: '0', destination: MINT } }, 'field payment: lamports must be from 1'],
      [{ ...genesis, payment: { lamports: '5', destination: 'x' } }, 'field payment: destination must be a base58 address'],
      [{ ...genesis, payment: { lamports: '5', destination: signer.publicKey.toBase58() } }, 'field payment: destination cannot be the signer'],
      [{ ...genesis, payment: { lamports: '5', destination: MINT, memo: 'x' } }, 'field payment: unknown key memo'],
      [{ ...genesis, payment: '5' }, 'field payment: must be'],
      [{ ...genesis, max_onchain_supply: '1.5' }, 'field max_onchain_supply: must be a whole number'],
      [{ ...genesis, amount: '10', max_onchain_supply: '9' }, 'field max_onchain_supply: must be at least amount'],
    ];
    for (const [fields, expected] of cases) {
      const message = refusal({ genesis: JSON.parse(JSON.stringify(fields)) });
      expect(message, expected).toContain('mint "genesis"');
      expect(message, expected).toContain(expected);
    }
    expect(refusal({ 'bad name!': genesis })).toContain('a mint name is');
  });

  it('refuses a key file that is not a keypair, or whose halves disagree, without echoing a byte of it', () => {
    const secret = 'do-not-print-me-0123456789';
    writeFileSync(join(dir, 'garbage.json'), `{"secret":"${secret}"`);
    const garbage = refusal({ genesis: { ...genesis, signer: 'garbage.json' } });
    expect(garbage).toContain('must be a JSON array of 64 numbers');
    expect(garbage).not.toContain(secret);
    expect(garbage).not.toContain('do-not');

    const spliced = [...Keypair.generate().secretKey.subarray(0, 32), ...Keypair.generate().publicKey.toBytes()];
    writeFileSync(join(dir, 'spliced.json'), JSON.stringify(spliced));
    const message = refusal({ genesis: { ...genesis, signer: 'spliced.json' } });
    expect(message).toContain('its public half is not the key of its secret half');
    expect(message).not.toContain(String(spliced.slice(0, 4)));
  });
});
