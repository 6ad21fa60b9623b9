/**
 * Rendering accounts the way the node does for each `encoding`, plus `dataSlice`. Results are JSON
 * text (not objects) because rentEpoch is u64::MAX, which a JS number cannot carry.
 */
import bs58 from 'bs58';
import type { StoredAccount } from './accounts.js';
import { decodeMintDecimals, decodeTokenAccount, EXTENSION, readExtensions, type Extension } from './layouts.js';
import { isTokenProgram, TOKEN_2022_PROGRAM } from './programs.js';
import { RpcError, RPC_INVALID_PARAMS, RPC_INVALID_REQUEST } from './rpc-error.js';
import { uiTokenAmount } from './transactions.js';

export type AccountEncoding = 'base58' | 'base64' | 'jsonParsed';

export interface DataSlice {
  offset: number;
  length: number;
}

export interface EncodingOptions {
  encoding: AccountEncoding;
  dataSlice: DataSlice | null;
}

/** Base58 is refused above this many bytes, as the node does. */
const BASE58_MAX_BYTES = 128;

/** Reads `encoding` and `dataSlice` from a config object; the node's default encoding is base58. */
export function parseEncodingOptions(config: Record<string, unknown>): EncodingOptions {
  const encoding = config.encoding ?? 'base58';
  if (encoding !== 'base58' && encoding !== 'base64' && encoding !== 'jsonParsed') {
    throw new RpcError(
      RPC_INVALID_PARAMS,
      `Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`,
    );
  }
  let dataSlice: DataSlice | null = null;
  if (config.dataSlice !== undefined && config.dataSlice !== null) {
    const slice = config.dataSlice as Record<string, unknown>;
    if (!isU64Number(slice.offset) || !isU64Number(slice.length)) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: dataSlice needs non-negative integer offset and length.');
    }
    dataSlice = { offset: slice.offset, length: slice.length };
  }
  return { encoding, dataSlice };
}

function isU64Number(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function sliceData(data: Buffer, slice: DataSlice | null): Buffer {
  if (!slice) return data;
  return data.subarray(Math.min(slice.offset, data.length), Math.min(slice.offset + slice.length, data.length));
}

/**
 * The account as JSON text. `mintDecimals` resolves a mint's decimals for jsonParsed token
 * accounts. Returns null when `dropUnparsed` and jsonParsed cannot parse the account (as
 * getTokenAccountsByOwner drops it); otherwise unparsable accounts fall back to base64.
 */
export function renderAccount(
  account: StoredAccount,
  options: EncodingOptions,
  mintDecimals: (mint: string) => number | null,
  dropUnparsed = false,
): string | null {
  const { encoding, dataSlice } = options;
  if (encoding === 'base64') {
    if (!dataSlice) return account.base64Json;
    return account.jsonWithData(`[${JSON.stringify(sliceData(account.data, dataSlice).toString('base64'))},"base64"]`);
  }
  if (encoding === 'base58') {
    const data = sliceData(account.data, dataSlice);
    if (data.length > BASE58_MAX_BYTES) {
      throw new RpcError(
        RPC_INVALID_REQUEST,
        'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
      );
    }
    return account.jsonWithData(`[${JSON.stringify(bs58.encode(data))},"base58"]`);
  }
  // jsonParsed: a dataSlice makes the node fall back to binary, as does an unparsable account.
  const parsed = dataSlice ? null : parseTokenProgramAccount(account, mintDecimals);
  if (parsed === null) {
    if (dropUnparsed) return null;
    return account.jsonWithData(`[${JSON.stringify(sliceData(account.data, dataSlice).toString('base64'))},"base64"]`);
  }
  return account.jsonWithData(JSON.stringify(parsed));
}

function extensionJson(ext: Extension): Record<string, unknown> {
  const value = Buffer.from(ext.value);
  switch (ext.type) {
    case EXTENSION.immutableOwner:
      return { extension: 'immutableOwner' };
    case EXTENSION.transferFeeAmount:
      return { extension: 'transferFeeAmount', state: { withheldAmount: Number(value.readBigUInt64LE(0)) } };
    case EXTENSION.transferFeeConfig:
      return {
        extension: 'transferFeeConfig',
        state: {
          newerTransferFee: {
            epoch: Number(value.readBigUInt64LE(90)),
            maximumFee: Number(value.readBigUInt64LE(98)),
            transferFeeBasisPoints: value.readUInt16LE(106),
          },
          olderTransferFee: {
            epoch: Number(value.readBigUInt64LE(72)),
            maximumFee: Number(value.readBigUInt64LE(80)),
            transferFeeBasisPoints: value.readUInt16LE(88),
          },
          transferFeeConfigAuthority: bs58.encode(value.subarray(0, 32)),
          withdrawWithheldAuthority: bs58.encode(value.subarray(32, 64)),
          withheldAmount: Number(value.readBigUInt64LE(64)),
        },
      };
    default:
      return { extension: 'unparseableExtension' };
  }
}

const STATE_NAMES = ['uninitialized', 'initialized', 'frozen'];

/** The `data` object of jsonParsed for token accounts and mints, or null if not parsable. */
function parseTokenProgramAccount(
  account: StoredAccount,
  mintDecimals: (mint: string) => number | null,
): Record<string, unknown> | null {
  if (!isTokenProgram(account.owner)) return null;
  const token2022 = account.owner === TOKEN_2022_PROGRAM;
  const program = token2022 ? 'spl-token-2022' : 'spl-token';
  const tokenAccount = decodeTokenAccount(account.data, token2022);
  if (tokenAccount) {
    const decimals = mintDecimals(tokenAccount.mint);
    if (decimals === null) return null;
    const info: Record<string, unknown> = {
      isNative: false,
      mint: tokenAccount.mint,
      owner: tokenAccount.owner,
      state: STATE_NAMES[tokenAccount.state] ?? 'initialized',
      tokenAmount: uiTokenAmount(tokenAccount.amount, decimals, false),
    };
    if (token2022 && tokenAccount.extensions.length) info.extensions = tokenAccount.extensions.map(extensionJson);
    return { parsed: { info, type: 'account' }, program, space: account.data.length };
  }
  const decimals = decodeMintDecimals(account.data, token2022);
  if (decimals === null) return null;
  const data = account.data;
  const authority = (tagAt: number) => (data.readUInt32LE(tagAt) === 1 ? bs58.encode(data.subarray(tagAt + 4, tagAt + 36)) : null);
  const info: Record<string, unknown> = {
    decimals,
    freezeAuthority: authority(46),
    isInitialized: true,
    mintAuthority: authority(0),
    supply: data.readBigUInt64LE(36).toString(),
  };
  const extensions = token2022 ? readExtensions(data) : [];
  if (extensions.length) info.extensions = extensions.map(extensionJson);
  return { parsed: { info, type: 'mint' }, program, space: data.length };
}
