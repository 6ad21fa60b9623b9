import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { createSignInMessage, parseSignInMessageText } from '@solana/wallet-standard-util';
import { Keypair, PublicKey, Transaction, VersionedTransaction } from '@solana/web3.js';
import type { SolanaSignInOutput } from '@solana/wallet-standard-features';
import type { Wallet } from '@wallet-standard/base';
import bs58 from 'bs58';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  buildChallenge,
  chooseSignMode,
  resolveSigner,
  type ConcreteSignMode,
  type GateSignInOffer,
  type ResolvedSigner,
  type SignInInput,
  type SignInOutput,
  type SignMode,
  type StandardWallet,
} from '../../src/sdk/index.js';
import { signInInput, signProof, SignModeUnavailable } from '../../src/sdk/proof.js';

/**
 * The SDK's side of sign modes, checked against expectations built independently of its code:
 * SIWS text parsed by @solana/wallet-standard-util, memo transactions decoded by @solana/web3.js,
 * the off-chain message assembled byte by byte from Agave's legacy layout, signatures verified
 * with node:crypto.
 */

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const KEYPAIR = Keypair.fromSeed(SEED);
const ADDRESS = KEYPAIR.publicKey.toBase58();
const NONCE = 'AbCdEfGh12345678xYz';
const MECHANISM = 'SERVICE404';
const CHALLENGE = buildChallenge(NONCE, 'blacklist', MECHANISM);
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** The seed as a PKCS#8 Ed25519 private key for node:crypto. */
const PRIVATE_KEY = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(SEED)]),
  format: 'der',
  type: 'pkcs8',
});

/** What the gate sends before sign modes existed: nothing about them. */
const OLD_GATE: GateSignInOffer = {};
/** A gate with SIWS_DOMAINS (every mode). */
const SIWS_GATE: GateSignInOffer = {
  signModes: ['challenge', 'siws', 'offchain', 'memo-tx'],
  siws: { domain: 'app.example.com', domains: ['app.example.com', 'localhost:5173'], statement: 'Sign in to the launch', chainId: 'mainnet', resources: ['x404:blacklist'] },
};
/** A gate without SIWS_DOMAINS (its default modes). */
/** The SIWS fields built from SIWS_GATE's offer outside a page (its first domain, https), any Issued At. */
const SIGN_IN_FROM_OFFER = {
  domain: 'app.example.com',
  address: ADDRESS,
  statement: 'Sign in to the launch',
  uri: 'https://app.example.com',
  version: '1',
  chainId: 'mainnet',
  nonce: NONCE,
  issuedAt: expect.any(String),
  resources: ['x404:blacklist'],
};
const NO_SIWS_GATE: GateSignInOffer = { signModes: ['challenge', 'offchain', 'memo-tx'] };
const HARDWARE_GATE: GateSignInOffer = { signModes: ['challenge', 'memo-tx'] };
const OFFCHAIN_ONLY_GATE: GateSignInOffer = { signModes: ['offchain'] };
const SIWS_ONLY_GATE: GateSignInOffer = { signModes: ['siws'], siws: SIWS_GATE.siws! };

function verifies(signature: Uint8Array, message: Uint8Array, address = ADDRESS): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bs58.decode(address)).toString('base64url') }, format: 'jwk' });
  return nodeVerify(null, message, key, signature);
}

const fromBase64 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'base64'));

/** A ResolvedSigner with exactly the given capabilities (the methods are never called). */
function caps(have: { sign?: boolean; signIn?: boolean; signTransaction?: boolean; hardware?: boolean }): ResolvedSigner {
  const never = (): Promise<never> => Promise.reject(new Error('not called in chooseSignMode'));
  return {
    address: ADDRESS,
    hardware: have.hardware === true,
    ...(have.sign ? { sign: never } : {}),
    ...(have.signIn ? { signIn: never } : {}),
    ...(have.signTransaction ? { signTransaction: never } : {}),
  };
}

