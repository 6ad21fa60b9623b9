import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { authenticate, decodeTokenClaims, memoryStorage, resolveSigner, storageKey, X404Error, type BlacklistPolicy, type WalletSigner } from '../../src/sdk/index.js';
import { policyDigest } from '../../src/verifier/index.js';
import { startStack, type Stack } from '../helpers/gate.js';

/** The SDK against the real gate and local chain, as a Node backend or a script would use it. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const policy = (overrides: Partial<BlacklistPolicy> = {}): BlacklistPolicy => ({
  excluded_mints: [demoMint('banned'), demoMint('banned-t22')],
  max_holdings: { [demoMint('usdc')]: '1000000000000' },
  ...overrides,
});

/** A keypair signer that counts how often it was asked to sign, shaped like a browser wallet. */
async function countingWallet(name: string): Promise<WalletSigner & { signed: number }> {
  const keypair = await resolveSigner({ secretKey: demoWallet(name).secretKey });
  const wallet = {
    signed: 0,
    publicKey: { toBase58: () => keypair.address },
    async signMessage(message: Uint8Array) {
      wallet.signed += 1;
      return { signature: await keypair.sign!(message) };
    },
  };
  return wallet;
}

/** The reads of a blacklist login: the mints' programs and ATAs (getMultipleAccounts), every account of its mints (getTokenAccountsByOwner, the default scope). */
const READ_METHODS = ['getMultipleAccounts', 'getTokenAccountsByOwner'];

describe('authenticate against the gate', () => {
  it('signs a clean wallet in and returns a token bound to wallet, feature and policy', async () => {
    const wallet = demoWallet('clean');
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: { secretKey: wallet.secretKey }, storage: false });
    expect(result).toMatchObject({ publicKey: wallet.publicKey, feature: 'blacklist', alreadyAuthenticated: false, body: { success: true } });
    const claims = decodeTokenClaims(result.token);
    expect(claims).toMatchObject({ sub: wallet.publicKey, feature: 'blacklist', pol: await policyDigest('blacklist', policy()) });
  });

  it('reuses a stored token without signing, and signs again when the policy changes', async () => {
    const storage = memoryStorage();
    const wallet = await countingWallet('clean');
    const steps: string[] = [];
    const first = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage });
    expect(wallet.signed).toBe(1);

    const again = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage, onProgress: (step) => steps.push(step) });
    expect(again).toMatchObject({ alreadyAuthenticated: true, token: first.token, body: { alreadyAuthenticated: true } });
    expect(wallet.signed).toBe(1);
    expect(steps).toEqual(['reauthenticating']);

    // The gate answers POLICY_MISMATCH for the old token: it is dropped and the wallet signs anew.
    const stricter = policy({ max_holdings: { [demoMint('usdc')]: '999999999999' } });
    const renewed = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: stricter, signer: wallet, storage });
    expect(renewed.alreadyAuthenticated).toBe(false);
    expect(renewed.token).not.toBe(first.token);
    expect(wallet.signed).toBe(2);
    expect(await storage.get(storageKey(stack.gateUrl, 'blacklist', renewed.publicKey))).toBe(renewed.token);
  });

  it('drops a stored token the gate does not accept (another gate\'s secret) and signs in', async () => {
    const storage = memoryStorage();
    const wallet = await countingWallet('clean');
    const claims = { sub: demoWallet('clean').publicKey, feature: 'blacklist', iat: 1, exp: 4_000_000_000, jti: 'x', pol: 'y' };
    const foreign = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;
    await storage.set(storageKey(stack.gateUrl, 'blacklist', claims.sub), foreign);
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage });
    expect(result.alreadyAuthenticated).toBe(false);
    expect(wallet.signed).toBe(1);
  });

  it('rides out a chain failure: the gate gives the nonce back and the same signed request succeeds, one signature', async () => {
    const wallet = await countingWallet('clean');
    // Every attempt of the first login's read fails (one endpoint, RPC_RETRIES=1: two HTTP requests).
    stack.localnet.faults.set({ mode: 'http500', count: 2, methods: READ_METHODS });
    try {
      const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
      expect(result).toMatchObject({ alreadyAuthenticated: false, body: { success: true } });
      expect(wallet.signed).toBe(1);
      expect(stack.localnet.faults.current().mode).toBe('none');
    } finally {
      stack.localnet.faults.clear();
    }
  });

  it('throws the gate\'s codes for wallets that do not meet the policy', async () => {
    const banned = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: { secretKey: demoWallet('banned-holder').secretKey }, storage: false }).catch((e: unknown) => e);
    expect(banned).toBeInstanceOf(X404Error);
    expect(banned).toMatchObject({ code: 'HOLDS_BANNED_TOKEN', status: 500, body: { mint: demoMint('banned') } });

    const whalePolicy = policy({ max_holdings: { [demoMint('usdc')]: '1000000' } });
    await expect(
      authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: whalePolicy, signer: { secretKey: demoWallet('whale').secretKey }, storage: false }),
    ).rejects.toMatchObject({ code: 'EXCEEDS_MAX_HOLDING', status: 403 });
  });

  it('sends the caller position and reports a location outside the allowed countries', async () => {
    const paris = { geo_code: true, lat: 48.8566, long: 2.3522 };
    const allowed = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy({ ...paris, geo_code_locs: ['FR', 'DE'] }), signer: { secretKey: demoWallet('clean').secretKey }, storage: false });
    expect(allowed.alreadyAuthenticated).toBe(false);
    await expect(
      authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy({ ...paris, geo_code_locs: 'DE' }), signer: { secretKey: demoWallet('clean').secretKey }, storage: false }),
    ).rejects.toMatchObject({ code: 'LOCATION_DENIED', status: 401, body: { status: 'locdeny' } });
  });

  it('reports a wallet that signs with the wrong key as INVALID_SIGNATURE', async () => {
    const impostor = await resolveSigner({ secretKey: demoWallet('someone-else').secretKey });
    const wallet = { publicKey: demoWallet('clean').publicKey, signMessage: (message: Uint8Array) => impostor.sign!(message) };
    await expect(authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false })).rejects.toMatchObject({
      code: 'INVALID_SIGNATURE',
      status: 401,
    });
  });

  it('reports a gate that cannot be reached as NONCE_ERROR', async () => {
    await expect(
      authenticate({ baseUrl: 'http://127.0.0.1:9', feature: 'blacklist', policy: policy(), signer: { secretKey: demoWallet('clean').secretKey }, storage: false }),
    ).rejects.toMatchObject({ code: 'NONCE_ERROR', status: 0 });
  });
});
