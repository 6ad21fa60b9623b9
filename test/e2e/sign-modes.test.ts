import { Keypair, SystemProgram } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blacklistPolicy, challenge, decodeJwt, get, getNonce, newWallet, publicKeyOf } from '../helpers/client.js';
import { runGateExpectingExit, startGate, startStack, testSecret, type Stack } from '../helpers/gate.js';
import {
  agaveOffchainMessage,
  ledgerOffchainMessage,
  memoTransaction,
  memoTxHeaders,
  offchainHeaders,
  siwsFields,
  siwsHeaders,
} from '../helpers/sign-modes.js';

/**
 * The four proofs of one challenge, end to end against the real gate (child process) and the local
 * chain: the seed's challenge string, Sign In With Solana, the off-chain message format and the memo
 * transaction. Messages are produced the way wallets and tools produce them (test/helpers/sign-modes.ts).
 * Every refusal leaves the nonce unspent: the same nonce then signs in with a correct message.
 */
let stack: Stack;
let url: string;
let banned: string;
const DOMAIN = 'app.example.com';

beforeAll(async () => {
  stack = await startStack({ env: { SIWS_DOMAINS: `${DOMAIN},localhost:5173`, SIWS_STATEMENT: 'Sign in to the launch' } });
  url = stack.gateUrl;
  banned = stack.localnet.state.addMint({ decimals: 6, program: 'token' });
});
afterAll(async () => {
  await stack?.stop();
});

const policy = (): Record<string, string> => blacklistPolicy({ excluded: [banned] });
const login = (headers: Record<string, string>) => get(`${url}/x404_auth/blacklist`, { ...policy(), ...headers });

function wallet(): Uint8Array {
  const secret = newWallet();
  stack.localnet.state.setLamports(publicKeyOf(secret), 1_000_000_000);
  return secret;
}

/** A refusal must not spend the nonce: a correct proof with the same nonce still signs in. */
async function expectNonceUnspent(secret: Uint8Array, nonce: string): Promise<void> {
  const { status, body } = await login(siwsHeaders(secret, nonce, 'blacklist', siwsFields(secret, nonce, 'blacklist')));
  expect([status, body.error]).toEqual([200, undefined]);
}

describe('the nonce answer says how to sign in', () => {
  it('lists the sign modes and what a Sign In With Solana input needs; the nonce is alphanumeric', async () => {
    const { nonce, result } = await getNonce(url, 'tier');
    expect(nonce).toMatch(/^[A-Za-z0-9]{8,64}$/);
    expect(result.body).toMatchObject({
      signModes: ['challenge', 'siws', 'offchain', 'memo-tx'],
      siws: { domain: DOMAIN, domains: [DOMAIN, 'localhost:5173'], statement: 'Sign in to the launch', chainId: 'mainnet', resources: ['x404:tier'] },
    });
    // The nonce's issue time by the gate's clock, for the message's Issued At.
    expect(Math.abs(Date.parse(result.body.siws.issuedAt) - Date.now())).toBeLessThan(5_000);
  });
});

