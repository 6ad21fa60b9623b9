import type { ChainReader } from '../chain/types.js';
import type { Config } from '../config.js';
import { GateError } from '../errors.js';
import { answerReserveMs } from '../gate/login-deadline.js';
import { decodeBase58 } from '../lib/base58.js';
import { LruCache } from '../lib/lru-cache.js';
import { checkCondition } from './condition.js';
import { checkCounts, checkWindow } from './refusals.js';
import type { MintCounts } from './store.js';
import { checkOnchainSupply, remainingFor } from './supply.js';
import type { MintConfig } from './types.js';

/**
 * GET /x404_mint/<name>?wallet=<address> (docs/minting.md, "Before the wallet signs"): whether a
 * POST from that wallet would be co-signed now, so a page can say so before asking the wallet to
 * sign. `error` is the code the POST would get — the window, SOLD_OUT, MINT_LIMIT_REACHED, or the
 * rule's own — judged in the POST's order; an unreadable chain or store is the request's 503, never
 * an "eligible". Answers are kept per mint and wallet for ELIGIBILITY_TTL_MS in a bounded cache, so
 * a page polling (or a crowd refreshing) costs one rule evaluation per wallet per few seconds; the
 * route is rate-limited per client like sign-ins.
 */
export interface WalletEligibility {
  address: string;
  eligible: boolean;
  error?: string;
  message?: string;
  remaining: number;
}

export const ELIGIBILITY_TTL_MS = 3_000;
const ELIGIBILITY_CACHE_ENTRIES = 20_000;

export interface EligibilityDependencies {
  config: Config;
  chain: ChainReader;
  now(): number;
  counts(mint: MintConfig, wallet: string): Promise<MintCounts>;
}

export class WalletEligibilityCheck {
  private readonly cache = new LruCache<string, { at: number; mint: MintConfig; answer: Promise<WalletEligibility> }>(ELIGIBILITY_CACHE_ENTRIES);

  constructor(private readonly deps: EligibilityDependencies) {}

  /** The wallet's answer (400 INVALID_WALLET for anything but a base58 address). */
  forWallet(mint: MintConfig, wallet: string): Promise<WalletEligibility> {
    const publicKey = wallet.length <= 44 ? decodeBase58(wallet) : undefined;
    if (publicKey?.length !== 32) throw new GateError(400, 'INVALID_WALLET', '?wallet= must be the wallet\'s base58 address (32 bytes)', { extra: { wallet: wallet.slice(0, 64) } });
    // The mint object is replaced on reload, so a new configuration is never answered from the old one's cache.
    const key = `${mint.name} ${wallet}`;
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.mint === mint && this.deps.now() - cached.at < ELIGIBILITY_TTL_MS) return cached.answer;
    const answer = this.judge(mint, wallet, publicKey);
    this.cache.set(key, { at: this.deps.now(), mint, answer });
    // A failed read is not kept.
    answer.catch(() => this.cache.peek(key)?.answer === answer && this.cache.set(key, { at: -Infinity, mint, answer }));
    return answer;
  }

  private async judge(mint: MintConfig, address: string, publicKey: Uint8Array): Promise<WalletEligibility> {
    const { config } = this.deps;
    const deadline = performance.now() + config.loginTimeoutMs - answerReserveMs(config.loginTimeoutMs);
    const chain = this.deps.chain.withDeadline(deadline);
    const counts = await this.deps.counts(mint, address);
    const remaining = remainingFor(mint, counts);
    try {
      checkWindow(mint, this.deps.now());
      checkCounts(mint, counts);
      await checkOnchainSupply(mint, chain, counts.reserved);
      await checkCondition(mint.condition, { address, publicKey }, { chain, config, now: this.deps.now, deadlineMs: deadline, latitude: undefined, longitude: undefined });
    } catch (error) {
      // The chain or the store could not answer: the request's own 503, never a verdict.
      if (!(error instanceof GateError) || error.httpStatus === 503 || error.httpStatus === 429 || error.code === 'MINT_MISCONFIGURED') throw error;
      return { address, eligible: false, error: error.code, message: error.message, remaining: error.code === 'SOLD_OUT' ? 0 : remaining };
    }
    return { address, eligible: true, remaining };
  }
}
