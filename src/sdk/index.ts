/**
 * x404-gate/sdk: sign a wallet in to an x404 gate from a web page or from Node. No Node-only
 * imports here: fetch, TextEncoder, WebCrypto (through @noble/ed25519), bs58, and the browser-safe
 * message codecs of src/sign-modes.
 */
export { authenticate, type AuthenticateOptions, type AuthResult, type AuthStep } from './authenticate.js';
export { buildChallenge, featurePath } from './challenge.js';
export { decodeTokenClaims, type GateTokenClaims } from './claims.js';
export { X404Error, type X404ErrorBody, type X404ErrorCode } from './errors.js';
export type { Fetch } from './http.js';
export {
  FEATURES,
  isFeature,
  policyToHeaders,
  type ActivityPolicy,
  type AgePolicy,
  type Amount,
  type BlacklistPolicy,
  type Feature,
  type GeoPolicy,
  type MultitokenPolicy,
  type NodebtPolicy,
  type PolicyByFeature,
  type PolicyFor,
  type TierPolicy,
  type TimelockPolicy,
  type TokenRequirement,
} from './policy.js';
export { strictEd25519Refusal, type StrictRefusal } from '../signature/strict-ed25519.js';
export { chooseSignMode, signInInput, SignModeUnavailable, type ConcreteSignMode, type GateSignInOffer, type SignMode } from './proof.js';
export {
  resolveSigner,
  type KeypairSigner,
  type PublicKeyLike,
  type ResolvedSigner,
  type SignInInput,
  type SignInOutput,
  type Signer,
  type StandardAccount,
  type StandardWallet,
  type StandardWalletSigner,
  type WalletSigner,
} from './signer.js';
export { associatedTokenAddress, mint, mintAndConfirm, mintConfiguration, tokenMintTransaction, MINT_CONFIGURATION_KEYS, type MintAndConfirmOptions, type MintConfiguration, type MintOptions, type MintResult } from './mint.js';
export { confirmTransaction, type Confirmation, type ConfirmOptions } from './confirm.js';
export { defaultStorage, memoryStorage, storageKey, webStorage, type TokenStorage } from './storage.js';
