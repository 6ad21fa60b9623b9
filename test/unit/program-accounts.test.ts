import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { readProgramAccounts } from '../../src/chain/program-accounts.js';
import { MalformedReply } from '../../src/chain/replies.js';
import type { DataSlice, KeyedAccount, ProgramAccountsFilter, ProgramAccountsQuery } from '../../src/chain/types.js';

/**
 * readProgramAccounts checks every account of the answer against every filter it sent, as far as the
 * bytes that came back show it (a data slice shows part of the account), and against the caller's
 * `layout`: one account that does not match makes the reply malformed (MalformedReply: the RPC
 * client asks the next endpoint, then answers 503). The node's answer is played by a fake `call`
 * that runs the reply check on a hand-made result, as RpcClient does on a node's.
 */
const PROGRAM = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';
const OTHER_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const PUBKEY = 'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo';

/** A 100-byte account: byte i is i, except what `set` writes. */
function accountBytes(length = 100, set: Record<number, number> = {}): Buffer {
  const data = Buffer.alloc(length, 0).map((_, i) => i % 256);
  for (const [at, value] of Object.entries(set)) data[Number(at)] = value;
  return Buffer.from(data);
}

/** What the node shows of `data` under `slice` (agave cuts data[offset..offset+length], shorter at the end). */
function shown(data: Buffer, slice?: DataSlice): Buffer {
  return slice === undefined ? data : data.subarray(Math.min(slice.offset, data.length), Math.min(slice.offset + slice.length, data.length));
}

function listed(data: Buffer, options: { slice?: DataSlice; owner?: string; space?: number | null } = {}) {
  const account: Record<string, unknown> = {
    owner: options.owner ?? PROGRAM,
    lamports: 1,
    executable: false,
    data: [shown(data, options.slice).toString('base64'), 'base64'],
  };
  if (options.space !== null) account.space = options.space ?? data.length;
  return { pubkey: PUBKEY, account };
}

function read(answer: unknown[], query: Pick<ProgramAccountsQuery, 'filters' | 'dataSlice' | 'layout'>): Promise<KeyedAccount[]> {
  const rpc = { call: async <T>(_method: string, _params: unknown, parse: (result: unknown, source: never) => T) => parse(answer, undefined as never) };
  return readProgramAccounts(rpc as never, 'confirmed', PROGRAM, query);
}

const memcmp = (offset: number, bytes: number[]): ProgramAccountsFilter => ({ memcmp: { offset, bytes: bs58.encode(Buffer.from(bytes)) } });

describe('readProgramAccounts: each account matches every filter sent', () => {
  const data = accountBytes();

  it('without a slice: dataSize and memcmp on the whole data; owner program', async () => {
    const filters = [{ dataSize: 100 }, memcmp(10, [10, 11, 12])];
    expect(await read([listed(data)], { filters })).toHaveLength(1);
    await expect(read([listed(accountBytes(100, { 11: 0 }))], { filters })).rejects.toThrow(MalformedReply);
    await expect(read([listed(accountBytes(99))], { filters })).rejects.toThrow(/does not match the filters/);
    await expect(read([listed(data, { owner: OTHER_PROGRAM })], { filters })).rejects.toThrow(/not owned by the program/);
  });

  it('with a slice: a memcmp inside it is checked on the sliced bytes', async () => {
    const dataSlice = { offset: 0, length: 66 };
    const filters = [memcmp(0, [0, 1, 2]), memcmp(33, [33, 34])];
    expect(await read([listed(data, { slice: dataSlice })], { filters, dataSlice })).toHaveLength(1);
    const wrong = accountBytes(100, { 34: 9 });
    await expect(read([listed(wrong, { slice: dataSlice })], { filters, dataSlice })).rejects.toThrow(MalformedReply);
  });

  it('with a slice: the part of a memcmp the slice shows is checked, a memcmp outside it is not', async () => {
    const dataSlice = { offset: 20, length: 10 };
    // 28..32 straddles the end of the slice (20..30): 28 and 29 are shown.
    const straddling = [memcmp(28, [28, 29, 30, 31])];
    expect(await read([listed(data, { slice: dataSlice })], { filters: straddling, dataSlice })).toHaveLength(1);
    await expect(read([listed(accountBytes(100, { 29: 0 }), { slice: dataSlice })], { filters: straddling, dataSlice })).rejects.toThrow(MalformedReply);
    // Byte 31 is not shown: a node's word for it cannot be checked.
    expect(await read([listed(accountBytes(100, { 31: 0 }), { slice: dataSlice })], { filters: straddling, dataSlice })).toHaveLength(1);
    expect(await read([listed(accountBytes(100, { 50: 0 }), { slice: dataSlice })], { filters: [memcmp(50, [50])], dataSlice })).toHaveLength(1);
  });

  it('with a slice: dataSize by what the slice shows of an account that long, and by space when given', async () => {
    const filters = [{ dataSize: 100 }];
    const tail = { offset: 90, length: 20 };
    // A 100-byte account shows 10 bytes of a slice from 90.
    expect(await read([listed(data, { slice: tail })], { filters, dataSlice: tail })).toHaveLength(1);
    expect(await read([listed(data, { slice: tail, space: null })], { filters, dataSlice: tail })).toHaveLength(1);
    // 95 bytes show 5: not 100 bytes long, whatever it says.
    await expect(read([listed(accountBytes(95), { slice: tail, space: 100 })], { filters, dataSlice: tail })).rejects.toThrow(MalformedReply);
    await expect(read([listed(accountBytes(95), { slice: tail, space: null })], { filters, dataSlice: tail })).rejects.toThrow(MalformedReply);
    // A slice inside any account of 100 bytes or more: only space tells the length.
    const head = { offset: 0, length: 8 };
    await expect(read([listed(accountBytes(120), { slice: head })], { filters, dataSlice: head })).rejects.toThrow(MalformedReply);
    expect(await read([listed(accountBytes(100), { slice: head })], { filters, dataSlice: head })).toHaveLength(1);
  });

  it("the caller's layout check: its reason makes the reply malformed, naming the account", async () => {
    const layout = ({ account }: KeyedAccount) => (account.data[0] === 1 ? undefined : 'is of another version');
    await expect(read([listed(data)], { filters: [], layout })).rejects.toThrow(`account ${PUBKEY} is of another version`);
    expect(await read([listed(accountBytes(100, { 0: 1 }))], { filters: [], layout })).toHaveLength(1);
  });
});
