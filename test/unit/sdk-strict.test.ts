import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { authenticate, resolveSigner, type Fetch } from '../../src/sdk/index.js';
import { fromLittleEndian, highYSpellings, ORDER, signature, smallOrderSpellings, TORSION } from '../helpers/ed25519-points.js';

/**
 * The SDK holds wallets to the gate's strict ed25519 rules before it signs or sends anything: a
 * wallet (adapter) whose key is of small order or not canonically encoded, or whose signature has an
 * R of small order or S ≥ ℓ, fails with SIGNING_ERROR and no login request goes out.
 */
const { canonical, nonCanonical } = smallOrderSpellings();
const WEAK_KEYS = [...canonical, ...nonCanonical, highYSpellings().find((bytes) => bytes[0] === 0xf0)!];
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);

function scriptedFetch(replies: Array<() => Response>) {
  const requests: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch: Fetch = async (url, init) => {
    requests.push({ url, headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])) });
    const reply = replies.shift();
    if (!reply) throw new Error('unexpected request');
    return reply();
  };
  return { fetch, requests };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const nonceReply = (extra: Record<string, unknown> = {}) => () =>
  json(200, { status: 'nonce_ready', nonce: 'n1', mechanism: 'ACME', expiresIn: 300, ...extra }, { 'X-404-Nonce': 'n1', 'X-404-Mechanism': 'ACME' });
const POLICY = { excluded_mints: [], max_holdings: {} };

describe('the SDK refuses a wallet key of small order or not canonically encoded', () => {
  it.each(WEAK_KEYS.map((key) => [bs58.encode(key), key] as const))('wallet adapter with public key %s → refused, as text, bytes and PublicKey', async (address, key) => {
    const signMessage = async () => new Uint8Array(64);
    for (const publicKey of [address, key, { toBase58: () => address }]) {
      await expect(resolveSigner({ publicKey, signMessage })).rejects.toThrow(/cannot sign in: the public key (is a point of small order|is not canonically encoded)/);
    }
  });

  it('a wallet-standard account with the System Program\'s address → refused', async () => {
    const account = { address: '11111111111111111111111111111111', publicKey: new Uint8Array(32) };
    const wallet = { accounts: [account], features: { 'solana:signMessage': { signMessage: async () => [{ signature: new Uint8Array(64) }] } } };
    await expect(resolveSigner({ wallet })).rejects.toThrow(/small order/);
  });

  it('authenticate with such a wallet → SIGNING_ERROR before any request, the wallet never asked to sign', async () => {
    const { fetch, requests } = scriptedFetch([]);
    let asked = 0;
    const wallet = { publicKey: '11111111111111111111111111111111', signMessage: async () => (asked++, new Uint8Array(64)) };
    await expect(authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch })).rejects.toMatchObject({
      code: 'SIGNING_ERROR',
      status: 0,
    });
    expect([requests.length, asked]).toEqual([0, 0]);
  });
});

describe('the SDK refuses a signature the gate would refuse whatever the message', () => {
  async function walletReturning(forge: (honest: Uint8Array) => Uint8Array) {
    const keypair = await resolveSigner({ secretKey: SEED });
    return { publicKey: keypair.address, signMessage: async (message: Uint8Array) => forge(await keypair.sign!(message)) };
  }
  const s = (sig: Uint8Array): bigint => fromLittleEndian(sig.subarray(32));

  it.each([
    ['S + ℓ (the same signature, malleated)', (honest: Uint8Array) => signature(honest.subarray(0, 32), s(honest) + ORDER), /S is not below the group order/],
    ['S = 2^256 − 1', (honest: Uint8Array) => signature(honest.subarray(0, 32), 2n ** 256n - 1n), /S is not below the group order/],
    ['R = a point of small order', (honest: Uint8Array) => signature(TORSION[3]!.toBytes(), s(honest)), /R is a point of small order/],
    ['R spelled with y ≥ p', (honest: Uint8Array) => signature(highYSpellings()[5]!, s(honest)), /R is not canonically encoded/],
  ])('%s → SIGNING_ERROR, no login sent', async (_, forge, why) => {
    const { fetch, requests } = scriptedFetch([nonceReply()]);
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: await walletReturning(forge), storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SIGNING_ERROR', status: 0 });
    expect((error as Error).message).toMatch(why);
    expect(requests).toHaveLength(1); // the nonce only
  });

  it('an honest signature from the same wallet signs in (the login is sent)', async () => {
    const { fetch, requests } = scriptedFetch([nonceReply(), () => json(200, { success: true, token: 'a.b.c', feature: 'blacklist' })]);
    const signer = await walletReturning((honest) => honest);
    await expect(authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer, storage: false, fetch })).resolves.toMatchObject({ token: 'a.b.c' });
    expect(requests).toHaveLength(2);
  });

  it('Sign In With Solana answered for a small-order account → SIGNING_ERROR, no login sent', async () => {
    const keypair = await resolveSigner({ secretKey: SEED });
    const wallet = {
      publicKey: keypair.address,
      signIn: async () => {
        const signedMessage = new TextEncoder().encode('app.example.com wants you to sign in with your Solana account:\n11111111111111111111111111111111');
        return { account: { address: '11111111111111111111111111111111' }, signedMessage, signature: signature(TORSION[0]!.toBytes(), 0n) };
      },
    };
    const offer = { signModes: ['challenge', 'siws'], siws: { domain: 'app.example.com', chainId: 'mainnet', resources: ['x404:blacklist'] } };
    const { fetch, requests } = scriptedFetch([nonceReply(offer)]);
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, signMode: 'siws', storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SIGNING_ERROR' });
    expect((error as Error).message).toMatch(/small order/);
    expect(requests).toHaveLength(1);
  });

  it('a memo transaction signed with S + ℓ → SIGNING_ERROR, no login sent', async () => {
    const keypair = await resolveSigner({ secretKey: SEED });
    const wallet = {
      publicKey: keypair.address,
      hardware: true,
      signTransaction: async (transaction: Uint8Array) => {
        const signed = await keypair.signTransaction!(transaction);
        const honest = signed.subarray(1, 65);
        signed.set(signature(honest.subarray(0, 32), s(honest) + ORDER), 1);
        return signed;
      },
    };
    const { fetch, requests } = scriptedFetch([nonceReply({ signModes: ['challenge', 'memo-tx'] })]);
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SIGNING_ERROR' });
    expect((error as Error).message).toMatch(/memo-tx.*S is not below/);
    expect(requests).toHaveLength(1);
  });
});
