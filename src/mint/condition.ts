import type { ChainReader } from '../chain/types.js';
import { walletHoldings } from '../chain/wallet-holdings.js';
import type { Config } from '../config.js';
import { GateError } from '../errors.js';
import { featureHoldingsPlan } from '../features/holdings-plan.js';
import { FEATURES } from '../features/registry.js';
import { checkLocation } from '../geo/locate.js';
import { evaluateRule } from '../rules/evaluate.js';
import { ruleFailure } from '../rules/answer.js';
import type { MintCondition } from './types.js';

/**
 * The mint's condition for the fee payer, judged exactly as a sign-in to the same rule (or feature
 * under the same named policy) would judge it, on the chain as it is now: the same evaluation, the
 * same refusal code (the deciding leaf's, e.g. HOLDS_BANNED_TOKEN, with `rule` and `failed`), and a
 * 503 when a read it needs fails — never a co-signature on an unreadable chain. A refusal answers
 * 403 here whatever a sign-in answers for it: the wallet is refused, the gate did not fail.
 */
export interface ConditionEnvironment {
  /** Carries the request's deadline. */
  chain: ChainReader;
  config: Config;
  now(): number;
  deadlineMs: number;
  latitude: string | undefined;
  longitude: string | undefined;
}

export async function checkCondition(condition: MintCondition, wallet: { address: string; publicKey: Uint8Array }, environment: ConditionEnvironment): Promise<void> {
  try {
    await judgeCondition(condition, wallet, environment);
  } catch (error) {
    throw asRefusal(error);
  }
}

/** Failures of the gate or of the caller's request keep their status; the rule's verdicts become 403. */
const KEEP_STATUS = new Set([400, 429, 503]);
const KEEP_CODE = new Set(['INTERNAL_ERROR', 'LOCATION_ERROR']);
function asRefusal(error: unknown): unknown {
  if (!(error instanceof GateError) || error.httpStatus === 403 || KEEP_STATUS.has(error.httpStatus) || KEEP_CODE.has(error.code)) return error;
  return new GateError(403, error.code, error.message, error.options);
}

async function judgeCondition(condition: MintCondition, wallet: { address: string; publicKey: Uint8Array }, environment: ConditionEnvironment): Promise<void> {
  if (condition.kind === 'rule') {
    const outcome = await evaluateRule(condition.rule, wallet, environment);
    // Undecided: a leaf it needs could not be read — its error (a 503 for an unreadable chain).
    if (outcome.passed === undefined) throw outcome.error;
    if (!outcome.passed) throw ruleFailure(condition.rule, outcome);
    return;
  }
  const { policy } = condition;
  const module = FEATURES[policy.feature];
  const heldMints = module.heldMints?.(policy.params) ?? [];
  const { chain, config, now, deadlineMs } = environment;
  // The same plan a sign-in makes (src/gate/pipeline.ts featureCheck): deny conditions count every token account.
  const holdings = walletHoldings(chain, wallet.address, featureHoldingsPlan(module, policy.params, heldMints, config.holdingsScope));
  await module.check(wallet.address, policy.params, { chain, holdings, config, now, deadlineMs });
  checkLocation({ ...policy.geo, latitude: environment.latitude, longitude: environment.longitude });
}
