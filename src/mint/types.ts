import type { KeyObject } from 'node:crypto';
import type { NamedPolicy } from '../policy/named-policy.js';
import type { Rule } from '../rules/types.js';
import type { TemplateSpec } from './check.js';
import type { MintProgram } from '../contract/mint.js';
import type { MintPayment } from './payment.js';

/**
 * One mint of POLICIES_FILE's `"mints"` (docs/minting.md), built once when the file is loaded and
 * shared, read-only, by every request until SIGHUP replaces the whole set.
 */
export interface MintConfig {
  name: string;
  program: MintProgram;
  /** The co-signing key. `privateKey` never leaves the process: not served, not logged, not cloned to a worker. */
  signer: MintSigner;
  /** What the fee payer must meet: a rule, or a feature under a named policy. */
  condition: MintCondition;
  perWallet: number;
  /** undefined: no cap. */
  supply: number | undefined;
  /** ms since the epoch; undefined: open. */
  startMs: number | undefined;
  endMs: number | undefined;
  /** The message-level template (src/mint/check.ts). */
  template: TemplateSpec;
  /** Token templates: the mint and its token program (base58), for the fee payer's ATA. */
  token?: { mint: string; program: string };
  /** Token templates: the cap on the mint's on-chain supply (base units) and the amount each mint adds. */
  maxOnchainSupply?: bigint | undefined;
  amount?: bigint | undefined;
  /** A paid mint's price (payment.ts). */
  payment?: MintPayment | undefined;
  /** The configuration as GET /x404_mint/<name> serves it (without the live counts). */
  listing: Readonly<Record<string, unknown>>;
}

export interface MintSigner {
  /** base58 public key. */
  address: string;
  publicKey: Uint8Array;
  privateKey: KeyObject;
  /** Redacted in logs and JSON: a signer printed by mistake shows only its address. */
  toJSON(): { address: string };
}

export type MintCondition = { kind: 'rule'; rule: Rule } | { kind: 'feature'; policy: NamedPolicy };
