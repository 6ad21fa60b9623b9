/**
 * Solana's transaction wire format, legacy and v0: its sizes and the shape of a decoded message.
 * Browser-safe (Uint8Array only): the gate, the SDK and the CLI share this folder. decode.ts reads
 * the bytes without trusting one, encode.ts writes them; both follow this layout (anza-xyz/solana-sdk
 * transaction, message/legacy, message/versions/v0, short-vec; read, not copied; cross-checked
 * against @solana/web3.js and @solana/kit in test/unit/mint-transaction.test.ts and
 * test/unit/memo-transaction.test.ts):
 *
 *   transaction = shortvec<signature: 64 bytes> ‖ message
 *   message     = [0x80 | version, v0 only] ‖ header (3 × u8) ‖ shortvec<key: 32 bytes>
 *                 ‖ recent blockhash (32) ‖ shortvec<instruction> ‖ [shortvec<lookup>, v0 only]
 *   instruction = program index (u8) ‖ shortvec<account index: u8> ‖ shortvec<data byte>
 *   lookup      = table address (32) ‖ shortvec<writable index: u8> ‖ shortvec<read-only index: u8>
 *
 * A compact-u16 ("shortvec" length) is 7 bits a byte, low bits first, at most 3 bytes, no zero byte
 * after the first (an alias), at most 65535. The first message byte with its top bit set means
 * "version in the low 7 bits"; otherwise it is legacy's num_required_signatures.
 * PACKET_DATA_SIZE (1280 − 40 − 8 = 1232, packet/src/lib.rs) bounds the whole.
 */

/** PACKET_DATA_SIZE: the largest transaction a validator accepts. */
export const MAX_TRANSACTION_BYTES = 1232;
export const SIGNATURE_BYTES = 64;
export const KEY_BYTES = 32;
export const VERSION_PREFIX = 0x80;
/** Account indexes are a u8. */
export const MAX_ACCOUNT_KEYS = 256;

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accountIndexes: Uint8Array;
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: Uint8Array;
  writableIndexes: Uint8Array;
  readonlyIndexes: Uint8Array;
}

export interface Message {
  version: 'legacy' | 0;
  header: MessageHeader;
  /** The static keys: signers first (writable, then read-only), then the others (writable, then read-only). */
  accountKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: CompiledInstruction[];
  /** v0 only; always empty for legacy. */
  lookups: AddressTableLookup[];
}

export interface WireTransaction {
  signatures: Uint8Array[];
  message: Message;
  /** The bytes every signer signs: everything after the signatures. */
  messageBytes: Uint8Array;
}

/** Whether static key `index` is a signer, and whether the message lets it be written. */
export function keyRole(header: MessageHeader, keyCount: number, index: number): { signer: boolean; writable: boolean } {
  const signer = index < header.numRequiredSignatures;
  const writable = signer
    ? index < header.numRequiredSignatures - header.numReadonlySignedAccounts
    : index < keyCount - header.numReadonlyUnsignedAccounts;
  return { signer, writable };
}
