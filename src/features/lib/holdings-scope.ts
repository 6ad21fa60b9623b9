import type { HoldingsScope } from '../../chain/wallet-holdings.js';
import { invalidHeader } from '../../errors.js';
import { describe, type HeaderBag } from '../../lib/header-values.js';

/**
 * The `scope` policy header (a field of the same name in POLICIES_FILE) of the features that read
 * balances: which token accounts count (src/chain/wallet-holdings.ts). `all`: every token account
 * the wallet owns; `ata`: its associated token accounts only — faster, and a holder who keeps a
 * token in another account passes a deny condition (blacklist, `not`) anyway. Absent:
 * HOLDINGS_SCOPE for deny conditions, the ATAs for positive ones. Like every policy header it is
 * part of the token's `pol`, so a relying party sees which scope a token was issued under.
 */
export const SCOPE_HEADER = 'scope';

export function holdingsScopeHeader(headers: HeaderBag): HoldingsScope | undefined {
  const raw = headers.get(SCOPE_HEADER);
  if (raw === undefined) return undefined;
  const value = raw.trim().toLowerCase();
  if (value === 'all' || value === 'ata') return value;
  throw invalidHeader(SCOPE_HEADER, `${describe(raw)} is not "all" (every token account the wallet owns) or "ata" (its associated token accounts only)`);
}
