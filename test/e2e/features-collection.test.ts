import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { startLocalnet } from 'x404-localnet/server.js';
import { login } from '../helpers/client.js';
import { startGate, testSecret, type GateProcess, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted, newWallet } from './features-kit.js';

/**
 * collection end to end: the real gate over HTTP against the local chain, whose NFTs were made by
 * the programs' own code (Token-2022 in LiteSVM, Metaplex's serializers). Catalogue:
 * packages/localnet/src/fixture.ts. Three gates share the
 * chain: with DAS_URL (the local chain answers searchAssets), without it, and with tight bounds.
 */
const { a: A, b: B, g: G, c: C, creator: X } = DEMO_COLLECTIONS;

let das: Stack;
let plain: Stack;
let tight: Stack;
let gates: GateProcess[] = [];

const policy = (collections?: string[], options: { creators?: string[]; min?: number | string } = {}): Record<string, string> => ({
  ...(collections === undefined ? {} : { collections: JSON.stringify(collections) }),
  ...(options.creators === undefined ? {} : { creators: JSON.stringify(options.creators) }),
  ...(options.min === undefined ? {} : { min_count: String(options.min) }),
});

beforeAll(async () => {
  const localnet = await startLocalnet({ port: 0 });
  const start = async (env: Record<string, string>): Promise<Stack> => {
    const jwtSecret = testSecret();
    const gate = await startGate({ rpcUrl: localnet.url, env: { JWT_SECRET: jwtSecret, ...env } });
    gates.push(gate);
    return { gateUrl: gate.url, gate, localnet, jwtSecret, stop: async () => {} };
  };
  // das and plain scan per wallet (PROGRAM_SCAN_SHARE_MS=0), so each login's reads are its own to count;
  // tight keeps the default, shared Core scans (test/e2e/providers-wallets.test.ts counts those).
  const perLogin = { PROGRAM_SCAN_SHARE_MS: '0' };
  [das, plain, tight] = await Promise.all([start({ DAS_URL: localnet.url, ...perLogin }), start(perLogin), start({ DAS_URL: localnet.url, COLLECTION_MAX_NFTS: '1', DAS_MAX_PAGES: '1' })]);
});
afterAll(async () => {
  await Promise.all(gates.map((gate) => gate.stop('SIGKILL')));
  await das?.localnet.close();
  gates = [];
});
beforeEach(() => das.localnet.faults.clear());

describe('collection: Token Metadata', () => {
  it('a verified NFT of a listed collection passes with one token-account read and one getMultipleAccounts round', async () => {
    const holder = fixtureWallet('nft-holder');
    // C is a Core collection: listing it must not cost a scan when Token Metadata already reaches min_count.
    const result = await loginCounted(das, 'collection', holder, policy([A, C]));
    expectToken(result, 'collection', holder, { collectionNfts: 1, standardsChecked: ['token-metadata', 'token-2022'] });
    logCalls('collection', 'Token Metadata pass', result.calls);
    expect(result.calls).toEqual({ getTokenAccountsByOwner: 2, getMultipleAccounts: 1 });
  });

  it('an unverified collection never counts: 500 MISSING_COLLECTION_NFT with the counts of every standard read', async () => {
    const body = expectRefusal(await login(das.gateUrl, 'collection', fixtureWallet('nft-unverified'), policy([A])), 500, 'MISSING_COLLECTION_NFT');
    expect(body).toMatchObject({
      required: 1,
      found: 0,
      byStandard: { 'token-metadata': 0, 'token-2022': 0, core: 0, das: 0 },
      standardsChecked: ['token-metadata', 'token-2022', 'core', 'das'],
    });
    expect(body.message).toContain('0 NFTs');
  });

  it('a programmable NFT in its frozen token account counts, and so does a print edition', async () => {
    const pnft = fixtureWallet('pnft-holder');
    expectToken(await login(das.gateUrl, 'collection', pnft, policy([A])), 'collection', pnft, { collectionNfts: 1 });
    const edition = fixtureWallet('edition-holder');
    expectToken(await login(das.gateUrl, 'collection', edition, policy([A])), 'collection', edition, { collectionNfts: 1 });
  });

  it('a zero balance never counts, and a collection nobody listed does not match', async () => {
    expectRefusal(await login(das.gateUrl, 'collection', fixtureWallet('nft-zero'), policy([A])), 500, 'MISSING_COLLECTION_NFT');
    const body = expectRefusal(await login(das.gateUrl, 'collection', fixtureWallet('nft-holder'), policy([B])), 500, 'MISSING_COLLECTION_NFT');
    expect(body.found).toBe(0);
  });

  it('creators: only a verified FIRST creator counts', async () => {
    const holder = fixtureWallet('creator-holder');
    const result = await loginCounted(das, 'collection', holder, policy(undefined, { creators: [X] }));
    // Core has no first-creator notion: no scan; DAS is not asked once min_count is reached.
    expectToken(result, 'collection', holder, { collectionNfts: 1, standardsChecked: ['token-metadata', 'token-2022'] });
    expect(result.calls).toEqual({ getTokenAccountsByOwner: 2, getMultipleAccounts: 1 });
    const body = expectRefusal(await login(das.gateUrl, 'collection', holder, policy(undefined, { creators: [X], min: 2 })), 500, 'MISSING_COLLECTION_NFT');
    expect(body).toMatchObject({ found: 1, byStandard: { 'token-metadata': 1, das: 0 }, standardsChecked: ['token-metadata', 'token-2022', 'das'] });
  });
});

