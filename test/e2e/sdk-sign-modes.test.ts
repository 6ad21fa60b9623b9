import { createSignInMessage } from '@solana/wallet-standard-util';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import {
  authenticate,
  decodeTokenClaims,
  memoryStorage,
  storageKey,
  X404Error,
  type BlacklistPolicy,
  type Fetch,
  type SignInInput,
  type SignMode,
  type WalletSigner,
} from '../../src/sdk/index.js';
import { newWallet, publicKeyOf } from '../helpers/client.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';
import * as ed from '@noble/ed25519';

/**
 * The SDK's sign modes against the real gate (child process) and the local chain: a gate with
 * SIWS_DOMAINS (every mode) and one without (challenge, offchain, memo-tx). Wallets are keypairs,
 * or adapter-shaped objects whose methods sign the way wallets do (SIWS text by
 * @solana/wallet-standard-util, transactions by @solana/web3.js).
 */
const DOMAIN = 'app.example.com';
let stack: Stack;
let noSiws: GateProcess;

beforeAll(async () => {
  stack = await startStack({ env: { SIWS_DOMAINS: DOMAIN } });
  noSiws = await startGate({ rpcUrl: stack.localnet.url });
});
afterAll(async () => {
  await noSiws?.stop('SIGKILL');
  await stack?.stop();
});

const policy = (): BlacklistPolicy => ({ excluded_mints: [demoMint('banned'), demoMint('banned-t22')], max_holdings: {} });

/** A fresh funded wallet (no cached chain state in the gate). */
function fundedWallet(): Uint8Array {
  const secret = newWallet();
  stack.localnet.state.setLamports(publicKeyOf(secret), 1_000_000_000);
  return secret;
}

/** @noble/ed25519 with node's SHA-512 (test/helpers/client.ts sets it). */
const signBytes = (secret: Uint8Array, bytes: Uint8Array): Uint8Array => ed.sign(bytes, secret.slice(0, 32));

interface Calls {
  signMessage: number;
  signIn: SignInInput[];
  signTransaction: number;
}

/** A wallet-adapter shaped wallet with the chosen methods, counting how often each is asked. */
function adapterWallet(
  secret: Uint8Array,
  have: { signMessage?: boolean; signIn?: boolean; signTransaction?: boolean; hardware?: boolean },
  rewriteSignIn: (input: SignInInput) => SignInInput = (input) => input,
): WalletSigner & { calls: Calls } {
  const keypair = Keypair.fromSecretKey(secret);
  const calls: Calls = { signMessage: 0, signIn: [], signTransaction: 0 };
  return {
    calls,
    publicKey: keypair.publicKey,
    ...(have.hardware === undefined ? {} : { hardware: have.hardware }),
    ...(have.signMessage
      ? {
          async signMessage(message: Uint8Array) {
            calls.signMessage += 1;
            return signBytes(secret, message);
          },
        }
      : {}),
    ...(have.signIn
      ? {
          async signIn(input: SignInInput) {
            calls.signIn.push(input);
            const signedMessage = createSignInMessage(rewriteSignIn(input));
            return { account: { address: keypair.publicKey.toBase58(), publicKey: keypair.publicKey.toBytes() }, signedMessage, signature: signBytes(secret, signedMessage) };
          },
        }
      : {}),
    ...(have.signTransaction
      ? {
          async signTransaction(bytes: Uint8Array) {
            calls.signTransaction += 1;
            const transaction = VersionedTransaction.deserialize(bytes);
            transaction.sign([keypair]);
            return transaction.serialize();
          },
        }
      : {}),
  };
}

/** A fetch that records every request's URL and headers. */
function recordingFetch(): { fetch: Fetch; requests: { url: string; headers: Record<string, string> }[] } {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  return {
    requests,
    fetch: (input, init) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
      requests.push({ url: input, headers });
      return globalThis.fetch(input, init);
    },
  };
}
const logins = (requests: { headers: Record<string, string> }[]) => requests.filter((request) => request.headers['x-404-signature'] !== undefined);

/** The reads of a blacklist login: the mints' programs and ATAs (getMultipleAccounts), every account of its mints (getTokenAccountsByOwner, the default scope). */
const READ_METHODS = ['getMultipleAccounts', 'getTokenAccountsByOwner'];

describe('authenticate with a keypair in each sign mode (gate with SIWS_DOMAINS)', () => {
  it.each(['challenge', 'siws', 'offchain', 'memo-tx'] as const)('%s → 200, result.signMode and the token\'s sgm say so', async (mode) => {
    const secret = fundedWallet();
    const { fetch, requests } = recordingFetch();
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: { secretKey: secret }, signMode: mode, storage: false, fetch });
    expect(result).toMatchObject({ publicKey: publicKeyOf(secret), alreadyAuthenticated: false, signMode: mode, body: { success: true } });
    const claims = decodeTokenClaims(result.token);
    expect(claims).toMatchObject({ sub: publicKeyOf(secret), feature: 'blacklist' });
    if (mode === 'challenge') expect(claims).not.toHaveProperty('sgm');
    else expect(claims?.sgm).toBe(mode);
    const [login] = logins(requests);
    expect(login?.headers['x-404-sign-mode']).toBe(mode === 'challenge' ? undefined : mode);
  });

  it('auto with a keypair → siws (it can sign in, and the gate offers it)', async () => {
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: { secretKey: fundedWallet() }, storage: false });
    expect(result.signMode).toBe('siws');
    expect(decodeTokenClaims(result.token)?.sgm).toBe('siws');
  });
});

