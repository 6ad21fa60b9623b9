import type { AccountBatcher } from './account-batcher.js';
import { LruCache } from '../lib/lru-cache.js';
import { TOKEN_PROGRAM_IDS } from './token-programs.js';

/**
 * Which token program owns each mint. A token account can only hold a mint of its own program
 * (InitializeAccount checks the mint's owner), so a wallet's balance of a mint lives under that
 * program alone: knowing it halves the ATAs derived and read per login, and those derivations are
 * the main-thread CPU of a login. Answers are kept for MINT_PROGRAM_TTL_MS: a mint's owner cannot
 * change while it exists, and the TTL bounds the contrived case of a Token-2022 mint closed and
 * re-created under the other program at the same address. A missing mint is asked again next time.
 */
export const MINT_PROGRAM_TTL_MS = 5 * 60_000;
const CAPACITY = 10_000;

type Owner = (typeof TOKEN_PROGRAM_IDS)[number] | null;

export class MintPrograms {
  private readonly known = new LruCache<string, { program: Owner; until: number }>(CAPACITY);
  private readonly inFlight = new Map<string, Promise<Owner>>();

  constructor(
    private readonly batcher: AccountBatcher,
    private readonly now: () => number = Date.now,
  ) {}

  /** The owning program when it is known now (no lookup, no recency change); undefined otherwise. */
  knownProgramOf(mint: string): Owner | undefined {
    const cached = this.known.peek(mint);
    return cached && cached.until > this.now() ? cached.program : undefined;
  }

  /**
   * The token program owning each mint, or null when the address is not a mint of either.
   * `deadlineMs` bounds the lookup (see AccountBatcher.load); a caller that joins a lookup already
   * under way shares its fate.
   */
  async programsOf(mints: readonly string[], deadlineMs = Infinity): Promise<Map<string, Owner>> {
    const now = this.now();
    const result = new Map<string, Owner>();
    const missing: string[] = [];
    const waiting: Promise<void>[] = [];
    for (const mint of new Set(mints)) {
      const cached = this.known.get(mint);
      if (cached && cached.until > now) {
        result.set(mint, cached.program);
        continue;
      }
      const pending = this.inFlight.get(mint);
      if (pending) waiting.push(pending.then((program) => void result.set(mint, program)));
      else missing.push(mint);
    }
    if (missing.length > 0) waiting.push(this.load(missing, result, deadlineMs));
    await Promise.all(waiting);
    return result;
  }

  private load(mints: string[], result: Map<string, Owner>, deadlineMs: number): Promise<void> {
    // Only the owner is needed: a zero-length slice keeps the reply small.
    const accounts = this.batcher.load(mints, { offset: 0, length: 0 }, false, deadlineMs);
    const loading = mints.map((mint, i) => {
      const program = accounts.then((all) => ownerProgram(all[i]?.owner));
      this.inFlight.set(mint, program);
      return program.then(
        (owner) => {
          this.inFlight.delete(mint);
          if (owner !== null) this.known.set(mint, { program: owner, until: this.now() + MINT_PROGRAM_TTL_MS });
          result.set(mint, owner);
        },
        (error: unknown) => {
          this.inFlight.delete(mint);
          throw error;
        },
      );
    });
    return Promise.all(loading).then(() => undefined);
  }
}

function ownerProgram(owner: string | undefined): Owner {
  return TOKEN_PROGRAM_IDS.find((program) => program === owner) ?? null;
}
