import { createSignInMessage } from '@solana/wallet-standard-util';
import { PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blacklistPolicy, challenge, decodeJwt, get, getNonce, newWallet, publicKeyOf, signedHeaders } from '../helpers/client.js';
import { bareVerify, forgeWithSmallOrderR, hex, smallOrderSpellings, TORSION, signature as rsSignature } from '../helpers/ed25519-points.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';
import { agaveOffchainMessage, MEMO_PROGRAM, siwsFields, ZERO_BLOCKHASH } from '../helpers/sign-modes.js';

/**
 * Issue 25, item 1, over HTTP against the real gate and the local chain: the keyless forgery
 * (X-404-Addr = a point of small order or another spelling of one, X-404-Signature = R ‖ 0 with R a
 * small-order point) in each sign mode. Every forged request is first checked to verify under
 * node:crypto alone (what the gate did before), for that very nonce and message, so a 401 here is
 * the strict check's doing and not a forgery that failed on its own. Each answers 401
 * INVALID_SIGNATURE with no token and leaves the nonce unspent: a real wallet then signs in with it,
 * and its token re-authenticates and passes /x404_verify.
 */
let stack: Stack;
let url: string;
let banned: string;
const DOMAIN = 'app.example.com';
const FEATURE = 'blacklist';
const { canonical, nonCanonical } = smallOrderSpellings();
const FORGED_KEYS = [...canonical, ...nonCanonical];

beforeAll(async () => {
  stack = await startStack({ env: { SIWS_DOMAINS: DOMAIN } });
  url = stack.gateUrl;
  banned = stack.localnet.state.addMint({ decimals: 6, program: 'token' });
});
afterAll(async () => {
  await stack?.stop();
});

const policy = (): Record<string, string> => blacklistPolicy({ excluded: [banned] });
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

type Mode = 'challenge' | 'siws' | 'offchain' | 'offchain-rebuilt' | 'memo-tx';
const MODES: Mode[] = ['challenge', 'siws', 'offchain', 'offchain-rebuilt', 'memo-tx'];

/** The bytes a wallet `key` would sign for this nonce in `mode`, and the headers that carry them beside the signature. */
function proofFor(mode: Mode, key: Uint8Array, nonce: string): { signed: Uint8Array; headers: (signature: Uint8Array) => Record<string, string> } {
  const address = bs58.encode(key);
  const common = { 'X-404-Nonce': nonce, 'X-404-Addr': address, 'X-404-Feature': FEATURE };
  const text = challenge(nonce, FEATURE);
  switch (mode) {
    case 'challenge':
      return { signed: Buffer.from(text), headers: (sig) => ({ ...common, 'X-404-Signature': bs58.encode(sig) }) };
    case 'siws': {
      const message = createSignInMessage(siwsFields(newWallet(), nonce, FEATURE, { address }));
      return { signed: message, headers: (sig) => ({ ...common, 'X-404-Sign-Mode': 'siws', 'X-404-Message': b64(message), 'X-404-Signature': bs58.encode(sig) }) };
    }
    case 'offchain':
    case 'offchain-rebuilt': {
      // Sent, or left for the gate to rebuild (the bytes `solana sign-offchain-message` signs).
      const message = agaveOffchainMessage(text);
      const sent: Record<string, string> = mode === 'offchain' ? { 'X-404-Message': b64(message) } : {};
      return { signed: message, headers: (sig) => ({ ...common, 'X-404-Sign-Mode': 'offchain', ...sent, 'X-404-Signature': bs58.encode(sig) }) };
    }
    case 'memo-tx': {
      // As @solana/web3.js builds it for a fee payer whose key nobody holds: the signature is added, not made.
      const payer = new PublicKey(key);
      const memo = new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [{ pubkey: payer, isSigner: true, isWritable: false }], data: Buffer.from(text) });
      const transaction = new Transaction({ feePayer: payer, recentBlockhash: ZERO_BLOCKHASH }).add(memo);
      const message = new Uint8Array(transaction.serializeMessage());
      return {
        signed: message,
        headers: (sig) => {
          transaction.addSignature(payer, Buffer.from(sig));
          const wire = transaction.serialize({ requireAllSignatures: true, verifySignatures: false });
          return { ...common, 'X-404-Sign-Mode': 'memo-tx', 'X-404-Message': b64(wire), 'X-404-Signature': bs58.encode(sig) };
        },
      };
    }
  }
}