/** A wallet-adapter style wallet backed by the keypair, built with web3.js as a wallet would. */
function adapterWallet(options: { signMessage?: boolean; signIn?: boolean; signTransaction?: boolean; hardware?: boolean } = {}) {
  const calls = { signMessage: 0, signIn: [] as SignInInput[], signTransaction: 0 };
  const wallet = {
    publicKey: KEYPAIR.publicKey,
    ...(options.hardware === undefined ? {} : { hardware: options.hardware }),
    ...(options.signMessage
      ? {
          async signMessage(message: Uint8Array) {
            calls.signMessage += 1;
            return sign(message);
          },
        }
      : {}),
    ...(options.signIn
      ? {
          async signIn(input: SignInInput) {
            calls.signIn.push(input);
            const signedMessage = createSignInMessage(input);
            return { account: { address: ADDRESS, publicKey: KEYPAIR.publicKey.toBytes() }, signedMessage, signature: sign(signedMessage) };
          },
        }
      : {}),
    ...(options.signTransaction
      ? {
          async signTransaction(bytes: Uint8Array) {
            calls.signTransaction += 1;
            const transaction = VersionedTransaction.deserialize(bytes);
            transaction.sign([KEYPAIR]);
            return transaction.serialize();
          },
        }
      : {}),
  };
  return { wallet, calls };
}

/** Detached ed25519 signature with node:crypto (not the SDK's @noble/ed25519). */
function ed25519Sign(message: Uint8Array): Buffer {
  return nodeSign(null, message, PRIVATE_KEY);
}
const sign = (message: Uint8Array): Uint8Array => Uint8Array.from(ed25519Sign(message));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('chooseSignMode: auto', () => {
  const software = { sign: true };
  const signInOnly = { signIn: true };
  const transactionsOnly = { signTransaction: true };
  const everything = { sign: true, signIn: true, signTransaction: true };
  const ledger = { sign: true, signTransaction: true, hardware: true };
  const ledgerTransactionsOnly = { signTransaction: true, hardware: true };

  const rows: [string, Parameters<typeof caps>[0], string, GateSignInOffer, ConcreteSignMode | 'throws'][] = [
    // A gate from before sign modes lists none: only the challenge will do.
    ['signMessage only', software, 'an old gate', OLD_GATE, 'challenge'],
    ['every method', everything, 'an old gate', OLD_GATE, 'challenge'],
    ['signIn only', signInOnly, 'an old gate', OLD_GATE, 'throws'],
    ['signTransaction only', transactionsOnly, 'an old gate', OLD_GATE, 'throws'],
    ['hardware: true, signMessage and signTransaction', ledger, 'an old gate', OLD_GATE, 'throws'],
    // A gate with SIWS_DOMAINS.
    ['signMessage only', software, 'a siws gate', SIWS_GATE, 'challenge'],
    ['signIn only', signInOnly, 'a siws gate', SIWS_GATE, 'siws'],
    ['every method', everything, 'a siws gate', SIWS_GATE, 'siws'],
    ['signTransaction only', transactionsOnly, 'a siws gate', SIWS_GATE, 'memo-tx'],
    ['hardware: true, signMessage and signTransaction', ledger, 'a siws gate', SIWS_GATE, 'memo-tx'],
    ['hardware: true and signTransaction only', ledgerTransactionsOnly, 'a siws gate', SIWS_GATE, 'memo-tx'],
    // A gate without SIWS_DOMAINS: siws is not offered, so signIn does not count.
    ['signMessage only', software, 'a gate without siws', NO_SIWS_GATE, 'challenge'],
    ['every method', everything, 'a gate without siws', NO_SIWS_GATE, 'challenge'],
    ['signIn only', signInOnly, 'a gate without siws', NO_SIWS_GATE, 'throws'],
    ['signTransaction only', transactionsOnly, 'a gate without siws', NO_SIWS_GATE, 'memo-tx'],
    ['hardware: true, signMessage and signTransaction', ledger, 'a gate without siws', NO_SIWS_GATE, 'memo-tx'],
    // A gate listing siws without its details (a malformed offer the SDK dropped): not siws.
    ['every method', everything, 'a gate listing siws without details', { signModes: ['challenge', 'siws'] }, 'challenge'],
    ['signIn only', signInOnly, 'a gate listing siws without details', { signModes: ['siws'] }, 'throws'],
    // Narrow SIGN_MODES.
    ['every method', everything, 'a challenge,memo-tx gate', HARDWARE_GATE, 'challenge'],
    ['hardware: true, signMessage and signTransaction', ledger, 'a challenge,memo-tx gate', HARDWARE_GATE, 'memo-tx'],
    ['signMessage only', software, 'a siws-only gate', SIWS_ONLY_GATE, 'throws'],
    ['every method', everything, 'a siws-only gate', SIWS_ONLY_GATE, 'siws'],
    ['hardware: true, signMessage and signTransaction', ledger, 'a siws-only gate', SIWS_ONLY_GATE, 'throws'],
    ['signIn only', signInOnly, 'an offchain-only gate', OFFCHAIN_ONLY_GATE, 'throws'],
    ['signTransaction only', transactionsOnly, 'an offchain-only gate', OFFCHAIN_ONLY_GATE, 'throws'],
  ];
  const table = rows.map(([wallet, have, gate, offer, expected]) => [wallet, gate, expected, have, offer] as const);
  it.each(table)('a wallet with %s, %s → %s', (_, _gate, expected, have, offer) => {
    const signer = caps(have);
    if (expected === 'throws') {
      expect(() => chooseSignMode('auto', signer, offer)).toThrow(SignModeUnavailable);
    } else {
      expect(chooseSignMode('auto', signer, offer)).toBe(expected);
    }
  });

  it('the refusal names what the gate accepts and what the wallet has', () => {
    expect(() => chooseSignMode('auto', caps({ signIn: true }), OLD_GATE)).toThrow(/challenge.*signIn/s);
    expect(() => chooseSignMode('auto', caps({}), SIWS_GATE)).toThrow(/no signing method/);
  });

  // hardware: true means "cannot sign arbitrary text" (src/sdk/signer.ts WalletSigner docs): a SIWS
  // message is text, so auto must not pick siws for it even when the adapter exposes signIn (the
  // Phantom and Solflare adapters always do, Ledger or not).
  it('a hardware wallet whose adapter also has signIn, on a siws gate → memo-tx, not siws', () => {
    expect(chooseSignMode('auto', caps({ sign: true, signIn: true, signTransaction: true, hardware: true }), SIWS_GATE)).toBe('memo-tx');
  });

  // A gate with SIGN_MODES=offchain (or offchain,memo-tx) and a software wallet that signs messages:
  // the wallet can sign the off-chain message (explicit signMode 'offchain' works), so auto should
  // use it rather than report that "the wallet cannot sign any proof this gate accepts".
  it('a signMessage wallet on a gate that takes only offchain (and memo-tx) → offchain', () => {
    expect(chooseSignMode('auto', caps({ sign: true }), OFFCHAIN_ONLY_GATE)).toBe('offchain');
    expect(chooseSignMode('auto', caps({ sign: true }), { signModes: ['offchain', 'memo-tx'] })).toBe('offchain');
  });
});