describe('siws: Sign In With Solana', () => {
  it('signs in with the wallet-standard message; the token records sgm: siws; the nonce is then spent', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const headers = siwsHeaders(secret, nonce, 'blacklist', siwsFields(secret, nonce, 'blacklist'));
    const { status, body } = await login(headers);
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, publicKey: publicKeyOf(secret), feature: 'blacklist' });
    expect(decodeJwt(body.token)).toMatchObject({ sub: publicKeyOf(secret), feature: 'blacklist', sgm: 'siws' });
    const again = await login(headers);
    expect([again.status, again.body.error]).toEqual([401, 'NONCE_REUSED']);
  });

  it('accepts the minimal message a page on another allowed domain builds (no statement, solana: chain id, http localhost)', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const fields = siwsFields(secret, nonce, 'blacklist', { domain: 'localhost:5173', uri: 'http://localhost:5173/', chainId: 'solana:mainnet', statement: undefined, version: undefined });
    const { status } = await login(siwsHeaders(secret, nonce, 'blacklist', fields));
    expect(status).toBe(200);
  });

  const minute = 60_000;
  const refusals: [string, (secret: Uint8Array, nonce: string) => Partial<Parameters<typeof siwsFields>[3]>, number, string, string][] = [
    ['a message for another domain', () => ({ domain: 'phish.example' }), 401, 'INVALID_SIGNATURE', 'domain'],
    ['a URI on another domain', () => ({ uri: 'https://phish.example/launch' }), 401, 'INVALID_SIGNATURE', 'URI'],
    ['another address', () => ({ address: publicKeyOf(newWallet()) }), 401, 'INVALID_SIGNATURE', 'address'],
    ['another feature', () => ({ resources: ['x404:tier'] }), 401, 'INVALID_SIGNATURE', 'Resources'],
    ['no feature resource', () => ({ resources: undefined }), 401, 'INVALID_SIGNATURE', 'Resources'],
    ['another nonce', () => ({ nonce: 'abcdefgh12345678' }), 401, 'INVALID_SIGNATURE', 'Nonce'],
    ['an expired message', () => ({ expirationTime: new Date(Date.now() - minute).toISOString() }), 401, 'INVALID_SIGNATURE', 'Expiration Time'],
    ['a message not valid yet', () => ({ notBefore: new Date(Date.now() + 10 * minute).toISOString() }), 401, 'INVALID_SIGNATURE', 'Not Before'],
    ['issued in the future', () => ({ issuedAt: new Date(Date.now() + 10 * minute).toISOString() }), 401, 'INVALID_SIGNATURE', 'Issued At'],
    ['another chain', () => ({ chainId: 'devnet' }), 401, 'INVALID_SIGNATURE', 'Chain ID'],
    ['a nonce that is not alphanumeric', () => ({ nonce: 'abc-def_ghi' }), 400, 'INVALID_HEADER', 'X-404-Message'],
  ];
  it.each(refusals)('%s → %i %s naming %s, nonce not spent', async (_, change, status, code, field) => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const fields = { ...siwsFields(secret, nonce, 'blacklist'), ...change(secret, nonce) };
    const answer = await login(siwsHeaders(secret, nonce, 'blacklist', fields));
    expect([answer.status, answer.body.error]).toEqual([status, code]);
    expect(answer.body.message).toContain(field);
    await expectNonceUnspent(secret, nonce);
  });

  it('a message signed by another key, non-UTF-8 bytes, bad base64 or no message at all → 401 / 400, nonce not spent', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const good = siwsHeaders(secret, nonce, 'blacklist', siwsFields(secret, nonce, 'blacklist'));
    const forged = siwsHeaders(secret, nonce, 'blacklist', siwsFields(secret, nonce, 'blacklist'), newWallet());
    const notUtf8 = { ...good, 'X-404-Message': Buffer.concat([Buffer.from(atob(good['X-404-Message']!), 'latin1'), Buffer.from([0xc3, 0x28])]).toString('base64') };
    const { 'X-404-Message': _, ...withoutMessage } = good;
    const answers = await Promise.all([forged, notUtf8, { ...good, 'X-404-Message': 'not base64!' }, withoutMessage].map(login));
    expect(answers.map((answer) => [answer.status, answer.body.error])).toEqual([
      [401, 'INVALID_SIGNATURE'],
      [400, 'INVALID_HEADER'],
      [400, 'INVALID_HEADER'],
      [400, 'MISSING_HEADER'],
    ]);
    expect(answers[1]!.body.message).toMatch(/UTF-8/);
    await expectNonceUnspent(secret, nonce);
  });
});