interface Forgery {
  nonce: string;
  headers: Record<string, string>;
  signed: Uint8Array;
  signature: Uint8Array;
}

/**
 * A nonce whose message node:crypto alone accepts R ‖ 0 for, with R one of the 8 small-order
 * points (most nonces: a few tries at most).
 */
async function forge(gateUrl: string, mode: Mode, key: Uint8Array): Promise<Forgery> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const { nonce } = await getNonce(gateUrl, FEATURE);
    const proof = proofFor(mode, key, nonce);
    const signature = forgeWithSmallOrderR(key, proof.signed);
    if (signature) return { nonce, headers: proof.headers(signature), signed: proof.signed, signature };
  }
  throw new Error(`no nonce gave a forgery for ${hex(key)} in ${mode}`);
}

/** A refusal must not spend the nonce: a real wallet signs in with it (challenge mode), and its token works. */
async function expectNonceUnspent(gateUrl: string, nonce: string): Promise<string> {
  const secret = newWallet();
  stack.localnet.state.setLamports(publicKeyOf(secret), 1_000_000_000);
  const { status, body } = await get(`${gateUrl}/x404_auth/${FEATURE}`, { ...policy(), ...signedHeaders(secret, nonce, FEATURE) });
  expect([status, body.error, body.publicKey]).toEqual([200, undefined, publicKeyOf(secret)]);
  return body.token as string;
}

describe.each(MODES)('sign mode %s: the keyless forgery', (mode) => {
  it.each(FORGED_KEYS.map((key) => [bs58.encode(key), key] as const))(
    'X-404-Addr %s, R = a small-order point, S = 0 (node:crypto alone accepts it) → 401 INVALID_SIGNATURE, no token, nonce unspent',
    async (_, key) => {
      const forgery = await forge(url, mode, key);
      expect(bareVerify(key, forgery.signed, forgery.signature)).toBe(true);
      const { status, body } = await get(`${url}/x404_auth/${FEATURE}`, { ...policy(), ...forgery.headers });
      expect([status, body.error]).toEqual([401, 'INVALID_SIGNATURE']);
      expect(body.token).toBeUndefined();
      await expectNonceUnspent(url, forgery.nonce);
    },
  );
});

