import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import {
  authenticate,
  buildChallenge,
  decodeTokenClaims,
  memoryStorage,
  policyToHeaders,
  resolveSigner,
  storageKey,
  X404Error,
  type Fetch,
} from '../../src/sdk/index.js';

const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));

// RFC 8032 §7.1, TEST 1 and TEST 2.
const RFC8032 = [
  {
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

const WALLET_SEED = hex('1f'.repeat(32));

async function keypairBytes(seed = WALLET_SEED): Promise<Uint8Array> {
  const { address } = await resolveSigner({ secretKey: seed });
  return Uint8Array.from([...seed, ...bs58.decode(address)]);
}

describe('challenge', () => {
  it('is CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE> with the mechanism the gate sent', () => {
    expect(buildChallenge('abc_-9', 'blacklist', 'SERVICE404')).toBe('CHALLENGE::abc_-9::/x404_auth/blacklist::SERVICE404_BLACKLIST');
    expect(buildChallenge('n', 'nodebt', 'ACME')).toBe('CHALLENGE::n::/x404_auth/nodebt::ACME_NODEBT');
  });
});

describe('policyToHeaders', () => {
  it('serializes a blacklist policy to the header strings the contract names', () => {
    const headers = policyToHeaders('blacklist', {
      excluded_mints: ['So11111111111111111111111111111111111111112'],
      max_holdings: { EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: '1000000' },
      geo_code: true,
      geo_code_locs: ['DE', 'FR'],
      lat: 48.85,
      long: '2.35',
    });
    expect(headers.policy).toEqual({
      excluded_mints: '["So11111111111111111111111111111111111111112"]',
      max_holdings: '{"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v":"1000000"}',
      geo_code: 'true',
      geo_code_locs: 'DE,FR',
    });
    expect(headers.location).toEqual({ 'x-lat': '48.85', 'x-long': '2.35' });
  });

  it('turns blacklist geolocation off by default, because the gate requires both headers there', () => {
    expect(policyToHeaders('blacklist', { excluded_mints: [], max_holdings: {} }).policy).toEqual({
      excluded_mints: '[]',
      max_holdings: '{}',
      geo_code: 'false',
      geo_code_locs: '',
    });
    expect(policyToHeaders('age', { min_wallet_age_days: 30 }).policy).toEqual({ min_wallet_age_days: '30' });
  });

  it('passes header strings through exactly and skips absent entries', () => {
    const raw = '[ "So11111111111111111111111111111111111111112" ]';
    const { policy } = policyToHeaders('multitoken', {
      required_tokens: raw,
      verification_mode: undefined,
      geo_code: 'false',
    });
    expect(policy).toEqual({ required_tokens: raw, geo_code: 'false' });
    expect(policyToHeaders('tier', { tier_config: { gold: { mint: 'M', amount: 10n as unknown as string } } }).policy.tier_config).toBe(
      '{"gold":{"mint":"M","amount":"10"}}',
    );
  });
});

describe('resolveSigner', () => {
  it.each(RFC8032)('signs like RFC 8032 with a 64-byte keypair (vector $public)', async (vector) => {
    const signer = await resolveSigner({ secretKey: [...hex(vector.secret), ...hex(vector.public)] });
    expect(signer.address).toBe(bs58.encode(hex(vector.public)));
    expect(Buffer.from(await signer.sign!(hex(vector.message))).toString('hex')).toBe(vector.signature);
  });

  it('produces signatures node:crypto verifies (a second implementation)', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const signer = await resolveSigner({ secretKey: Uint8Array.from([...seed, ...raw]) });
    const message = new TextEncoder().encode(buildChallenge('nonce', 'blacklist', 'SERVICE404'));
    const signature = await signer.sign!(message);
    expect(Buffer.from(signature).equals(nodeSign(null, message, privateKey))).toBe(true);
  });

  it('refuses a keypair whose public half does not belong to its seed', async () => {
    const keypair = await keypairBytes();
    keypair[40] = (keypair[40] as number) ^ 1;
    await expect(resolveSigner({ secretKey: keypair })).rejects.toThrow(/inconsistent/);
    await expect(resolveSigner({ secretKey: new Uint8Array(10) })).rejects.toThrow(/64 bytes/);
  });

  it('accepts wallet adapters that return bytes or { signature }, and PublicKey objects', async () => {
    const keypair = await resolveSigner({ secretKey: await keypairBytes() });
    const phantomLike = {
      publicKey: { toBase58: () => keypair.address },
      signMessage: async (message: Uint8Array) => ({ signature: await keypair.sign!(message), publicKey: keypair.address }),
    };
    const solflareLike = { publicKey: bs58.decode(keypair.address), signMessage: (message: Uint8Array) => keypair.sign!(message) };
    const message = new TextEncoder().encode('hello');
    const expected = await keypair.sign!(message);
    for (const wallet of [phantomLike, solflareLike]) {
      const signer = await resolveSigner(wallet);
      expect(signer.address).toBe(keypair.address);
      expect(await signer.sign!(message)).toEqual(expected);
    }
  });
});

describe('decodeTokenClaims', () => {
  it('reads the payload of a JWT and rejects what is not one', () => {
    const payload = { sub: 'W', feature: 'blacklist', iat: 1, exp: 2, jti: 'j', pol: 'p', tier: 'gold' };
    const token = `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    expect(decodeTokenClaims(token)).toEqual(payload);
    expect(decodeTokenClaims('not-a-token')).toBeUndefined();
    expect(decodeTokenClaims(`e30.${Buffer.from('{"sub":1}').toString('base64url')}.x`)).toBeUndefined();
  });
});

/** A scripted gate: answers each request with the next reply and records what was sent. */
function scriptedFetch(replies: Array<(url: string, headers: Record<string, string>) => Response | Promise<Response>>) {
  const requests: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch: Fetch = async (url, init) => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    requests.push({ url, headers });
    const reply = replies.shift();
    if (!reply) throw new Error('unexpected request');
    return reply(url, headers);
  };
  return { fetch, requests };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const nonceReply = () => json(200, { status: 'nonce_ready', nonce: 'n1', mechanism: 'ACME', expiresIn: 300 }, { 'X-404-Nonce': 'n1', 'X-404-Mechanism': 'ACME' });
const POLICY = { excluded_mints: [], max_holdings: {} };

describe('authenticate error mapping', () => {
  it('reports an unreachable gate as NONCE_ERROR with status 0', async () => {
    const { fetch } = scriptedFetch([
      () => {
        throw new TypeError('fetch failed');
      },
    ]);
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: { secretKey: await keypairBytes() }, storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(X404Error);
    expect(error).toMatchObject({ code: 'NONCE_ERROR', status: 0 });
  });

  it('rejects with the AbortError when the caller aborts, not with an X404Error', async () => {
    const controller = new AbortController();
    controller.abort();
    const fetch: Fetch = (url, init) => globalThis.fetch(url, init);
    const error = await authenticate({ baseUrl: 'http://127.0.0.1:9', feature: 'blacklist', policy: POLICY, signer: { secretKey: await keypairBytes() }, storage: false, fetch, signal: controller.signal }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(X404Error);
    expect((error as Error).name).toBe('AbortError');
  });

  it('reports a refused nonce as NONCE_ERROR carrying the gate status, body and Retry-After', async () => {
    const { fetch } = scriptedFetch([() => json(429, { error: 'RATE_LIMITED', message: 'slow down' }, { 'Retry-After': '7' })]);
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: { secretKey: await keypairBytes() }, storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NONCE_ERROR', status: 429, body: { error: 'RATE_LIMITED' }, retryAfterSeconds: 7 });
  });

  it('reports a wallet that refuses to sign as SIGNING_ERROR and sends no login', async () => {
    const { fetch, requests } = scriptedFetch([nonceReply]);
    const wallet = { publicKey: bs58.encode(new Uint8Array(32).fill(3)), signMessage: async () => Promise.reject(new Error('User rejected the request.')) };
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SIGNING_ERROR', status: 0 });
    expect((error as Error).message).toContain('User rejected');
    expect(requests).toHaveLength(1);
  });

  it('reports a disconnected wallet as SIGNING_ERROR before calling the gate', async () => {
    const { fetch, requests } = scriptedFetch([]);
    const wallet = { publicKey: null, signMessage: async () => new Uint8Array(64) };
    await expect(authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, fetch })).rejects.toMatchObject({ code: 'SIGNING_ERROR' });
    expect(requests).toHaveLength(0);
  });

  it('signs the challenge built from the X-404-Mechanism header and sends the contract headers with a cache buster', async () => {
    const secretKey = await keypairBytes();
    const signer = await resolveSigner({ secretKey });
    const { fetch, requests } = scriptedFetch([nonceReply, () => json(200, { success: true, token: 'a.b.c', publicKey: signer.address, feature: 'blacklist' })]);
    const result = await authenticate({ baseUrl: 'http://gate/', feature: 'blacklist', policy: POLICY, signer: { secretKey }, storage: false, fetch });
    expect(result).toMatchObject({ token: 'a.b.c', alreadyAuthenticated: false, publicKey: signer.address });
    const login = requests[1]!;
    expect(login.url).toMatch(/^http:\/\/gate\/x404_auth\/blacklist\?_t=\d+$/);
    expect(requests[0]!.headers).toEqual({});
    const expectedSignature = bs58.encode(await signer.sign!(new TextEncoder().encode('CHALLENGE::n1::/x404_auth/blacklist::ACME_BLACKLIST')));
    expect(login.headers).toEqual({
      'x-404-nonce': 'n1',
      'x-404-signature': expectedSignature,
      'x-404-addr': signer.address,
      'x-404-feature': 'blacklist',
      excluded_mints: '[]',
      max_holdings: '{}',
      geo_code: 'false',
      geo_code_locs: '',
    });
  });

  it('under an operator policy sends X-404-Policy and only what the page gave: no blacklist defaults', async () => {
    const secretKey = await keypairBytes();
    const signer = await resolveSigner({ secretKey });
    const success = (): Response => json(200, { success: true, token: 'a.b.c', publicKey: signer.address, feature: 'blacklist' });
    let { fetch, requests } = scriptedFetch([nonceReply, success]);
    await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policyName: 'launch', signer: { secretKey }, storage: false, fetch });
    expect(requests[1]!.headers).toEqual({ 'x-404-nonce': 'n1', 'x-404-signature': expect.any(String), 'x-404-addr': signer.address, 'x-404-feature': 'blacklist', 'x-404-policy': 'launch' });
    // A position still goes along (geolocation policies), and a stored token is re-checked under the name.
    const storage = memoryStorage();
    ({ fetch, requests } = scriptedFetch([nonceReply, success]));
    await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policyName: 'launch', policy: { lat: 1, long: 2 }, signer: { secretKey }, storage, fetch });
    expect(requests[1]!.headers).toMatchObject({ 'x-lat': '1', 'x-long': '2', 'x-404-policy': 'launch' });
    expect(requests[1]!.headers).not.toHaveProperty('geo_code');
    const valid = `e30.${Buffer.from(JSON.stringify({ sub: signer.address, feature: 'blacklist', exp: 9_999_999_999 })).toString('base64url')}.s`;
    await storage.set(storageKey('http://gate', 'blacklist', signer.address), valid);
    ({ fetch, requests } = scriptedFetch([() => json(200, { success: true, alreadyAuthenticated: true, publicKey: signer.address, feature: 'blacklist' })]));
    await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policyName: 'launch', signer: { secretKey }, storage, fetch });
    expect(requests[0]!.headers).toEqual({ 'x-jwt': valid, 'x-404-feature': 'blacklist', 'x-404-policy': 'launch' });
  });

  it('maps gate error bodies to their codes, including location outcomes that carry only status', async () => {
    const secretKey = await keypairBytes();
    const cases: Array<[Response, object]> = [
      [json(500, { error: 'HOLDS_BANNED_TOKEN', message: 'holds X', mint: 'X' }), { code: 'HOLDS_BANNED_TOKEN', status: 500, body: { mint: 'X' } }],
      [json(401, { status: 'locdeny', message: 'no' }), { code: 'LOCATION_DENIED', status: 401 }],
      [json(503, { error: 'UPSTREAM_UNAVAILABLE', message: 'rpc' }, { 'Retry-After': '2' }), { code: 'UPSTREAM_UNAVAILABLE', retryAfterSeconds: 2 }],
      [new Response('<html>bad gateway</html>', { status: 502 }), { code: 'UNEXPECTED_RESPONSE', status: 502 }],
    ];
    for (const [reply, expected] of cases) {
      const { fetch } = scriptedFetch([nonceReply, () => reply]);
      await expect(authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: { secretKey }, storage: false, fetch })).rejects.toMatchObject(expected);
    }
  });

  it('skips re-authentication with an expired stored token and drops it', async () => {
    const secretKey = await keypairBytes();
    const signer = await resolveSigner({ secretKey });
    const storage = memoryStorage();
    const key = storageKey('http://gate', 'blacklist', signer.address);
    const expired = `e30.${Buffer.from(JSON.stringify({ sub: signer.address, feature: 'blacklist', exp: 1 })).toString('base64url')}.s`;
    await storage.set(key, expired);
    const { fetch, requests } = scriptedFetch([nonceReply, () => json(200, { success: true, token: 'new.t.k', publicKey: signer.address, feature: 'blacklist' })]);
    await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: { secretKey }, storage, fetch });
    expect(requests.every((request) => request.headers['x-jwt'] === undefined)).toBe(true);
    expect(await storage.get(key)).toBe('new.t.k');
  });
});

describe('authenticate: one retry of a login the gate could not serve', () => {
  const unavailable = (nonceSpent: boolean | undefined, retryAfter = '0') =>
    json(503, { error: 'UPSTREAM_UNAVAILABLE', message: 'rpc', ...(nonceSpent === undefined ? {} : { nonceSpent }) }, { 'Retry-After': retryAfter });

  /** A wallet that counts how often it is asked to sign. */
  async function countingWallet() {
    const signer = await resolveSigner({ secretKey: await keypairBytes() });
    const wallet = {
      signs: 0,
      publicKey: signer.address,
      signMessage: async (message: Uint8Array) => {
        wallet.signs++;
        return signer.sign!(message);
      },
    };
    return { wallet, address: signer.address };
  }

  it('sends the same signed request once more after Retry-After when the nonce was not spent, without a second signature', async () => {
    const { wallet, address } = await countingWallet();
    const { fetch, requests } = scriptedFetch([
      nonceReply,
      () => unavailable(false, '1'),
      () => json(200, { success: true, token: 'a.b.c', publicKey: address, feature: 'blacklist' }),
    ]);
    const started = performance.now();
    const result = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch });
    expect(result.token).toBe('a.b.c');
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(wallet.signs).toBe(1);
    expect(requests).toHaveLength(3);
    expect(requests[2]!.headers).toEqual(requests[1]!.headers);
  });

  it('retries once only, and not at all when the nonce is spent or the gate does not say', async () => {
    const { wallet } = await countingWallet();
    const twice = scriptedFetch([nonceReply, () => unavailable(false), () => unavailable(false)]);
    await expect(authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch: twice.fetch })).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      body: { nonceSpent: false },
    });
    expect(twice.requests).toHaveLength(3);
    for (const nonceSpent of [true, undefined]) {
      const once = scriptedFetch([nonceReply, () => unavailable(nonceSpent)]);
      await expect(authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch: once.fetch })).rejects.toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        status: 503,
      });
      expect(once.requests).toHaveLength(2);
    }
    expect(wallet.signs).toBe(3);
  });

  it('stops waiting for the retry when the caller aborts, with the abort reason', async () => {
    const { wallet } = await countingWallet();
    const controller = new AbortController();
    const { fetch, requests } = scriptedFetch([
      nonceReply,
      () => {
        setTimeout(() => controller.abort(), 50);
        return unavailable(false, '5');
      },
    ]);
    const started = performance.now();
    const error = await authenticate({ baseUrl: 'http://gate', feature: 'blacklist', policy: POLICY, signer: wallet, storage: false, fetch, signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(4000);
    expect(requests).toHaveLength(2);
  });
});

describe('sdk sources', () => {
  it('import nothing Node-only, so they run in browsers and edge runtimes', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = new URL('../../src/sdk/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      expect(source, file).not.toMatch(/from ['"](node:|fs|path|crypto|buffer|os|util)['"/]/);
      expect(source, file).not.toMatch(/\bBuffer\b|process\./);
    }
  });
});