describe('offchain: the Solana off-chain message', () => {
  it('signs in with the bytes `solana sign-offchain-message` signs, sent or left for the gate to rebuild', async () => {
    for (const sendMessage of [true, false]) {
      const secret = wallet();
      const { nonce } = await getNonce(url, 'blacklist');
      const message = agaveOffchainMessage(challenge(nonce, 'blacklist'));
      const { status, body } = await login(offchainHeaders(secret, nonce, 'blacklist', sendMessage ? message : undefined));
      expect([status, body.error]).toEqual([200, undefined]);
      expect(decodeJwt(body.token).sgm).toBe('offchain');
    }
  });

  it('signs in with the v0 layout Ledger signs (application domain, the wallet as signer)', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const message = ledgerOffchainMessage(challenge(nonce, 'blacklist'), [secret.slice(32)]);
    const { status } = await login(offchainHeaders(secret, nonce, 'blacklist', message));
    expect(status).toBe(200);
  });

  it('a wrong header version, another signer, a body one byte off, a truncated message → refused naming the field, nonce not spent', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const text = challenge(nonce, 'blacklist');
    const oneByteOff = `${text.slice(0, -1)}${text.endsWith('T') ? 'S' : 'T'}`;
    const cases: [Uint8Array, number, string, RegExp][] = [
      [agaveOffchainMessage(text, { version: 2 }), 400, 'INVALID_HEADER', /version/],
      [ledgerOffchainMessage(text, [newWallet().slice(32)]), 401, 'INVALID_SIGNATURE', /signer/],
      [agaveOffchainMessage(oneByteOff), 401, 'INVALID_SIGNATURE', /body/],
      [agaveOffchainMessage(text).subarray(0, 40), 400, 'INVALID_HEADER', /length/],
    ];
    for (const [message, status, code, field] of cases) {
      const answer = await login(offchainHeaders(secret, nonce, 'blacklist', message));
      expect([answer.status, answer.body.error]).toEqual([status, code]);
      expect(answer.body.message).toMatch(field);
    }
    await expectNonceUnspent(secret, nonce);
  });
});

describe('memo-tx: a memo transaction that can never land', () => {
  it.each([
    ['a legacy Transaction', { version: 'legacy' as const }],
    ['a v0 VersionedTransaction', { version: 0 as const }],
    ['with a compute-unit price first', { version: 'legacy' as const, computeUnitPrice: 1 }],
  ])('signs in with %s signed by the wallet; sgm: memo-tx', async (_, options) => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const { wire, signature } = memoTransaction(secret, nonce, 'blacklist', options);
    const { status, body } = await login(memoTxHeaders(wire, signature, secret, nonce, 'blacklist'));
    expect([status, body.error]).toEqual([200, undefined]);
    expect(decodeJwt(body.token).sgm).toBe('memo-tx');
  });

  it('an extra instruction, a second signer, a real blockhash, a memo one byte off → 401 naming the field, nonce not spent', async () => {
    const secret = wallet();
    const keypair = Keypair.fromSecretKey(secret);
    const { nonce } = await getNonce(url, 'blacklist');
    const text = challenge(nonce, 'blacklist');
    const transfer = SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 });
    const cases: [string, Parameters<typeof memoTransaction>[3]][] = [
      ['instructions', { after: [transfer] }],
      ['signers', { coSigners: [Keypair.generate()] }],
      ['recentBlockhash', { blockhash: Keypair.generate().publicKey.toBase58() }],
      ['memo', { memo: `${text.slice(0, -1)}X` }],
    ];
    for (const [field, options] of cases) {
      const { wire, signature } = memoTransaction(secret, nonce, 'blacklist', options);
      const answer = await login(memoTxHeaders(wire, signature, secret, nonce, 'blacklist'));
      expect([answer.status, answer.body.error, answer.body.field]).toEqual([401, 'INVALID_SIGNATURE', field]);
    }
    await expectNonceUnspent(secret, nonce);
  });

  it('over 1232 bytes, truncated, or a trailing byte → 400 INVALID_HEADER, nonce not spent', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const { wire, signature } = memoTransaction(secret, nonce, 'blacklist');
    const variants = [Buffer.concat([wire, Buffer.alloc(1233 - wire.length)]), wire.subarray(0, wire.length - 10), Buffer.concat([wire, Buffer.from([0])])];
    for (const variant of variants) {
      const answer = await login(memoTxHeaders(variant, signature, secret, nonce, 'blacklist'));
      expect([answer.status, answer.body.error, answer.body.header]).toEqual([400, 'INVALID_HEADER', 'X-404-Message']);
    }
    await expectNonceUnspent(secret, nonce);
  });
});

