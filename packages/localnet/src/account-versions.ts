/**
 * Account versions for the banks behind the newest block (cluster.ts): when a transaction lands,
 * every account it writes keeps the version it replaced, tagged with the landing slot, so a read
 * at `confirmed` or `finalized` answers the account as that bank has it. Kept for the blocks the
 * furthest bank can trail by; an admin write (not a landing) replaces the account in every bank.
 */
import type { StoredAccount } from './accounts.js';

interface Change {
  slot: number;
  /** The account before the change (undefined: it did not exist). */
  previous: StoredAccount | undefined;
}

export class AccountVersions {
  /** address → its changes within the window, oldest first (one per slot: the version before that slot's first change). */
  private readonly changes = new Map<string, Change[]>();
  /** [slot, address] in landing order, for dropping what no bank can reach any more. */
  private readonly order: [number, string][] = [];

  /** `address` is about to change in `slot`; `previous` is what it was. */
  record(address: string, previous: StoredAccount | undefined, slot: number): void {
    let list = this.changes.get(address);
    if (!list) this.changes.set(address, (list = []));
    if (list.length > 0 && list[list.length - 1]!.slot === slot) return;
    list.push({ slot, previous });
    this.order.push([slot, address]);
  }

  /** An admin write: the account is the same in every bank from now on. */
  forget(address: string): void {
    if (this.changes.size > 0) this.changes.delete(address);
  }

  /**
   * The account as the bank at `slot` has it: the version before the first change after `slot`,
   * or `current` when it has not changed since.
   */
  at(address: string, slot: number, current: StoredAccount | undefined): StoredAccount | undefined {
    const list = this.changes.get(address);
    if (!list) return current;
    for (const change of list) if (change.slot > slot) return change.previous;
    return current;
  }

  /** Addresses changed after `slot`: a list read at that bank must consider them whatever the indexes say now. */
  changedAfter(slot: number): string[] {
    const addresses: string[] = [];
    for (const [address, list] of this.changes) if (list[list.length - 1]!.slot > slot) addresses.push(address);
    return addresses;
  }

  /** Drops the changes at or before `slot`: every bank has them. */
  prune(slot: number): void {
    while (this.order.length > 0 && this.order[0]![0] <= slot) {
      const [, address] = this.order.shift()!;
      const list = this.changes.get(address);
      if (!list) continue;
      while (list.length > 0 && list[0]!.slot <= slot) list.shift();
      if (list.length === 0) this.changes.delete(address);
    }
  }
}