describe('chooseSignMode: an explicit mode', () => {
  const modes: ConcreteSignMode[] = ['challenge', 'siws', 'offchain', 'memo-tx'];
  it.each(modes)('%s is used as asked when the gate offers it, whatever auto would pick', (mode) => {
    expect(chooseSignMode(mode, caps({ sign: true, signIn: true, signTransaction: true }), SIWS_GATE)).toBe(mode);
  });

  it.each([
    ['siws', NO_SIWS_GATE],
    ['offchain', OLD_GATE],
    ['memo-tx', OLD_GATE],
    ['siws', OLD_GATE],
    ['challenge', SIWS_ONLY_GATE],
    ['offchain', HARDWARE_GATE],
  ] as [SignMode, GateSignInOffer][])('%s on a gate that does not offer it → SignModeUnavailable naming what it does', (mode, offer) => {
    const attempt = () => chooseSignMode(mode, caps({ sign: true, signIn: true, signTransaction: true }), offer);
    expect(attempt).toThrow(SignModeUnavailable);
    expect(attempt).toThrow(new RegExp(`${mode}.*${(offer.signModes ?? ['challenge']).join(', ')}`));
  });

  it('challenge on an old gate is fine', () => {
    expect(chooseSignMode('challenge', caps({ sign: true }), OLD_GATE)).toBe('challenge');
  });
});

