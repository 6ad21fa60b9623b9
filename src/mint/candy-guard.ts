import { equalBytes } from '../lib/bytes.js';

/**
 * Where a Candy Guard reads its thirdPartySigner, from the guard account as it is on-chain.
 *
 * The guards of the active set (the default set, merged with the group's when there is one: a guard
 * the group enables replaces the default's) each take their accounts from mintV2's remaining
 * accounts in the guards' fixed order, so the thirdPartySigner's account sits after those of the
 * enabled guards before it: botTax (none), solPayment (1), tokenPayment (2; 3 under Core), startDate
 * (none). Reading the set also shows whether the gate's key is the configured signer at all: a gate
 * that co-signs for a guard that does not ask for its signature would sign for nothing (or worse).
 *
 * Layout (metaplex-foundation/mpl-candy-machine programs/candy-guard state and guards; the official
 * clients' serializers; read, not copied; test/unit/mint-candy.test.ts decodes accounts the clients
 * serialize): 8-byte discriminator, base (32), bump (1), authority (32), then the default guard set
 * — features (u64 LE bitmask, bit i = guard i) and each enabled guard's fields in guard order — then
 * the groups: u32 count, each a 6-byte label (UTF-8, zero-padded) and a guard set.
 */
/**
 * Anchor's discriminator of the CandyGuard account (sha256("account:CandyGuard")), and the one the
 * official clients write when they serialize the account themselves (their hooked serializer): both
 * are accepted; the account's owner (the guard program) is checked by the caller.
 */
export const CANDY_GUARD_DISCRIMINATORS: readonly (readonly number[])[] = [
  [44, 207, 199, 184, 112, 103, 34, 181],
  [95, 25, 33, 117, 164, 206, 9, 250],
];
const GUARD_DATA_OFFSET = 8 + 32 + 1 + 32;
const LABEL_BYTES = 6;
const THIRD_PARTY_SIGNER = 4;

/**
 * Each guard's serialized size, in guard order. Every guard has a fixed size: the two with a list
 * or a string are padded to their maximum (programGate: u32 count + 5 addresses; vanityMint: u32
 * length + 100 bytes). test/unit/mint-candy.test.ts checks this table against the clients' own.
 */
const COMMON_GUARDS: readonly number[] = [
  9, // botTax: lamports u64, lastInstruction bool
  40, // solPayment: lamports u64, destination
  72, // tokenPayment: amount u64, mint, destinationAta
  8, // startDate
  32, // thirdPartySigner: signerKey
  40, // tokenGate
  33, // gatekeeper
  8, // endDate
  32, // allowList
  3, // mintLimit
  64, // nftPayment
  8, // redeemedAmount
  32, // addressGate
  32, // nftGate
  32, // nftBurn
  40, // tokenBurn
  40, // freezeSolPayment
  72, // freezeTokenPayment
  164, // programGate: additional, at most 5 (u32 count, padded)
  5, // allocation
  72, // token2022Payment
];
export const GUARD_SIZES: Record<'candy-guard' | 'core-candy-guard', readonly number[]> = {
  'candy-guard': COMMON_GUARDS,
  'core-candy-guard': [
    ...COMMON_GUARDS,
    40, // solFixedFee
    35, // nftMintLimit
    4, // edition
    64, // assetPayment
    32, // assetBurn
    35, // assetMintLimit
    33, // assetBurnMulti
    65, // assetPaymentMulti
    32, // assetGate
    104, // vanityMint: regex (u32 length, padded to 100 bytes)
  ],
};
/** Remaining accounts taken by the guards before thirdPartySigner (botTax, solPayment, tokenPayment, startDate). */
const ACCOUNTS_BEFORE_SIGNER: Record<'candy-guard' | 'core-candy-guard', readonly number[]> = {
  'candy-guard': [0, 1, 2, 0],
  'core-candy-guard': [0, 1, 3, 0],
};