describe('SIGN_MODES', () => {
  it('a mode the gate does not accept → 400 INVALID_HEADER listing the ones it does; an unknown mode likewise', async () => {
    const gate = await startGate({ rpcUrl: stack.localnet.url, env: { SIGN_MODES: 'challenge,memo-tx' } });
    try {
      const secret = wallet();
      const { nonce, result } = await getNonce(gate.url, 'blacklist');
      expect(result.body.signModes).toEqual(['challenge', 'memo-tx']);
      expect(result.body.siws).toBeUndefined();
      for (const mode of ['offchain', 'siws', 'carrier-pigeon']) {
        const answer = await get(`${gate.url}/x404_auth/blacklist`, { ...policy(), ...offchainHeaders(secret, nonce, 'blacklist', undefined), 'X-404-Sign-Mode': mode });
        expect([answer.status, answer.body.error, answer.body.header]).toEqual([400, 'INVALID_HEADER', 'X-404-Sign-Mode']);
        expect(answer.body.message).toContain('challenge, memo-tx');
      }
    } finally {
      await gate.stop('SIGKILL');
    }
  });

  it('siws without SIWS_DOMAINS, or an unknown mode, stops start-up naming the variable', async () => {
    const base = { JWT_SECRET: testSecret(), SOLANA_RPC_URL: stack.localnet.url, PORT: '0' };
    for (const [env, variable] of [
      [{ SIGN_MODES: 'challenge,siws' }, 'SIGN_MODES'],
      [{ SIGN_MODES: 'challenge,telepathy' }, 'SIGN_MODES'],
      [{ SIWS_DOMAINS: 'https://app.example.com/' }, 'SIWS_DOMAINS'],
      [{ SIWS_DOMAINS: 'app.example.com', SIWS_STATEMENT: 'say "hi"' }, 'SIWS_STATEMENT'],
    ] as const) {
      const { code, output } = await runGateExpectingExit({ ...base, ...env });
      expect(code).toBe(1);
      expect(output).toContain(variable);
    }
  });

  it('only siws: a challenge login without X-404-Sign-Mode → 400 MISSING_HEADER', async () => {
    const gate = await startGate({ rpcUrl: stack.localnet.url, env: { SIGN_MODES: 'siws', SIWS_DOMAINS: DOMAIN } });
    try {
      const secret = wallet();
      const { nonce } = await getNonce(gate.url, 'blacklist');
      const headers = siwsHeaders(secret, nonce, 'blacklist', siwsFields(secret, nonce, 'blacklist'));
      const { 'X-404-Sign-Mode': _, ...withoutMode } = headers;
      const refused = await get(`${gate.url}/x404_auth/blacklist`, { ...policy(), ...withoutMode });
      expect([refused.status, refused.body.error, refused.body.missing]).toEqual([400, 'MISSING_HEADER', ['X-404-Sign-Mode']]);
      const passed = await get(`${gate.url}/x404_auth/blacklist`, { ...policy(), ...headers });
      expect(passed.status).toBe(200);
    } finally {
      await gate.stop('SIGKILL');
    }
  });
});

describe('tokens of every mode', () => {
  it('re-authenticate like any other, and forward auth says how the wallet signed in', async () => {
    const secret = wallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const { wire, signature } = memoTransaction(secret, nonce, 'blacklist');
    const { body } = await login(memoTxHeaders(wire, signature, secret, nonce, 'blacklist'));
    const reauth = await login({ 'x-jwt': body.token });
    expect(reauth.body).toMatchObject({ success: true, alreadyAuthenticated: true, publicKey: publicKeyOf(secret) });
    const verified = await get(`${url}/x404_verify?feature=blacklist`, { authorization: `Bearer ${body.token}` });
    expect([verified.status, verified.headers.get('x-404-sign-mode')]).toEqual([200, 'memo-tx']);
  });
});