describe('collection: Token-2022, Core, compressed', () => {
  it('a Token-2022 member of a listed group counts (group and member made by the Token-2022 program)', async () => {
    const member = fixtureWallet('t22-member');
    const result = await loginCounted(das, 'collection', member, policy([G]));
    expectToken(result, 'collection', member, { collectionNfts: 1, standardsChecked: ['token-metadata', 'token-2022'] });
    expect(result.calls).toEqual({ getTokenAccountsByOwner: 2, getMultipleAccounts: 1 });
  });

  it('a Core asset of a listed collection counts after one getProgramAccounts scan per collection', async () => {
    const holder = fixtureWallet('core-holder');
    const result = await loginCounted(das, 'collection', holder, policy([C, B]));
    expectToken(result, 'collection', holder, { collectionNfts: 1, standardsChecked: ['token-metadata', 'token-2022', 'core'] });
    logCalls('collection', 'Core pass (2 collections)', result.calls);
    // The wallet has no token accounts: no getMultipleAccounts round at all.
    expect(result.calls).toEqual({ getTokenAccountsByOwner: 2, getProgramAccounts: 2 });
    // Its asset of another collection does not count.
    const body = expectRefusal(await login(das.gateUrl, 'collection', holder, policy([C], { min: 2 })), 500, 'MISSING_COLLECTION_NFT');
    expect(body.byStandard).toMatchObject({ core: 1 });
  });

  it('compressed NFTs count through DAS; burnt and unverified ones never do', async () => {
    const holder = fixtureWallet('cnft-holder');
    const result = await loginCounted(das, 'collection', holder, policy([A], { min: 2 }));
    expectToken(result, 'collection', holder, { collectionNfts: 2, standardsChecked: ['token-metadata', 'token-2022', 'core', 'das'] });
    logCalls('collection', 'DAS pass', result.calls);
    expect(result.calls).toEqual({ getTokenAccountsByOwner: 2, getProgramAccounts: 1, searchAssets: 1 });
    const body = expectRefusal(await login(das.gateUrl, 'collection', holder, policy([A], { min: 3 })), 500, 'MISSING_COLLECTION_NFT');
    expect(body).toMatchObject({ found: 2, byStandard: { das: 2 } });
    // A compressed NFT whose verified first creator is X.
    expectToken(await login(das.gateUrl, 'collection', holder, policy(undefined, { creators: [X] })), 'collection', holder, { collectionNfts: 1, standardsChecked: ['token-metadata', 'token-2022', 'das'] });
  });

  it('without DAS_URL compressed NFTs are not read and the answer says so', async () => {
    const body = expectRefusal(await login(plain.gateUrl, 'collection', fixtureWallet('cnft-holder'), policy([A])), 500, 'MISSING_COLLECTION_NFT');
    expect(body.standardsChecked).toEqual(['token-metadata', 'token-2022', 'core']);
    expect(body.byStandard.das).toBeUndefined();
  });

  it('min_count sums across standards, each NFT once (DAS also lists the uncompressed NFT)', async () => {
    const collector = fixtureWallet('collector');
    const result = await login(das.gateUrl, 'collection', collector, policy([A, G, C], { min: 5 }));
    expectToken(result, 'collection', collector, { collectionNfts: 5, standardsChecked: ['token-metadata', 'token-2022', 'core', 'das'] });
    const body = expectRefusal(await login(das.gateUrl, 'collection', collector, policy([A, G, C], { min: 6 })), 500, 'MISSING_COLLECTION_NFT');
    expect(body).toMatchObject({ required: 6, found: 5, byStandard: { 'token-metadata': 2, 'token-2022': 1, core: 1, das: 1 } });
  });

  it('a DAS endpoint that fails → 503 UPSTREAM_UNAVAILABLE and no token (fail closed)', async () => {
    for (const mode of ['http500', 'rpc-error'] as const) {
      das.localnet.faults.set({ mode, methods: ['searchAssets'] });
      const result = await login(das.gateUrl, 'collection', fixtureWallet('cnft-holder'), policy([A]));
      das.localnet.faults.clear();
      expectRefusal(result, 503, 'UPSTREAM_UNAVAILABLE');
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

describe('collection: bounds and contract', () => {
  it('more NFTs than COLLECTION_MAX_NFTS → 500 COLLECTION_LIMIT naming the setting (an answer within the bound is still given)', async () => {
    const collector = fixtureWallet('collector');
    const body = expectRefusal(await login(tight.gateUrl, 'collection', collector, policy([B])), 500, 'COLLECTION_LIMIT');
    expect(body).toMatchObject({ setting: 'COLLECTION_MAX_NFTS', bound: 1, found: 0 });
    expect(body.message).toContain('COLLECTION_MAX_NFTS');
    // Core is still read, and reaches min_count: an answer, not a guess.
    expectToken(await login(tight.gateUrl, 'collection', collector, policy([C])), 'collection', collector, { collectionNfts: 1 });
  });

  it('more DAS pages than DAS_MAX_PAGES → 500 COLLECTION_LIMIT naming DAS_MAX_PAGES', async () => {
    const wallet = newWallet();
    // A full page of compressed NFTs the gate does not count (unverified: the search matches them, the items list no verified collection).
    for (let i = 0; i < 1000; i++) {
      das.localnet.state.addDasAsset({ id: das.localnet.state.nextAddress('das-asset'), owner: wallet.publicKey, compressed: true, burnt: false, collection: { key: A, verified: false } });
    }
    const body = expectRefusal(await login(tight.gateUrl, 'collection', wallet.secretKey, policy([A])), 500, 'COLLECTION_LIMIT');
    expect(body).toMatchObject({ setting: 'DAS_MAX_PAGES', bound: 1 });
  });

  it('bad headers → 400 before anything is read from the chain', async () => {
    const holder = fixtureWallet('nft-holder');
    const cases: [Record<string, string>, string][] = [
      [{}, 'MISSING_HEADER'],
      [{ min_count: '1' }, 'MISSING_HEADER'],
      [policy([]), 'INVALID_HEADER'],
      [{ collections: '[]', creators: '[]' }, 'INVALID_HEADER'],
      [{ collections: '["not-an-address"]' }, 'INVALID_HEADER'],
      [{ collections: `[${JSON.stringify(A)}` }, 'INVALID_HEADER'],
      [{ collections: JSON.stringify(A) }, 'INVALID_HEADER'],
      [policy(Array.from({ length: 101 }, () => A)), 'INVALID_HEADER'],
      [policy([A], { min: 0 }), 'INVALID_HEADER'],
      [policy([A], { min: 1001 }), 'INVALID_HEADER'],
      [policy([A], { min: '1.5' }), 'INVALID_HEADER'],
      [policy([A], { min: '-1' }), 'INVALID_HEADER'],
      [{ collections: '[]', creators: '[1]' }, 'INVALID_HEADER'],
    ];
    for (const [headers, code] of cases) {
      const result = await loginCounted(das, 'collection', holder, headers);
      expectRefusal(result, 400, code);
      expect(result.calls, JSON.stringify(headers)).toEqual({});
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny after the collection check passes', async () => {
    await expectLocationDenied(das, 'collection', fixtureWallet('nft-holder'), policy([A]));
  });

  it('RPC failure → 503, no token', async () => {
    await expectUpstreamFailure(das, 'collection', fixtureWallet('nft-holder'), policy([A]));
  });
});
