/**
 * The "tampered token accounts" fault: the local chain answers chosen accounts as a broken or
 * hostile node would — their bytes cut short or rewritten, another owner program — in every reply
 * that shows them (getAccountInfo, getMultipleAccounts, getTokenAccountsByOwner,
 * getProgramAccounts), or, for the swaps, only in the answers to getTokenAccountsByOwner by mint.
 * Which accounts a reply lists is still decided on the true state, so a list carries the tampered
 * account where the real one was. The stored state never changes, and `clear()` ends the fault.
 * Settable in-process (`handle.tamper.set`) and over HTTP (`POST /__localnet/tamper`);
 * docs/local-chain.md lists the kinds.
 */
import bs58 from 'bs58';
import { StoredAccount } from './accounts.js';
import { ACCOUNT_TYPE_MINT, TOKEN_ACCOUNT_SIZE } from './layouts.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './programs.js';
import type { ChainState } from './state.js';
import { labelAddress } from './state.js';

export const TAMPER_KINDS = [
  'truncate',
  'owner-program',
  'mint',
  'owner',
  'account-type',
  'uninitialized',
  'space',
  'duplicate',
  'mint-swap',
  'owner-swap',
  'program-swap',
] as const;
/**
 * - `truncate`: the data cut to `length` bytes (default 100);
 * - `owner-program`: owned by another program (TAMPER_PROGRAM), bytes unchanged;
 * - `mint` / `owner`: a token account's mint (bytes 0..32) or owner (32..64) rewritten to TAMPER_MINT / TAMPER_OWNER;
 * - `account-type`: a Token-2022 account type byte (165) of 1 (mint) instead of 2 — appended to a 165-byte account;
 * - `uninitialized`: a token account's state (byte 108) set to 0;
 * - `space`: the data as it is, with a `space` (account length) 5 bytes longer than the data;
 * - `duplicate`: listed twice in getTokenAccountsByOwner and getProgramAccounts answers;
 * - `mint-swap` / `owner-swap`: a token account's mint / owner rewritten to `to` (another real mint or
 *   wallet; default TAMPER_MINT / TAMPER_OWNER), and `program-swap`: owned by the other token program
 *   (Token ↔ Token-2022), its bytes unchanged — each only in the answers to getTokenAccountsByOwner
 *   with a `mint` filter, everything else kept: every other answer shows the account as it is.
 */
export type TamperKind = (typeof TAMPER_KINDS)[number];

/** The kinds shown only in the answers to getTokenAccountsByOwner by mint. */
export const MINT_LIST_KINDS: readonly TamperKind[] = ['mint-swap', 'owner-swap', 'program-swap'];

/** Which answer shows an account: a getTokenAccountsByOwner answer with a `mint` filter, or any other. */
export type TamperAnswer = 'mint-list' | 'other';

export interface TamperSpec {
  kind: TamperKind;
  /** These accounts. */
  addresses?: string[];
  /** Every token account (both programs) whose owner field is this wallet. */
  wallet?: string;
  /** `truncate`: how many bytes are left (default 100). */
  length?: number;
  /** `mint-swap` / `owner-swap`: the mint or owner put in (a base58 address). */
  to?: string;
}

/** What `owner-program`, `mint` and `owner` put in: made-up addresses no real account uses. */
export const TAMPER_PROGRAM = labelAddress('tamper:program');
export const TAMPER_MINT = labelAddress('tamper:mint');
export const TAMPER_OWNER = labelAddress('tamper:owner');

export class AccountTamper {
  private spec: TamperSpec | undefined;

  set(spec: TamperSpec): void {
    if (!(TAMPER_KINDS as readonly string[]).includes(spec.kind)) throw new Error(`unknown tamper kind ${String(spec.kind)}; kinds: ${TAMPER_KINDS.join(', ')}`);
    if (spec.addresses === undefined && spec.wallet === undefined) throw new Error('tamper needs addresses or wallet');
    if (spec.addresses !== undefined && !(Array.isArray(spec.addresses) && spec.addresses.every((a) => typeof a === 'string'))) {
      throw new Error('tamper addresses must be an array of strings');
    }
    if (spec.wallet !== undefined && typeof spec.wallet !== 'string') throw new Error('tamper wallet must be a string');
    if (spec.length !== undefined && !(Number.isInteger(spec.length) && spec.length >= 0)) throw new Error('tamper length must be a non-negative integer');
    if (spec.to !== undefined && !isAddress(spec.to)) throw new Error('tamper to must be a base58 address');
    this.spec = { ...spec };
  }

  clear(): void {
    this.spec = undefined;
  }

  current(): TamperSpec | null {
    return this.spec === undefined ? null : { ...this.spec };
  }

  private targets(state: ChainState, address: string): TamperSpec | undefined {
    const spec = this.spec;
    if (spec === undefined) return undefined;
    if (spec.addresses?.includes(address)) return spec;
    if (spec.wallet !== undefined && state.tokenAccountsOf(spec.wallet).has(address)) return spec;
    return undefined;
  }

  /** The account as the node answers it now, in `answer`. */
  render(state: ChainState, account: StoredAccount, answer: TamperAnswer = 'other'): StoredAccount {
    const spec = this.targets(state, account.address);
    if (spec === undefined || spec.kind === 'duplicate') return account;
    if (answer !== 'mint-list' && MINT_LIST_KINDS.includes(spec.kind)) return account;
    const data = Buffer.from(account.data);
    let owner = account.owner;
    let rendered = data;
    let space: number | undefined;
    switch (spec.kind) {
      case 'truncate':
        rendered = data.subarray(0, Math.min(data.length, spec.length ?? 100));
        break;
      case 'owner-program':
        owner = TAMPER_PROGRAM;
        break;
      case 'mint':
        Buffer.from(bs58.decode(TAMPER_MINT)).copy(data, 0);
        break;
      case 'owner':
        Buffer.from(bs58.decode(TAMPER_OWNER)).copy(data, 32);
        break;
      case 'account-type':
        rendered = data.length > TOKEN_ACCOUNT_SIZE ? data : Buffer.concat([data, Buffer.of(ACCOUNT_TYPE_MINT)]);
        rendered[TOKEN_ACCOUNT_SIZE] = ACCOUNT_TYPE_MINT;
        break;
      case 'uninitialized':
        data[108] = 0;
        break;
      case 'space':
        space = data.length + 5;
        break;
      case 'mint-swap':
        Buffer.from(bs58.decode(spec.to ?? TAMPER_MINT)).copy(data, 0);
        break;
      case 'owner-swap':
        Buffer.from(bs58.decode(spec.to ?? TAMPER_OWNER)).copy(data, 32);
        break;
      case 'program-swap':
        owner = owner === TOKEN_PROGRAM ? TOKEN_2022_PROGRAM : owner === TOKEN_2022_PROGRAM ? TOKEN_PROGRAM : TAMPER_PROGRAM;
        break;
    }
    return new StoredAccount(account.address, owner, account.lamports, rendered, account.executable, space);
  }

  /** How many times a list answer shows the account (2 under `duplicate`). */
  copies(state: ChainState, address: string): number {
    return this.targets(state, address)?.kind === 'duplicate' ? 2 : 1;
  }
}

function isAddress(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}