export interface SignerSlot {
  /** The thirdPartySigner's key in the active set, or undefined when the guard is not enabled. */
  signerKey: Uint8Array | undefined;
  /** Its position among mintV2's remaining accounts. */
  slot: number;
}

export class CandyGuardUnreadable extends Error {
  override name = 'CandyGuardUnreadable';
}

interface GuardSet {
  features: bigint;
  /** Offsets of the enabled guards' data, by guard index. */
  offsets: Map<number, number>;
  end: number;
}

/** Throws CandyGuardUnreadable when the bytes are not a candy guard account, or `group` is not one of its groups (or missing when it has some). */
export function readSignerSlot(data: Uint8Array, program: 'candy-guard' | 'core-candy-guard', group: string | undefined): SignerSlot {
  if (data.length < GUARD_DATA_OFFSET || !CANDY_GUARD_DISCRIMINATORS.some((discriminator) => discriminator.every((byte, i) => data[i] === byte))) throw new CandyGuardUnreadable('not a candy guard account');
  const sizes = GUARD_SIZES[program];
  const defaults = readGuardSet(data, GUARD_DATA_OFFSET, sizes);
  let active = defaults;
  let groupSet: GuardSet | undefined;
  if (defaults.end < data.length) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (defaults.end + 4 > data.length) throw new CandyGuardUnreadable('truncated group count');
    const count = view.getUint32(defaults.end, true);
    let offset = defaults.end + 4;
    for (let i = 0; i < count; i++) {
      if (offset + LABEL_BYTES > data.length) throw new CandyGuardUnreadable('truncated group label');
      const label = readLabel(data.subarray(offset, offset + LABEL_BYTES));
      const set = readGuardSet(data, offset + LABEL_BYTES, sizes);
      if (label === group) groupSet = set;
      offset = set.end;
    }
    if (count > 0 && group === undefined) throw new CandyGuardUnreadable('the guard has groups: the configuration must name one (group)');
  }
  if (group !== undefined) {
    if (groupSet === undefined) throw new CandyGuardUnreadable(`the guard has no group ${JSON.stringify(group)}`);
    active = groupSet;
  }

  const enabled = (guard: number): boolean => ((active.features | (group !== undefined ? defaults.features : 0n)) & (1n << BigInt(guard))) !== 0n;
  /** The group's value when the group enables the guard, else the default set's. */
  const offsetOf = (guard: number): number | undefined => (groupSet?.offsets.get(guard) ?? defaults.offsets.get(guard));
  let slot = 0;
  ACCOUNTS_BEFORE_SIGNER[program].forEach((accounts, guard) => {
    if (enabled(guard)) slot += accounts;
  });
  const signerAt = enabled(THIRD_PARTY_SIGNER) ? offsetOf(THIRD_PARTY_SIGNER) : undefined;
  return { signerKey: signerAt === undefined ? undefined : data.slice(signerAt, signerAt + 32), slot };
}

function readGuardSet(data: Uint8Array, start: number, sizes: readonly number[]): GuardSet {
  if (start + 8 > data.length) throw new CandyGuardUnreadable('truncated guard set');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const features = view.getBigUint64(start, true);
  if (features >> BigInt(sizes.length) !== 0n) throw new CandyGuardUnreadable('a guard this gate does not know is enabled');
  const offsets = new Map<number, number>();
  let offset = start + 8;
  sizes.forEach((size, guard) => {
    if ((features & (1n << BigInt(guard))) === 0n) return;
    offsets.set(guard, offset);
    if (offset + size > data.length) throw new CandyGuardUnreadable(`truncated guard ${guard}`);
    offset += size;
  });
  return { features, offsets, end: offset };
}

function readLabel(bytes: Uint8Array): string {
  let end = bytes.indexOf(0);
  if (end < 0) end = bytes.length;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

export function isSignerKey(slot: SignerSlot, key: Uint8Array): boolean {
  return slot.signerKey !== undefined && equalBytes(slot.signerKey, key);
}