describe('what the forgery was worth, and what still works', () => {
  it('the System Program (32 zero bytes, a point of order 4) holding the gold tier\'s tokens is not signed in, and gets no tier', async () => {
    const systemProgram = '11111111111111111111111111111111';
    expect(hex(bs58.decode(systemProgram))).toBe(hex(TORSION.find((point) => point.toHex() === '00'.repeat(32))!.toBytes()));
    const gold = stack.localnet.state.addMint({ decimals: 0, program: 'token' });
    stack.localnet.state.addTokenAccount({ owner: systemProgram, mint: gold, amount: 1_000, program: 'token' });
    const tier = { tier_config: JSON.stringify({ gold: { mint: gold, amount: '1' } }) };
    let forged: Forgery | undefined;
    for (let attempt = 0; attempt < 40 && !forged; attempt++) {
      const { nonce } = await getNonce(url, 'tier');
      const signature = forgeWithSmallOrderR(bs58.decode(systemProgram), challenge(nonce, 'tier'));
      if (signature) forged = { nonce, signed: Buffer.from(challenge(nonce, 'tier')), signature, headers: { 'X-404-Nonce': nonce, 'X-404-Addr': systemProgram, 'X-404-Feature': 'tier', 'X-404-Signature': bs58.encode(signature) } };
    }
    const { status, body } = await get(`${url}/x404_auth/tier`, { ...tier, ...forged!.headers });
    expect([status, body.error, body.tier, body.token]).toEqual([401, 'INVALID_SIGNATURE', undefined, undefined]);
    // The policy itself grants gold to a holder who signs.
    const holder = newWallet();
    stack.localnet.state.addTokenAccount({ owner: publicKeyOf(holder), mint: gold, amount: 5, program: 'token' });
    const { nonce } = await getNonce(url, 'tier');
    const granted = await get(`${url}/x404_auth/tier`, { ...tier, ...signedHeaders(holder, nonce, 'tier') });
    expect([granted.status, granted.body.tier]).toEqual([200, 'gold']);
  });

  it('a real wallet\'s token after a refused forgery re-authenticates and passes /x404_verify', async () => {
    const forgery = await forge(url, 'challenge', canonical[0]!);
    expect((await get(`${url}/x404_auth/${FEATURE}`, { ...policy(), ...forgery.headers })).status).toBe(401);
    const token = await expectNonceUnspent(url, forgery.nonce);
    const reauth = await get(`${url}/x404_auth/${FEATURE}`, { 'x-jwt': token, ...policy() });
    expect(reauth.body).toMatchObject({ success: true, alreadyAuthenticated: true, publicKey: decodeJwt(token).sub });
    const verified = await get(`${url}/x404_verify?feature=${FEATURE}`, { Authorization: `Bearer ${token}` });
    expect([verified.status, verified.headers.get('x-404-wallet')]).toEqual([200, decodeJwt(token).sub]);
  });

  it('a real wallet\'s signature with S + ℓ, or with R replaced by a small-order point → 401, nonce unspent', async () => {
    const secret = newWallet();
    const { nonce } = await getNonce(url, FEATURE);
    const good = signedHeaders(secret, nonce, FEATURE);
    const sig = bs58.decode(good['X-404-Signature']!);
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]!);
    const order = 2n ** 252n + 27742317777372353535851937790883648493n;
    const malleated = rsSignature(sig.subarray(0, 32), s + order);
    const smallR = rsSignature(TORSION[0]!.toBytes(), s);
    for (const variant of [malleated, smallR]) {
      const answer = await get(`${url}/x404_auth/${FEATURE}`, { ...policy(), ...good, 'X-404-Signature': bs58.encode(variant) });
      expect([answer.status, answer.body.error]).toEqual([401, 'INVALID_SIGNATURE']);
    }
    const { status } = await get(`${url}/x404_auth/${FEATURE}`, { ...policy(), ...good });
    expect(status).toBe(200);
  });
});

describe('WORKER_THREADS=0 (signatures verified on the event loop)', () => {
  let gate: GateProcess;
  beforeAll(async () => {
    gate = await startGate({ rpcUrl: stack.localnet.url, env: { WORKER_THREADS: '0', JWT_SECRET: stack.jwtSecret, SIWS_DOMAINS: DOMAIN } });
  });
  afterAll(async () => {
    await gate?.stop('SIGKILL');
  });

  it.each(['challenge', 'siws', 'memo-tx'] as const)('refuses the forgery in %s mode for every small-order key and spelling', async (mode) => {
    for (const key of FORGED_KEYS) {
      const forgery = await forge(gate.url, mode, key);
      const { status, body } = await get(`${gate.url}/x404_auth/${FEATURE}`, { ...policy(), ...forgery.headers });
      expect([status, body.error], bs58.encode(key)).toEqual([401, 'INVALID_SIGNATURE']);
    }
  });
});

it('the forged keys are the 8 small-order points and the 6 other spellings OpenSSL decodes to them', () => {
  expect(FORGED_KEYS).toHaveLength(14);
  expect(new Set(FORGED_KEYS.map(hex)).size).toBe(14);
  expect(FORGED_KEYS.map((key) => bs58.encode(key))).toContain('11111111111111111111111111111111');
});
