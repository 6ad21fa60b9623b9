import { encodeAddress } from '../chain/address.js';

/** Little-endian fixed-width reads shared by the obligation decoders. */

export class LendingDecodeError extends Error {
  override name = 'LendingDecodeError';
}

export function readU128(data: Buffer, offset: number): bigint {
  return (data.readBigUInt64LE(offset + 8) << 64n) | data.readBigUInt64LE(offset);
}

/** Two's-complement i128, as `fixed`'s I80F48 stores its bits. */
export function readI128(data: Buffer, offset: number): bigint {
  return BigInt.asIntN(128, readU128(data, offset));
}

export function readAddress(data: Buffer, offset: number): string {
  return encodeAddress(data.subarray(offset, offset + 32));
}

export function isZeroAddress(data: Buffer, offset: number): boolean {
  for (let i = offset; i < offset + 32; i++) if (data[i] !== 0) return false;
  return true;
}

export function expectSize(data: Buffer, size: number, what: string): void {
  if (data.length !== size) throw new LendingDecodeError(`${what} is ${data.length} bytes, expected ${size}`);
}

export function expectDiscriminator(data: Buffer, discriminator: Buffer, what: string): void {
  if (!data.subarray(0, 8).equals(discriminator)) {
    throw new LendingDecodeError(`${what} discriminator is ${data.subarray(0, 8).toString('hex')}, expected ${discriminator.toString('hex')}`);
  }
}
