import { invalidHeader } from '../errors.js';
import { address, baseUnits, describe } from '../lib/header-values.js';

/** "Hold at least `amount` base units of `mint`": the unit of multitoken and tier policies. */
export interface TokenRequirement {
  mint: string;
  amount: bigint;
}

/** A `{mint, amount}` JSON object; `where` says which entry of the header it was (for the 400 message). */
export function tokenRequirement(name: string, value: unknown, where: string): TokenRequirement {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidHeader(name, `${where} must be an object {"mint": "<address>", "amount": "<base units>"}`);
  }
  const entry = value as Record<string, unknown>;
  const unknownKeys = Object.keys(entry).filter((key) => key !== 'mint' && key !== 'amount');
  if (unknownKeys.length > 0) throw invalidHeader(name, `${where} has unknown field ${describe(unknownKeys[0])}`);
  if (!('mint' in entry) || !('amount' in entry)) throw invalidHeader(name, `${where} needs both "mint" and "amount"`);
  return { mint: address(name, entry.mint), amount: baseUnits(name, entry.amount) };
}

/** One requirement as it appears in results and failure bodies: amounts as exact strings. */
export interface RequirementReport {
  mint: string;
  required: string;
  balance: string;
  met: boolean;
}

export function reportRequirement(requirement: TokenRequirement, balances: ReadonlyMap<string, bigint>): RequirementReport {
  const balance = balances.get(requirement.mint) ?? 0n;
  return {
    mint: requirement.mint,
    required: requirement.amount.toString(),
    balance: balance.toString(),
    met: balance >= requirement.amount,
  };
}
