import { encodeBase58 } from '../lib/base58-encode.js';
import { decodeTransaction } from '../transaction/decode.js';
import type { WireTransaction } from '../transaction/message.js';
import type { HistoryEntry, MintChain } from './chain.js';
import { checkTemplate } from './check.js';
import type { RebuiltCounts } from './store.js';
import type { MintConfig } from './types.js';

/**
 * A mint's counts rebuilt from the chain, the launch's ledger (docs/minting.md, "Counts rebuilt
 * from the chain"): the gate's key signs every mint it co-signs, so the key's history is every mint
 * issued. Its signatures are paged with `before` (getSignaturesForAddress at `confirmed`, 1,000 a
 * page), each successful one read (getTransaction base64 at `confirmed`, through the client's batch
 * limits), decoded with the gate's own decoder and matched to the signer's configured mints by
 * template; counted per mint name and fee payer. Several names on one template (phases of one
 * on-chain mint) take a transaction by its blockTime inside their start/end, else the first name
 * in the file.
 *
 * Only run once every transaction that could still land has expired (recount.ts), so the history
 * read is final. Throws when a page comes from a node whose history does not start at slot 0 (the
 * oldest mints could be missing) or when a listed transaction cannot be read: the mint stays
 * unavailable and the rebuild runs again.
 */
export const HISTORY_PAGE = 1_000;
/** getTransaction calls handed to the RPC client at once (it packs them under the provider's limits). */
const TRANSACTIONS_PER_ROUND = 200;

export async function rebuildCounts(signerMints: readonly MintConfig[], chain: MintChain, minSlot = 0): Promise<Map<string, RebuiltCounts>> {
  const signer = signerMints[0]!.signer.address;
  const counts = new Map(signerMints.map((mint) => [mint.name, { issued: 0, wallets: new Map<string, number>() }]));
  const succeeded = await signerHistory(signer, chain, minSlot);
  for (let i = 0; i < succeeded.length; i += TRANSACTIONS_PER_ROUND) {
    const round = succeeded.slice(i, i + TRANSACTIONS_PER_ROUND);
    const transactions = await chain.transactions(round.map((entry) => entry.signature));
    transactions.forEach((landed, index) => {
      if (landed === null) throw new Error(`getTransaction has no ${round[index]!.signature}, listed in the signer's history`);
      if (landed.err !== null) return;
      const tx = decodeOrUndefined(landed.bytes);
      if (tx === undefined) return;
      const attributed = attribute(tx, signerMints, landed.blockTime ?? round[index]!.blockTime);
      if (attributed === undefined) return;
      const entry = counts.get(attributed.mint.name)!;
      entry.issued += 1;
      entry.wallets.set(attributed.feePayer, (entry.wallets.get(attributed.feePayer) ?? 0) + 1);
    });
  }
  return counts;
}

/** Every successful signature of `signer`, newest first. */
async function signerHistory(signer: string, chain: MintChain, minSlot: number): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  let before: string | undefined;
  for (;;) {
    const { entries, historyFrom } = await chain.signaturesPage(signer, before, HISTORY_PAGE, minSlot);
    for (const entry of entries) if (entry.err === null) out.push(entry);
    if (entries.length < HISTORY_PAGE) {
      // The end of a pruned node's list is not the start of the signer's history.
      if (historyFrom !== 0) throw new Error(`the node that ended the signer's history keeps blocks from slot ${historyFrom} only`);
      return out;
    }
    before = entries[entries.length - 1]!.signature;
  }
}

function decodeOrUndefined(bytes: Uint8Array): WireTransaction | undefined {
  try {
    return decodeTransaction(bytes);
  } catch {
    return undefined;
  }
}

/** The configured mint this transaction is, and its fee payer; undefined when it is none of them. */
function attribute(tx: WireTransaction, mints: readonly MintConfig[], blockTime: number | null): { mint: MintConfig; feePayer: string } | undefined {
  const matches: { mint: MintConfig; feePayer: string }[] = [];
  for (const mint of mints) {
    try {
      matches.push({ mint, feePayer: encodeBase58(checkTemplate(tx, mint.template).feePayer) });
    } catch {
      // Not this template.
    }
  }
  if (matches.length <= 1 || blockTime === null) return matches[0];
  const ms = blockTime * 1000;
  return matches.find(({ mint }) => (mint.startMs === undefined || ms >= mint.startMs) && (mint.endMs === undefined || ms < mint.endMs)) ?? matches[0];
}