describe('signProof with a keypair', () => {
  const proof = async (mode: ConcreteSignMode, offer: GateSignInOffer = SIWS_GATE) =>
    signProof({ mode, signer: await resolveSigner({ secretKey: KEYPAIR.secretKey }), feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer });

  it('challenge: only X-404-Signature over the challenge text and X-404-Addr, as before sign modes', async () => {
    const headers = await proof('challenge', OLD_GATE);
    expect(Object.keys(headers).sort()).toEqual(['x-404-addr', 'x-404-signature']);
    expect(headers['x-404-addr']).toBe(ADDRESS);
    expect(verifies(bs58.decode(headers['x-404-signature']!), new TextEncoder().encode(CHALLENGE))).toBe(true);
    expect(bs58.decode(headers['x-404-signature']!)).toEqual(Uint8Array.from(ed25519Sign(new TextEncoder().encode(CHALLENGE))));
  });

  it('siws: a wallet-standard SIWS message with the offer\'s domain, statement, chain, resources and the nonce, signed', async () => {
    const before = Date.now();
    const headers = await proof('siws');
    expect(headers).toMatchObject({ 'x-404-sign-mode': 'siws', 'x-404-addr': ADDRESS });
    const message = fromBase64(headers['x-404-message']!);
    const parsed = parseSignInMessageText(new TextDecoder().decode(message));
    expect(parsed).toEqual(SIGN_IN_FROM_OFFER);
    const issuedAt = Date.parse(parsed!.issuedAt!);
    expect(issuedAt).toBeGreaterThanOrEqual(before - 1);
    expect(issuedAt).toBeLessThanOrEqual(Date.now());
    expect(verifies(bs58.decode(headers['x-404-signature']!), message)).toBe(true);
  });

  it('siws without a statement in the offer: the message has none', async () => {
    const { statement: _, ...siws } = SIWS_GATE.siws!;
    const headers = await proof('siws', { signModes: ['siws'], siws });
    const parsed = parseSignInMessageText(new TextDecoder().decode(fromBase64(headers['x-404-message']!)));
    expect(parsed?.statement).toBeUndefined();
    expect(parsed?.nonce).toBe(NONCE);
  });

  it('siws on a page whose host the gate accepts: the message names the page (domain and origin)', async () => {
    vi.stubGlobal('location', { host: 'localhost:5173', origin: 'http://localhost:5173' });
    const headers = await proof('siws');
    const parsed = parseSignInMessageText(new TextDecoder().decode(fromBase64(headers['x-404-message']!)));
    expect(parsed).toMatchObject({ domain: 'localhost:5173', uri: 'http://localhost:5173', nonce: NONCE, resources: ['x404:blacklist'] });
  });

  it('siws when the gate offers no siws details → SignModeUnavailable', async () => {
    await expect(proof('siws', { signModes: ['siws'] })).rejects.toThrow(SignModeUnavailable);
  });

  it('offchain: the Agave legacy off-chain message of the challenge (signing domain, version 0, format 0, u16 LE length), signed', async () => {
    const headers = await proof('offchain');
    expect(headers).toMatchObject({ 'x-404-sign-mode': 'offchain', 'x-404-addr': ADDRESS });
    const body = Buffer.from(CHALLENGE, 'ascii');
    const expected = Buffer.concat([
      Buffer.from([0xff]),
      Buffer.from('solana offchain', 'ascii'),
      Buffer.from([0x00]), // header version
      Buffer.from([0x00]), // format 0: restricted ASCII
      Buffer.from([body.length & 0xff, body.length >> 8]),
      body,
    ]);
    const message = fromBase64(headers['x-404-message']!);
    expect(Buffer.from(message).toString('hex')).toBe(expected.toString('hex'));
    expect(verifies(bs58.decode(headers['x-404-signature']!), expected)).toBe(true);
  });

  it('memo-tx: a web3.js-readable transaction, fee payer the wallet, a Memo of the challenge (after compute-budget only), zero blockhash, a valid signature', async () => {
    const headers = await proof('memo-tx');
    expect(headers).toMatchObject({ 'x-404-sign-mode': 'memo-tx', 'x-404-addr': ADDRESS });
    expectMemoTransaction(headers);
  });
});

