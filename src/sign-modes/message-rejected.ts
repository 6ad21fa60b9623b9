/**
 * Why a signed message (X-404-Message) cannot prove the challenge. Thrown by the codecs of this
 * folder, which the gate, the SDK and the CLI share (so no Node-only imports here: Uint8Array,
 * DataView, TextEncoder/TextDecoder only). The gate turns it into its error body:
 *
 * - `malformed`: the bytes are not a message of the mode's format at all (bad base64, truncated,
 *   trailing bytes, an over-long length, non-UTF-8 text, a line out of the grammar) → 400
 *   INVALID_HEADER on X-404-Message;
 * - `mismatch`: a well-formed message that does not prove this challenge for this wallet (another
 *   domain, address, feature, nonce, memo, signer, an expired message, an extra instruction, …) →
 *   401 INVALID_SIGNATURE.
 *
 * `field` names what is wrong (e.g. `domain`, `Issued At`, `recentBlockhash`, `header version`),
 * and the message says it in words a developer can act on. Neither ever echoes more than a short,
 * JSON-escaped excerpt of the input.
 */
export class MessageRejected extends Error {
  override name = 'MessageRejected';
  constructor(
    readonly kind: 'malformed' | 'mismatch',
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export const malformed = (field: string, why: string): MessageRejected => new MessageRejected('malformed', field, why);
export const mismatch = (field: string, why: string): MessageRejected => new MessageRejected('mismatch', field, why);

/** A short, quoted excerpt of untrusted text for an error message. */
export function excerpt(text: string, max = 48): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
