/** One account as the local chain stores it, with its JSON forms precomputed for fast replies. */

/** u64::MAX, what the node reports for rent-exempt accounts; written literally (JS numbers can't hold it). */
export const RENT_EPOCH_JSON = '18446744073709551615';

export interface AccountInput {
  owner: string;
  lamports: bigint;
  data: Buffer;
  executable?: boolean;
}

export class StoredAccount {
  readonly executable: boolean;
  /** `{"data":[…,"base64"],…}` for the whole account: the hot path of getMultipleAccounts. */
  readonly base64Json: string;

  constructor(
    readonly address: string,
    readonly owner: string,
    readonly lamports: bigint,
    readonly data: Buffer,
    executable = false,
    /** The `space` the node reports; the data's length unless a fault says otherwise (tamper.ts). */
    private readonly space = data.length,
  ) {
    this.executable = executable;
    this.base64Json = this.jsonWithData(`[${JSON.stringify(data.toString('base64'))},"base64"]`);
  }

  /** The account object with `data` already rendered as JSON (a slice, another encoding, or parsed). */
  jsonWithData(dataJson: string): string {
    return (
      `{"data":${dataJson},"executable":${this.executable},"lamports":${this.lamports},` +
      `"owner":${JSON.stringify(this.owner)},"rentEpoch":${RENT_EPOCH_JSON},"space":${this.space}}`
    );
  }
}

/** Lamports that make an account of `size` bytes rent-exempt (mainnet rent parameters). */
export function rentExemptLamports(size: number): bigint {
  return BigInt((128 + size) * 3480 * 2);
}
