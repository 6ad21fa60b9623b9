/**
 * Why bytes are not a transaction, or not one the caller accepts: `reason` is a stable word clients
 * may switch on (the mint's INVALID_TRANSACTION `reason`, docs/minting.md lists them), `message`
 * says where. Never carries the input's bytes.
 */
export class TransactionRejected extends Error {
  override name = 'TransactionRejected';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The decoder's refusal: the bytes are not a transaction Solana would accept at all. `field` names
 * the part of the wire format at fault (`signatures`, `header`, `version`, `accountKeys`,
 * `recentBlockhash`, `instructions`, `addressTableLookups`, or `transaction` for the whole) and
 * `detail` says what is wrong there, for a caller that prints the field before it (the sign modes'
 * X-404-Message errors); `message` reads on its own (the mint's errors).
 */
export class MalformedTransaction extends TransactionRejected {
  override name = 'MalformedTransaction';
  constructor(
    reason: string,
    readonly field: string,
    readonly detail: string,
    message = detail,
  ) {
    super(reason, message);
  }
}