function expectMemoTransaction(headers: Record<string, string>, address = ADDRESS): void {
  const wire = Buffer.from(headers['x-404-message']!, 'base64');
  const transaction = Transaction.from(wire);
  expect(transaction.verifySignatures()).toBe(true);
  expect(transaction.feePayer?.toBase58()).toBe(address);
  expect(transaction.signatures).toHaveLength(1);
  expect(transaction.signature && bs58.encode(transaction.signature)).toBe(headers['x-404-signature']);
  expect(transaction.recentBlockhash).toBe(bs58.encode(new Uint8Array(32)));
  // One Memo, last; before it only compute-budget instructions (the SDK sets a compute-unit price
  // of 0 so that Phantom adds no fee instruction of its own), which take no accounts.
  const memo = transaction.instructions.at(-1);
  expect(memo!.programId.toBase58()).toBe(MEMO_PROGRAM);
  for (const instruction of transaction.instructions.slice(0, -1)) {
    expect(instruction.programId.toBase58()).toBe(COMPUTE_BUDGET_PROGRAM);
    expect(instruction.keys).toEqual([]);
    // SetComputeUnitPrice (kind 3, u64 LE micro-lamports): 0, the transaction can never land anyway.
    if (instruction.data[0] === 3) expect(Buffer.from(instruction.data).toString('hex')).toBe('03' + '00'.repeat(8));
  }
  expect(Buffer.from(memo!.data).toString('utf8')).toBe(CHALLENGE);
  expect(memo!.keys.map((key) => [key.pubkey.toBase58(), key.isSigner])).toEqual([[address, true]]);
  // Re-serialising what web3.js read gives the same bytes: nothing was lost or reordered.
  expect(Buffer.from(transaction.serialize()).equals(wire)).toBe(true);
}

describe('signInInput: which domain the wallet is asked to show', () => {
  const siws = SIWS_GATE.siws!;

  it('outside a page (Node, a backend, the CLI): the offer\'s first domain, https', () => {
    vi.stubGlobal('location', undefined);
    const input = signInInput(ADDRESS, NONCE, siws);
    expect(input).toEqual(SIGN_IN_FROM_OFFER);
    expect(new Date(input.issuedAt).toISOString()).toBe(input.issuedAt);
    expect(input.resources).not.toBe(siws.resources);
  });

  it('on a page whose host is one of the offer\'s domains: that host and the page\'s origin', () => {
    vi.stubGlobal('location', { host: 'localhost:5173', origin: 'http://localhost:5173', hostname: 'localhost' });
    expect(signInInput(ADDRESS, NONCE, siws)).toMatchObject({ domain: 'localhost:5173', uri: 'http://localhost:5173' });
    vi.stubGlobal('location', { host: 'app.example.com', origin: 'https://app.example.com' });
    expect(signInInput(ADDRESS, NONCE, siws)).toMatchObject({ domain: 'app.example.com', uri: 'https://app.example.com' });
  });

  it('a page host in capitals still matches (hosts are case-insensitive)', () => {
    vi.stubGlobal('location', { host: 'LOCALHOST:5173', origin: 'http://localhost:5173' });
    expect(signInInput(ADDRESS, NONCE, siws)).toMatchObject({ domain: 'localhost:5173', uri: 'http://localhost:5173' });
  });

  // A page always signs in under its own name: a page the gate does not list gets a message for
  // itself, which the gate refuses (domain), rather than one naming the real site, which a phishing
  // page could relay.
  it('on a page the gate does not list: still the page\'s own host and origin (the gate will refuse it)', () => {
    vi.stubGlobal('location', { host: 'phish.example', origin: 'https://phish.example' });
    expect(signInInput(ADDRESS, NONCE, siws)).toMatchObject({ domain: 'phish.example', uri: 'https://phish.example' });
    // Same host, other port: another origin, named as it is.
    vi.stubGlobal('location', { host: 'localhost:3000', origin: 'http://localhost:3000' });
    expect(signInInput(ADDRESS, NONCE, siws)).toMatchObject({ domain: 'localhost:3000', uri: 'http://localhost:3000' });
  });

  it('an offer without `domains` (only `domain`): the page still names itself', () => {
    const { domains: _, ...single } = siws;
    vi.stubGlobal('location', { host: 'app.example.com', origin: 'https://app.example.com' });
    expect(signInInput(ADDRESS, NONCE, single)).toMatchObject({ domain: 'app.example.com', uri: 'https://app.example.com' });
    vi.stubGlobal('location', { host: 'localhost:5173', origin: 'http://localhost:5173' });
    expect(signInInput(ADDRESS, NONCE, single)).toMatchObject({ domain: 'localhost:5173', uri: 'http://localhost:5173' });
  });

  it('a location without a host (about:blank, file:) or without an origin is not a page: the offer\'s first domain', () => {
    for (const location of [{ host: '', origin: 'null' }, { host: 'app.example.com' }, {}]) {
      vi.stubGlobal('location', location);
      expect(signInInput(ADDRESS, NONCE, siws)).toMatchObject({ domain: 'app.example.com', uri: 'https://app.example.com' });
    }
  });

  it('no statement in the offer: none in the input (not an empty one)', () => {
    const { statement: _, ...noStatement } = siws;
    expect('statement' in signInInput(ADDRESS, NONCE, noStatement)).toBe(false);
  });
});