describe('auto with browser-like wallets', () => {
  it('an adapter with signIn (and signMessage) → siws: signIn asked once with the gate\'s domain, signMessage never', async () => {
    const wallet = adapterWallet(fundedWallet(), { signMessage: true, signIn: true, signTransaction: true });
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
    expect(result.signMode).toBe('siws');
    expect(decodeTokenClaims(result.token)?.sgm).toBe('siws');
    expect(wallet.calls.signIn).toHaveLength(1);
    expect(wallet.calls.signIn[0]).toMatchObject({ domain: DOMAIN, uri: `https://${DOMAIN}`, resources: ['x404:blacklist'], chainId: 'mainnet' });
    expect([wallet.calls.signMessage, wallet.calls.signTransaction]).toEqual([0, 0]);
  });

  it('a wallet with only signMessage → challenge (no sgm)', async () => {
    const wallet = adapterWallet(fundedWallet(), { signMessage: true });
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
    expect(result.signMode).toBe('challenge');
    expect(decodeTokenClaims(result.token)).not.toHaveProperty('sgm');
    expect(wallet.calls.signMessage).toBe(1);
  });

  it('hardware: true with signMessage and signTransaction → memo-tx, the transaction signed once', async () => {
    const wallet = adapterWallet(fundedWallet(), { signMessage: true, signTransaction: true, hardware: true });
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
    expect(result.signMode).toBe('memo-tx');
    expect(decodeTokenClaims(result.token)?.sgm).toBe('memo-tx');
    expect([wallet.calls.signMessage, wallet.calls.signTransaction]).toEqual([0, 1]);
  });

  it('a Ledger-like adapter with only signTransaction and hardware: true → memo-tx', async () => {
    const wallet = adapterWallet(fundedWallet(), { signTransaction: true, hardware: true });
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
    expect(result.signMode).toBe('memo-tx');
  });

  it('the signIn of a wallet that writes another domain into the message → INVALID_SIGNATURE 401 from the gate', async () => {
    const wallet = adapterWallet(fundedWallet(), { signIn: true }, (input) => ({ ...input, domain: 'phish.example', uri: 'https://phish.example' }));
    const error = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(X404Error);
    expect(error).toMatchObject({ code: 'INVALID_SIGNATURE', status: 401, body: { field: 'domain' } });
    expect(wallet.calls.signIn).toHaveLength(1);
  });
});

describe('a gate without SIWS_DOMAINS', () => {
  it('auto with a wallet that has signIn and signMessage falls back to the challenge; signIn is never asked', async () => {
    const wallet = adapterWallet(fundedWallet(), { signMessage: true, signIn: true });
    const result = await authenticate({ baseUrl: noSiws.url, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
    expect(result.signMode).toBe('challenge');
    expect([wallet.calls.signIn.length, wallet.calls.signMessage]).toEqual([0, 1]);
  });

  it('auto with a keypair → challenge', async () => {
    const result = await authenticate({ baseUrl: noSiws.url, feature: 'blacklist', policy: policy(), signer: { secretKey: fundedWallet() }, storage: false });
    expect(result.signMode).toBe('challenge');
  });

  it.each(['siws'] as SignMode[])('explicit signMode %s → X404Error SIGNING_ERROR, nothing signed, no login request', async (mode) => {
    const wallet = adapterWallet(fundedWallet(), { signMessage: true, signIn: true });
    const { fetch, requests } = recordingFetch();
    const error = await authenticate({ baseUrl: noSiws.url, feature: 'blacklist', policy: policy(), signer: wallet, signMode: mode, storage: false, fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(X404Error);
    expect(error).toMatchObject({ code: 'SIGNING_ERROR', status: 0 });
    expect((error as Error).message).toMatch(/siws/);
    expect(requests).toHaveLength(1); // the nonce, nothing else
    expect(logins(requests)).toEqual([]);
    expect([wallet.calls.signIn.length, wallet.calls.signMessage]).toEqual([0, 0]);
  });

  it('an explicit mode it does offer (offchain, memo-tx) still works with a keypair', async () => {
    for (const mode of ['offchain', 'memo-tx'] as const) {
      const result = await authenticate({ baseUrl: noSiws.url, feature: 'blacklist', policy: policy(), signer: { secretKey: fundedWallet() }, signMode: mode, storage: false });
      expect([result.signMode, decodeTokenClaims(result.token)?.sgm]).toEqual([mode, mode]);
    }
  });
});

describe('the one same-request retry after a 503 that gave the nonce back', () => {
  it('a siws sign-in whose first login meets a failing chain is sent again with the same signed message; signIn asked once', async () => {
    const wallet = adapterWallet(fundedWallet(), { signIn: true });
    const { fetch, requests } = recordingFetch();
    // Every attempt of the first login's read fails (one endpoint, RPC_RETRIES=1: two HTTP requests).
    stack.localnet.faults.set({ mode: 'http500', count: 2, methods: READ_METHODS });
    try {
      const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false, fetch });
      expect(result).toMatchObject({ signMode: 'siws', body: { success: true } });
      expect(stack.localnet.faults.current().mode).toBe('none');
    } finally {
      stack.localnet.faults.clear();
    }
    expect(wallet.calls.signIn).toHaveLength(1);
    const sent = logins(requests);
    expect(sent).toHaveLength(2);
    const proof = ({ headers }: { headers: Record<string, string> }) => [headers['x-404-sign-mode'], headers['x-404-message'], headers['x-404-signature'], headers['x-404-nonce']];
    expect(proof(sent[1]!)).toEqual(proof(sent[0]!));
    expect(sent[0]!.headers['x-404-message']).toBeTruthy();
  });

  it('a memo-tx sign-in likewise: one signTransaction, the same transaction sent twice', async () => {
    const wallet = adapterWallet(fundedWallet(), { signTransaction: true, hardware: true });
    const { fetch, requests } = recordingFetch();
    stack.localnet.faults.set({ mode: 'http500', count: 2, methods: READ_METHODS });
    try {
      const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false, fetch });
      expect(result.signMode).toBe('memo-tx');
    } finally {
      stack.localnet.faults.clear();
    }
    expect(wallet.calls.signTransaction).toBe(1);
    const sent = logins(requests);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers['x-404-message']).toBe(sent[0]!.headers['x-404-message']);
  });
});

