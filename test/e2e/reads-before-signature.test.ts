import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { associatedTokenAddress } from '../../src/chain/ata.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
import { MAX_COLLECTIONS } from '../../src/features/collection.js';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import type { RecordedCall } from 'x404-localnet/call-log.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, getNonce, newWallet, publicKeyOf, signedHeaders } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';

/**
 * What a request without the wallet's key can make the gate read (issue 25, item 8), seen in the
 * local chain's call log (packages/localnet/src/call-log.ts): a caller's own policy is read only after the
 * signature verifies; an operator's named policy keeps its read beside the signature (the launch
 * optimisation); scans per login are capped in the feature's parse step (400 before any read) and
 * duplicates are read once.
 */
let localnet: LocalnetHandle;
let gate: GateProcess;
let dir: string;
let operatorMint: string;

/** Long enough for a read started beside a refused signature to reach the chain (batch window ≤ 20 ms). */
const SETTLE_MS = 300;
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
const madeUpMints = (count: number): string[] => Array.from({ length: count }, () => publicKeyOf(newWallet()));
const blacklist = (mints: string[]) => blacklistPolicy({ excluded: mints });

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0, recordCalls: 20_000 });
  operatorMint = localnet.state.addMint({ decimals: 6, program: 'token' });
  dir = mkdtempSync(join(tmpdir(), 'x404-reads-'));
  writeFileSync(join(dir, 'policies.json'), JSON.stringify({ blacklist: { launch: { excluded_mints: [operatorMint], max_holdings: {}, geo_code: false } } }));
  // HOLDINGS_SCOPE=ata: the scope under which balances are read beside the signature at all.
  gate = await startGate({ rpcUrl: localnet.url, env: { POLICIES_FILE: join(dir, 'policies.json'), HOLDINGS_SCOPE: 'ata' } });
});
afterAll(async () => {
  await gate?.stop('SIGKILL');
  await localnet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The calls the chain answered while `action` ran (and SETTLE_MS after), as one JSON text to search. */
async function callsDuring(action: () => Promise<unknown>): Promise<{ calls: RecordedCall[]; text: string }> {
  const mark = localnet.calls().last;
  await action();
  await settle();
  const { calls } = localnet.calls(mark);
  return { calls, text: JSON.stringify(calls.map((call) => call.params)) };
}

/** Every address a read of `mint`'s balance for `wallet` could touch: the mint, and its ATA under both programs. */
const addressesOf = (wallet: string, mint: string): string[] => [mint, associatedTokenAddress(wallet, mint, TOKEN_PROGRAM_ID), associatedTokenAddress(wallet, mint, TOKEN_2022_PROGRAM_ID)];

/** A signed request whose signature does not verify: another key signed it, for `victim`'s address. */
async function forged(feature: string, victim: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { nonce } = await getNonce(gate.url, feature);
  return get(`${gate.url}/x404_auth/${feature}`, { ...signedHeaders(newWallet(), nonce, feature), 'X-404-Addr': victim, ...headers });
}

async function signedIn(feature: string, secretKey: Uint8Array, headers: Record<string, string>, query = ''): Promise<{ status: number; body: any }> {
  const { nonce } = await getNonce(gate.url, feature);
  return get(`${gate.url}/x404_auth/${feature}${query}`, { ...signedHeaders(secretKey, nonce, feature), ...headers });
}

describe('a caller\'s own policy is read only after the signature verifies', () => {
  it('a wrong signature with 40 made-up mints → 401, and not one of them (nor an ATA) is read', async () => {
    const victim = publicKeyOf(newWallet());
    const mints = madeUpMints(40);
    const { calls, text } = await callsDuring(async () => {
      const answer = await forged('blacklist', victim, blacklist(mints));
      expect([answer.status, answer.body.error]).toEqual([401, 'INVALID_SIGNATURE']);
    });
    expect(calls).toEqual([]);
    for (const mint of mints) for (const address of addressesOf(victim, mint)) expect(text).not.toContain(address);
  });

  it('the same policy with a valid signature reads them: the log would show such reads', async () => {
    const wallet = newWallet();
    const mints = madeUpMints(40);
    const { text } = await callsDuring(async () => {
      const answer = await signedIn('blacklist', wallet, blacklist(mints));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    });
    for (const mint of mints) expect(text).toContain(mint);
    expect(text).toContain(associatedTokenAddress(publicKeyOf(wallet), mints[0] as string, TOKEN_PROGRAM_ID));
  });

  it('also for multitoken and tier lists', async () => {
    const victim = publicKeyOf(newWallet());
    const [a, b, c, d] = madeUpMints(4) as [string, string, string, string];
    const { calls } = await callsDuring(async () => {
      const multitoken = await forged('multitoken', victim, { required_tokens: JSON.stringify([a, b, c].map((mint) => ({ mint, amount: '1' }))) });
      const tier = await forged('tier', victim, { tier_config: JSON.stringify({ gold: { mint: d, amount: '1' } }) });
      expect([multitoken.status, tier.status]).toEqual([401, 401]);
    });
    expect(calls).toEqual([]);
  });
});

describe('an operator\'s named policy keeps its read beside the signature', () => {
  it('its ATA is read while the signature is checked: even a wrong signature shows the read, and is still 401', async () => {
    // The gate learns the mint's program first, as it has before a launch.
    expect((await signedIn('blacklist', newWallet(), {}, '?policy=launch')).status).toBe(200);
    const victim = publicKeyOf(newWallet());
    const { text } = await callsDuring(async () => {
      const answer = await forged('blacklist', victim, { 'X-404-Policy': 'launch' });
      expect([answer.status, answer.body.error]).toEqual([401, 'INVALID_SIGNATURE']);
    });
    expect(text).toContain(associatedTokenAddress(victim, operatorMint, TOKEN_PROGRAM_ID));
  });
});

describe('scans per login are capped in the parse step and deduplicated', () => {
  const { c: coreCollection } = DEMO_COLLECTIONS;

  it(`more than ${MAX_COLLECTIONS} collections (and 101) → 400 INVALID_HEADER before anything is read; the nonce is still good`, async () => {
    const wallet = newWallet();
    for (const count of [MAX_COLLECTIONS + 1, 101]) {
      const collections = madeUpMints(count);
      const { nonce } = await getNonce(gate.url, 'collection');
      const headers = signedHeaders(wallet, nonce, 'collection');
      const { calls } = await callsDuring(async () => {
        const answer = await get(`${gate.url}/x404_auth/collection`, { ...headers, collections: JSON.stringify(collections) });
        expect([answer.status, answer.body.error, answer.body.header]).toEqual([400, 'INVALID_HEADER', 'collections']);
        expect(answer.body.message).toContain(`has ${count} entries; at most ${MAX_COLLECTIONS} are allowed (each is a program scan per login)`);
      });
      expect(calls).toEqual([]);
      // Nothing was spent: the same nonce signs a request within the bound.
      const within = await get(`${gate.url}/x404_auth/collection`, { ...headers, collections: JSON.stringify(collections.slice(0, MAX_COLLECTIONS)) });
      expect([within.status, within.body.error]).toEqual([500, 'MISSING_COLLECTION_NFT']);
    }
    const creators = await signedIn('collection', wallet, { creators: JSON.stringify(madeUpMints(MAX_COLLECTIONS + 1)) });
    expect([creators.status, creators.body.header]).toEqual([400, 'creators']);
  });

  it('a collection listed three times is scanned once, a mint listed three times read once, a protocol named twice scanned once', async () => {
    const wallet = newWallet();
    const { calls } = await callsDuring(async () => {
      const answer = await signedIn('collection', wallet, { collections: JSON.stringify([coreCollection, coreCollection, coreCollection]) });
      expect([answer.status, answer.body.error]).toEqual([500, 'MISSING_COLLECTION_NFT']);
    });
    expect(calls.filter((call) => call.method === 'getProgramAccounts')).toHaveLength(1);

    const holder = newWallet();
    const mint = localnet.state.addMint({ decimals: 0, program: 'token' });
    const ata = associatedTokenAddress(publicKeyOf(holder), mint, TOKEN_PROGRAM_ID);
    const read = await callsDuring(async () => {
      const answer = await signedIn('multitoken', holder, { required_tokens: JSON.stringify(['1', '2', '3'].map((amount) => ({ mint, amount }))), verification_mode: 'ANY' });
      expect([answer.status, answer.body.error]).toEqual([500, 'INSUFFICIENT_TOKENS']);
    });
    expect(read.text.split(ata).length - 1).toBe(1);
    expect(read.text.split(mint).length - 1).toBe(1);

    // Protocols named twice, or under their alias (solend = save), are scanned once each.
    const borrower = newWallet();
    const scans = async (protocols: string[]): Promise<string[]> => {
      const { calls } = await callsDuring(async () => {
        const answer = await signedIn('nodebt', borrower, { check_protocols: JSON.stringify(protocols) });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      });
      return calls.filter((call) => call.method === 'getProgramAccounts').map((call) => JSON.stringify(call.params));
    };
    const once = await scans(['kamino', 'save']);
    expect(once.length).toBeGreaterThan(0);
    expect((await scans(['kamino', 'kamino', 'save', 'solend', 'SAVE'])).sort()).toEqual(once.sort());
  });
});

// Last: the refused logins' reads are retried after the faults until their deadline (nothing cancels
// a read shared with other logins), and would show in a later test's window of the call log.
describe('an operator\'s named policy, with the chain failing', () => {
  it('what that read finds or fails with is never the answer to a signature that does not verify', async () => {
    for (const fault of [{ mode: 'http500' as const }, { mode: 'timeout' as const }]) {
      localnet.faults.set(fault);
      const answer = await forged('blacklist', publicKeyOf(newWallet()), { 'X-404-Policy': 'launch' });
      localnet.faults.clear();
      expect([answer.status, answer.body.error], fault.mode).toEqual([401, 'INVALID_SIGNATURE']);
    }
  });
});