describe('resolveSigner: a wallet-standard wallet', () => {
  function standardWallet() {
    const account = { address: ADDRESS, publicKey: KEYPAIR.publicKey.toBytes(), chains: ['solana:mainnet'], features: ['solana:signIn', 'solana:signMessage', 'solana:signTransaction'] };
    const other = Keypair.fromSeed(new Uint8Array(32).fill(9));
    const otherAccount = { address: other.publicKey.toBase58(), publicKey: other.publicKey.toBytes(), chains: ['solana:mainnet'], features: account.features };
    const calls: { feature: string; inputs: unknown[] }[] = [];
    const wallet = {
      version: '1.0.0',
      name: 'Test Wallet',
      icon: 'data:image/svg+xml;base64,',
      chains: ['solana:mainnet'],
      accounts: [account, otherAccount],
      features: {
        'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
        'solana:signIn': {
          version: '1.0.0',
          async signIn(...inputs: SignInInput[]) {
            calls.push({ feature: 'solana:signIn', inputs });
            return inputs.map((input) => {
              const signedMessage = createSignInMessage({ ...input, address: ADDRESS, domain: input.domain });
              return { account, signedMessage, signature: Uint8Array.from(ed25519Sign(signedMessage)), signatureType: 'ed25519' as const };
            });
          },
        },
        'solana:signMessage': {
          version: '1.0.0',
          async signMessage(...inputs: { account: typeof account; message: Uint8Array }[]) {
            calls.push({ feature: 'solana:signMessage', inputs });
            return inputs.map(({ message }) => ({ signedMessage: message, signature: Uint8Array.from(ed25519Sign(message)), signatureType: 'ed25519' as const }));
          },
        },
        'solana:signTransaction': {
          version: '1.0.0',
          supportedTransactionVersions: ['legacy', 0],
          async signTransaction(...inputs: { account: typeof account; transaction: Uint8Array; chain?: string }[]) {
            calls.push({ feature: 'solana:signTransaction', inputs });
            return inputs.map(({ transaction }) => {
              const decoded = VersionedTransaction.deserialize(transaction);
              decoded.sign([KEYPAIR]);
              return { signedTransaction: decoded.serialize() };
            });
          },
        },
      },
    } satisfies StandardWallet & Record<string, unknown>;
    return { wallet, account, otherAccount, calls };
  }

  it('uses the first account and exposes each feature; signMessage gets { account, message } and its output array is read', async () => {
    const { wallet, account, calls } = standardWallet();
    const signer = await resolveSigner({ wallet });
    expect(signer).toMatchObject({ address: ADDRESS, hardware: false });
    expect([typeof signer.sign, typeof signer.signIn, typeof signer.signTransaction]).toEqual(['function', 'function', 'function']);
    const message = new TextEncoder().encode('hello');
    const signature = await signer.sign!(message);
    expect(verifies(signature, message)).toBe(true);
    expect(calls).toEqual([{ feature: 'solana:signMessage', inputs: [{ account, message }] }]);
  });

  it('auto picks siws on a siws gate; the wallet gets the SIWS input and its signed message goes to the gate', async () => {
    const { wallet, calls } = standardWallet();
    const signer = await resolveSigner({ wallet });
    const mode = chooseSignMode('auto', signer, SIWS_GATE);
    expect(mode).toBe('siws');
    const headers = await signProof({ mode, signer, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.feature).toBe('solana:signIn');
    expect(calls[0]!.inputs).toEqual([expect.objectContaining({ domain: 'app.example.com', address: ADDRESS, nonce: NONCE, chainId: 'mainnet', resources: ['x404:blacklist'] })]);
    const message = fromBase64(headers['x-404-message']!);
    expect(parseSignInMessageText(new TextDecoder().decode(message))).toMatchObject({ domain: 'app.example.com', nonce: NONCE, address: ADDRESS });
    expect(headers['x-404-addr']).toBe(ADDRESS);
    expect(verifies(bs58.decode(headers['x-404-signature']!), message)).toBe(true);
  });

  it('memo-tx through solana:signTransaction: { account, transaction, chain } in, signedTransaction out', async () => {
    const { wallet, account, calls } = standardWallet();
    const signer = await resolveSigner({ wallet, chain: 'solana:devnet' });
    const headers = await signProof({ mode: 'memo-tx', signer, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ feature: 'solana:signTransaction', inputs: [{ account, chain: 'solana:devnet', transaction: expect.any(Uint8Array) }] });
    expectMemoTransaction(headers);
  });

  it('challenge and offchain through solana:signMessage', async () => {
    const { wallet } = standardWallet();
    const signer = await resolveSigner({ wallet });
    const challenge = await signProof({ mode: 'challenge', signer, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(verifies(bs58.decode(challenge['x-404-signature']!), new TextEncoder().encode(CHALLENGE))).toBe(true);
    const offchain = await signProof({ mode: 'offchain', signer, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(verifies(bs58.decode(offchain['x-404-signature']!), fromBase64(offchain['x-404-message']!))).toBe(true);
  });

  it('an explicit account, and hardware: true (auto then sends a memo transaction on a gate without siws)', async () => {
    const { wallet, otherAccount } = standardWallet();
    const signer = await resolveSigner({ wallet, account: otherAccount, hardware: true });
    expect(signer).toMatchObject({ address: otherAccount.address, hardware: true });
    expect(chooseSignMode('auto', signer, NO_SIWS_GATE)).toBe('memo-tx');
  });

  it('a wallet with only solana:signTransaction resolves with signTransaction alone', async () => {
    const { wallet } = standardWallet();
    const onlyTransactions = { ...wallet, features: { 'solana:signTransaction': wallet.features['solana:signTransaction'] } };
    const signer = await resolveSigner({ wallet: onlyTransactions });
    expect([signer.sign, signer.signIn, typeof signer.signTransaction]).toEqual([undefined, undefined, 'function']);
    expect(chooseSignMode('auto', signer, SIWS_GATE)).toBe('memo-tx');
  });

  it('a wallet without accounts (not connected) is refused', async () => {
    const { wallet } = standardWallet();
    await expect(resolveSigner({ wallet: { ...wallet, accounts: [] } })).rejects.toThrow(/no account/);
  });
});

describe('resolveSigner: wallet-adapter style wallets', () => {
  it('a Ledger through an adapter: only signTransaction and hardware: true → memo-tx, a transaction web3.js verifies', async () => {
    const { wallet, calls } = adapterWallet({ signTransaction: true, hardware: true });
    const signer = await resolveSigner(wallet);
    expect(signer).toMatchObject({ address: ADDRESS, hardware: true });
    expect([signer.sign, signer.signIn, typeof signer.signTransaction]).toEqual([undefined, undefined, 'function']);
    for (const offer of [SIWS_GATE, NO_SIWS_GATE, HARDWARE_GATE]) expect(chooseSignMode('auto', signer, offer)).toBe('memo-tx');
    expect(() => chooseSignMode('auto', signer, OLD_GATE)).toThrow(SignModeUnavailable);
    const headers = await signProof({ mode: 'memo-tx', signer, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(calls.signTransaction).toBe(1);
    expectMemoTransaction(headers);
  });

  it('explicit modes the wallet cannot sign reject with SignModeUnavailable naming the missing method', async () => {
    const { wallet } = adapterWallet({ signTransaction: true, hardware: true });
    const signer = await resolveSigner(wallet);
    const attempt = (mode: ConcreteSignMode) => signProof({ mode, signer, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    await expect(attempt('challenge')).rejects.toThrow(/signMessage/);
    await expect(attempt('offchain')).rejects.toThrow(/signMessage/);
    await expect(attempt('siws')).rejects.toThrow(/signIn/);
    await expect(attempt('siws')).rejects.toBeInstanceOf(SignModeUnavailable);
  });

  it('an adapter signIn resolving to one output (wallet-adapter) or an array (wallet-standard) both work', async () => {
    const { wallet, calls } = adapterWallet({ signIn: true, signMessage: true });
    const single = await resolveSigner(wallet);
    expect(chooseSignMode('auto', single, SIWS_GATE)).toBe('siws');
    const headers = await signProof({ mode: 'siws', signer: single, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(verifies(bs58.decode(headers['x-404-signature']!), fromBase64(headers['x-404-message']!))).toBe(true);
    expect(calls.signIn).toHaveLength(1);
    expect(calls.signMessage).toBe(0);

    const asArray = await resolveSigner({ ...wallet, signIn: async (input: SignInInput) => [await wallet.signIn!(input)] });
    const again = await signProof({ mode: 'siws', signer: asArray, feature: 'blacklist', nonce: NONCE, mechanism: MECHANISM, offer: SIWS_GATE });
    expect(again['x-404-addr']).toBe(ADDRESS);
  });

  it('a signIn output that names its account by publicKey only gives that address', async () => {
    const other = Keypair.fromSeed(new Uint8Array(32).fill(7));
    const signer = await resolveSigner({
      publicKey: KEYPAIR.publicKey,
      signIn: async () => ({ account: { publicKey: other.publicKey.toBytes() }, signedMessage: new Uint8Array([1]), signature: new Uint8Array(64) }),
    });
    const signed = await signer.signIn!(signInInput(ADDRESS, NONCE, SIWS_GATE.siws!));
    expect(signed.address).toBe(other.publicKey.toBase58());
  });

  it('a software wallet with every method: auto is siws on a siws gate, challenge elsewhere', async () => {
    const { wallet } = adapterWallet({ signMessage: true, signIn: true, signTransaction: true });
    const signer = await resolveSigner(wallet);
    expect(chooseSignMode('auto', signer, SIWS_GATE)).toBe('siws');
    expect(chooseSignMode('auto', signer, NO_SIWS_GATE)).toBe('challenge');
    expect(chooseSignMode('auto', signer, OLD_GATE)).toBe('challenge');
  });

  it('a wallet with none of the methods is refused', async () => {
    await expect(resolveSigner({ publicKey: KEYPAIR.publicKey } as never)).rejects.toThrow(TypeError);
  });

  it('PublicKey objects, bytes and base58 all give the same address', async () => {
    const signTransaction = async (bytes: Uint8Array) => bytes;
    for (const publicKey of [KEYPAIR.publicKey, KEYPAIR.publicKey.toBytes(), ADDRESS, new PublicKey(ADDRESS)]) {
      expect((await resolveSigner({ publicKey, signTransaction })).address).toBe(ADDRESS);
    }
  });
});

describe('types: what wallets hand out fits the SDK without casts', () => {
  // A web page gets wallets from @wallet-standard/app's getWallets(): `Wallet`, whose accounts'
  // publicKey is a ReadonlyUint8Array, and signIn outputs are SolanaSignInOutput. Both must be
  // accepted as they are (docs/sign-modes.md: `signer: { wallet: phantom }`); this is checked by
  // `npm run typecheck` (tsc), the runtime part by vitest.
  it('a wallet-standard Wallet passes as { wallet } and a SolanaSignInOutput as a SignInOutput', async () => {
    const account = { address: ADDRESS, publicKey: KEYPAIR.publicKey.toBytes(), chains: ['solana:mainnet'] as const, features: ['solana:signMessage'] as const };
    const wallet: Wallet = {
      version: '1.0.0',
      name: 'Typed Wallet',
      icon: 'data:image/svg+xml;base64,',
      chains: ['solana:mainnet'],
      accounts: [account],
      features: {
        'solana:signMessage': {
          version: '1.0.0',
          signMessage: async (...inputs: { message: Uint8Array }[]) => inputs.map(({ message }) => ({ signedMessage: message, signature: sign(message) })),
        },
      },
    };
    const signer = await resolveSigner({ wallet, account: wallet.accounts[0] });
    expect(signer.address).toBe(ADDRESS);
    const output: SolanaSignInOutput = { account: wallet.accounts[0]!, signedMessage: new Uint8Array([1]), signature: new Uint8Array(64) };
    const accepted: SignInOutput = output;
    expect(accepted.account?.address).toBe(ADDRESS);
  });
});