describe('siws from a page (globalThis.location stubbed)', () => {
  it('a page on a listed domain signs in under its own host and origin', async () => {
    vi.stubGlobal('location', { host: DOMAIN, origin: `https://${DOMAIN}` });
    try {
      const wallet = adapterWallet(fundedWallet(), { signMessage: true, signIn: true });
      const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
      expect(result.signMode).toBe('siws');
      expect(wallet.calls.signIn[0]).toMatchObject({ domain: DOMAIN, uri: `https://${DOMAIN}` });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a page the gate does not list names itself, and the gate refuses it: INVALID_SIGNATURE on domain', async () => {
    vi.stubGlobal('location', { host: 'phish.example', origin: 'https://phish.example' });
    try {
      const wallet = adapterWallet(fundedWallet(), { signMessage: true, signIn: true });
      const error = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'INVALID_SIGNATURE', status: 401, body: { field: 'domain' } });
      expect(wallet.calls.signIn[0]).toMatchObject({ domain: 'phish.example' });
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('edges of siws in auto', () => {
  // wallet-standard SolanaSignInOutput: "The address of the account may be different from the
  // provided input Address" — the user may pick another account in the wallet's prompt. The gate
  // then signs that account in (X-404-Addr comes from the output), and the token is that account's.
  it('a signIn that signs with another account: the token is stored under the account that signed in', async () => {
    const connected = fundedWallet();
    const chosen = fundedWallet();
    const chosenKeypair = Keypair.fromSecretKey(chosen);
    const wallet: WalletSigner = {
      publicKey: Keypair.fromSecretKey(connected).publicKey,
      async signIn(input: SignInInput) {
        const signedMessage = createSignInMessage({ ...input, address: chosenKeypair.publicKey.toBase58() });
        return { account: { address: chosenKeypair.publicKey.toBase58(), publicKey: chosenKeypair.publicKey.toBytes() }, signedMessage, signature: signBytes(chosen, signedMessage) };
      },
    };
    const storage = memoryStorage();
    const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage });
    expect([result.signMode, result.publicKey]).toEqual(['siws', publicKeyOf(chosen)]);
    expect(decodeTokenClaims(result.token)?.sub).toBe(publicKeyOf(chosen));
    expect(await storage.get(storageKey(stack.gateUrl, 'blacklist', publicKeyOf(chosen)))).toBe(result.token);
    expect(await storage.get(storageKey(stack.gateUrl, 'blacklist', publicKeyOf(connected)))).toBeFalsy();
  });

  // Before sign modes auto meant the challenge, which does not depend on the caller's clock. SIWS
  // carries Issued At, which the gate holds to the nonce's life ± 60 s: a browser whose clock is a
  // few minutes off (not rare on desktops) now fails where it used to sign in.
  it('a caller whose clock is 5 minutes slow still signs in with auto and a signIn wallet', async () => {
    const wallet = adapterWallet(fundedWallet(), { signMessage: true, signIn: true });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 5 * 60_000, shouldAdvanceTime: true });
    try {
      const result = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: policy(), signer: wallet, storage: false });
      expect(result.body.success).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
