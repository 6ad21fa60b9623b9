import bs58 from 'bs58';
import { defaultOffchainMessage } from '../sign-modes/offchain-message.js';
import { buildChallenge } from './challenge.js';
import { refuseWeakAddress, refuseWeakSignature, unsignedMemoTransaction, type ResolvedSigner, type SignInInput } from './signer.js';

/**
 * How the wallet proves itself (the gate's X-404-Sign-Mode):
 * - `challenge`: signMessage over the challenge string (every gate, every software wallet);
 * - `siws`: Sign In With Solana — the wallet shows the site's domain and checks it against the page
 *   before signing, so a phishing page cannot relay the gate's nonce (needs the gate's SIWS_DOMAINS);
 * - `offchain`: the Solana off-chain message format, as `solana sign-offchain-message` and Ledger sign it;
 * - `memo-tx`: a transaction that can never land, carrying the challenge in a Memo (hardware wallets);
 * - `auto` (default): `siws` when the wallet can sign in and the gate offers it, `challenge` when the
 *   wallet signs messages, `memo-tx` when it only signs transactions or is a hardware wallet
 *   (`offchain` when that is all the gate and the wallet have in common).
 */
export type SignMode = 'auto' | 'challenge' | 'siws' | 'offchain' | 'memo-tx';
export type ConcreteSignMode = Exclude<SignMode, 'auto'>;

/** The sign-in part of the gate's nonce answer (`signModes`, `siws`); absent from gates before sign modes. */
export interface GateSignInOffer {
  signModes?: readonly string[];
  /** `issuedAt`: when the gate issued the nonce, by the gate's clock (the message's Issued At, whatever the caller's clock says). */
  siws?: { domain: string; domains?: readonly string[]; statement?: string; chainId: string; resources: readonly string[]; issuedAt?: string };
}

export class SignModeUnavailable extends Error {
  override name = 'SignModeUnavailable';
}

/** The mode to use: the one asked for, or what `auto` picks for this wallet and gate. */
export function chooseSignMode(requested: SignMode, signer: ResolvedSigner, offer: GateSignInOffer): ConcreteSignMode {
  // A gate from before sign modes lists none: it accepts only the challenge.
  const offered = offer.signModes ?? ['challenge'];
  const gateTakes = (mode: ConcreteSignMode): boolean => offered.includes(mode);
  if (requested !== 'auto') {
    if (!gateTakes(requested)) throw new SignModeUnavailable(`the gate does not accept sign mode ${requested} (it accepts ${offered.join(', ')})`);
    return requested;
  }
  // A hardware wallet signs transactions (and off-chain messages), not text: its adapter's signIn
  // or signMessage would fail on the device.
  if (signer.signIn && !signer.hardware && offer.siws && gateTakes('siws')) return 'siws';
  if (signer.sign && !signer.hardware && gateTakes('challenge')) return 'challenge';
  if (signer.signTransaction && gateTakes('memo-tx')) return 'memo-tx';
  if (signer.sign && gateTakes('offchain')) return 'offchain';
  throw new SignModeUnavailable(`the wallet cannot sign any proof this gate accepts (${offered.join(', ')}): it has ${capabilities(signer)}`);
}

function capabilities(signer: ResolvedSigner): string {
  const have = [signer.sign && 'signMessage', signer.signIn && 'signIn', signer.signTransaction && 'signTransaction'].filter(Boolean);
  return have.length > 0 ? have.join(', ') : 'no signing method';
}

export interface ProofInput {
  mode: ConcreteSignMode;
  signer: ResolvedSigner;
  /** The feature, or the rule's name, whose path and constant the challenge carries. */
  feature: string;
  nonce: string;
  mechanism: string;
  offer: GateSignInOffer;
}

/**
 * The login headers that carry the proof: X-404-Signature, X-404-Addr and, beyond the challenge, the
 * mode and its message. What the wallet returned is held to the gate's strict rules first (a key
 * and an R not of small order and canonically encoded, S below the group order): a wallet that
 * breaks them fails here, before the gate spends a request on it.
 */
export async function signProof(input: ProofInput): Promise<Record<string, string>> {
  const headers = await signedProofHeaders(input);
  const address = headers['x-404-addr'] as string;
  refuseWeakAddress(address, 'the wallet signed as');
  refuseWeakSignature(address, bs58.decode(headers['x-404-signature'] as string), `the wallet (sign mode ${input.mode})`);
  return headers;
}

async function signedProofHeaders({ mode, signer, feature, nonce, mechanism, offer }: ProofInput): Promise<Record<string, string>> {
  const challenge = buildChallenge(nonce, feature, mechanism);
  const need = <T>(method: T | undefined, name: string): T => {
    if (method === undefined) throw new SignModeUnavailable(`sign mode ${mode} needs the wallet's ${name}`);
    return method;
  };
  switch (mode) {
    case 'challenge': {
      const signature = await need(signer.sign, 'signMessage')(new TextEncoder().encode(challenge));
      return { 'x-404-signature': bs58.encode(signature), 'x-404-addr': signer.address };
    }
    case 'offchain': {
      const message = defaultOffchainMessage(challenge, bs58.decode(signer.address));
      const signature = await need(signer.sign, 'signMessage')(message);
      return proofHeaders(mode, signer.address, signature, message);
    }
    case 'siws': {
      if (!offer.siws) throw new SignModeUnavailable('the gate offers no Sign In With Solana details (SIWS_DOMAINS is not set)');
      const signed = await need(signer.signIn, 'signIn')(signInInput(signer.address, nonce, offer.siws));
      return proofHeaders(mode, signed.address, signed.signature, signed.signedMessage);
    }
    case 'memo-tx': {
      const signedTransaction = await need(signer.signTransaction, 'signTransaction')(unsignedMemoTransaction(signer.address, challenge));
      return proofHeaders(mode, signer.address, firstSignature(signedTransaction), signedTransaction);
    }
  }
}

/**
 * The SIWS input. On a page: always the page's own host and origin — what the wallet compares the
 * domain with, and what the gate checks against SIWS_DOMAINS; a page the gate does not list is
 * refused by the gate (never signed in under another site's name). Elsewhere (a backend, the CLI):
 * the gate's first domain.
 */
export function signInInput(address: string, nonce: string, siws: NonNullable<GateSignInOffer['siws']>): SignInInput {
  const page = (globalThis as { location?: { host?: string; origin?: string } }).location;
  const onPage = typeof page?.host === 'string' && page.host !== '' && typeof page.origin === 'string';
  const domain = onPage ? (page!.host as string).toLowerCase() : siws.domain;
  const uri = onPage ? (page!.origin as string) : `https://${domain}`;
  return {
    domain,
    address,
    ...(siws.statement === undefined ? {} : { statement: siws.statement }),
    uri,
    version: '1',
    chainId: siws.chainId,
    nonce,
    // The gate's own time when it sent it: a caller whose clock is off would otherwise be refused.
    issuedAt: siws.issuedAt ?? new Date().toISOString(),
    resources: [...siws.resources],
  };
}

function proofHeaders(mode: ConcreteSignMode, address: string, signature: Uint8Array, message: Uint8Array): Record<string, string> {
  return { 'x-404-sign-mode': mode, 'x-404-signature': bs58.encode(signature), 'x-404-addr': address, 'x-404-message': base64(message) };
}

/** The fee payer's signature: the first of the transaction's signatures (after a one-byte count). */
function firstSignature(transaction: Uint8Array): Uint8Array {
  if (transaction.length < 65 || transaction[0] === 0) throw new TypeError('signTransaction returned a transaction without a signature');
  return transaction.slice(1, 65);
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
