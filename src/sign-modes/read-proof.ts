import type { Config, SignMode } from '../config.js';
import { GateError, invalidHeader, missingHeader } from '../errors.js';
import type { HeaderBag } from '../lib/header-values.js';
import { decodeBase58 } from '../lib/base58.js';
import type { AcceptedNonce } from '../nonce/codec.js';
import { challengeFor } from '../signature/challenge.js';
import { checkMemoTransaction, decodeMemoTransaction } from './memo-transaction.js';
import { checkOffchainMessage, defaultOffchainMessage, parseOffchainMessage } from './offchain-message.js';
import { MessageRejected } from './message-rejected.js';
import { checkSiwsMessage, parseSiwsMessage } from './siws.js';

/**
 * What a login proves and how (X-404-Sign-Mode): the bytes the wallet signed and its signature, once
 * the message has been checked to carry this gate's challenge for this wallet. Four proofs of the
 * same challenge (CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>):
 *
 * - `challenge` (default): the challenge string itself, signed with signMessage (the seed's way);
 * - `siws`: a Sign In With Solana message (X-404-Message) naming one of SIWS_DOMAINS, this nonce,
 *   this wallet and the resource x404:<feature>;
 * - `offchain`: the Solana off-chain message whose body is the challenge (X-404-Message, or, when
 *   absent, the bytes `solana sign-offchain-message` signs);
 * - `memo-tx`: a transaction that can never land (zero blockhash) whose only instruction is a Memo
 *   of the challenge, signed by the wallet alone (X-404-Message).
 *
 * Only reading and checking happens here, on the event loop (a few µs: bench/RESULTS.md); the
 * signature is verified in the worker pool like any other, and nothing is spent before it is.
 */
export interface Proof {
  mode: SignMode;
  /** What the signature is over: the challenge text, or the message bytes of the mode. */
  signed: string | Uint8Array;
  signature: Uint8Array;
}

export interface ProofContext {
  feature: string;
  path: string;
  headers: HeaderBag;
  wallet: { address: string; publicKey: Uint8Array };
  nonce: string;
  accepted: AcceptedNonce;
  config: Config;
  nowMs: number;
}

/** Longest X-404-Message accepted, decoded; a memo transaction is further held to 1232 bytes. */
export const MAX_MESSAGE_BYTES = 4096;
const MODE_HEADER = 'x-404-sign-mode';
const MESSAGE_HEADER = 'x-404-message';

/** The mode a request asks for, before anything else is read (400 for an unknown or disabled one). */
export function signModeOf(headers: HeaderBag, config: Config): SignMode {
  const raw = headers.get(MODE_HEADER);
  if (raw === undefined) {
    if (!config.signModes.includes('challenge')) throw missingHeader(['X-404-Sign-Mode']);
    return 'challenge';
  }
  const mode = raw.trim().toLowerCase() as SignMode;
  if (!config.signModes.includes(mode)) {
    throw invalidHeader('X-404-Sign-Mode', `must be one of the sign modes this gate accepts: ${config.signModes.join(', ')}`);
  }
  return mode;
}

export function readProof(mode: SignMode, context: ProofContext): Proof {
  const { headers, wallet, config } = context;
  const signature = decodeBase58(headers.get('x-404-signature') as string);
  if (signature?.length !== 64) throw invalidSignature(SIGNATURE_FAILED);
  const challenge = challengeFor(context.nonce, context.path, config.mechanism, context.feature);
  if (mode === 'challenge') return { mode, signed: challenge, signature };

  const bytes = messageBytes(headers, mode !== 'offchain');
  try {
    switch (mode) {
      case 'siws': {
        const message = parseSiwsMessage(utf8(bytes as Uint8Array));
        checkSiwsMessage(message, {
          address: wallet.address,
          nonce: context.nonce,
          feature: context.feature,
          domains: config.siwsDomains,
          chainId: config.siwsChainId,
          nonceIssuedAtMs: context.accepted.issuedAtMs,
          nonceExpiresAtMs: context.accepted.expiresAtMs,
          nowMs: context.nowMs,
        });
        return { mode, signed: bytes as Uint8Array, signature };
      }
      case 'offchain': {
        if (bytes === undefined) return { mode, signed: defaultOffchainMessage(challenge, wallet.publicKey), signature };
        checkOffchainMessage(parseOffchainMessage(bytes), { challenge, wallet: wallet.publicKey });
        return { mode, signed: bytes, signature };
      }
      case 'memo-tx': {
        const { message } = checkMemoTransaction(decodeMemoTransaction(bytes as Uint8Array), { wallet: wallet.publicKey, challenge, signature });
        return { mode, signed: message, signature };
      }
    }
  } catch (error) {
    if (!(error instanceof MessageRejected)) throw error;
    if (error.kind === 'malformed') throw invalidHeader('X-404-Message', `not a ${mode} message: ${error.field}: ${error.message}`);
    throw invalidSignature(`The ${mode} message does not prove this sign-in: ${error.field}: ${error.message}`, error.field);
  }
}

/** X-404-Message: standard base64 (with padding) of at most MAX_MESSAGE_BYTES bytes. */
function messageBytes(headers: HeaderBag, required: boolean): Uint8Array | undefined {
  const text = headers.get(MESSAGE_HEADER);
  if (text === undefined) {
    if (required) throw missingHeader(['X-404-Message']);
    return undefined;
  }
  if (text.length === 0 || text.length > Math.ceil(MAX_MESSAGE_BYTES / 3) * 4) {
    throw invalidHeader('X-404-Message', `must be the base64 of 1 to ${MAX_MESSAGE_BYTES} bytes`);
  }
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw invalidHeader('X-404-Message', 'must be standard base64 (A–Z a–z 0–9 + /, padded with =)');
  const bytes = Buffer.from(text, 'base64');
  // Node ignores non-zero padding bits; only one spelling of the bytes is accepted.
  if (bytes.toString('base64') !== text) throw invalidHeader('X-404-Message', 'is not canonical base64 (non-zero padding bits)');
  return bytes;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalidHeader('X-404-Message', 'the message is not valid UTF-8 text');
  }
}

export const SIGNATURE_FAILED = 'Signature verification failed: X-404-Signature must be the base58 ed25519 signature of the challenge by X-404-Addr';

export function invalidSignature(why: string, field?: string): GateError {
  return new GateError(401, 'INVALID_SIGNATURE', why, field === undefined ? {} : { extra: { field } });
}
