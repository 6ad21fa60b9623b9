import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
import { createChainReader } from '../../src/chain/reader.js';
import type { FetchLike } from '../../src/chain/transport.js';
import type { ChainReader } from '../../src/chain/types.js';
import { loadConfig, type Config } from '../../src/config.js';
import { GateError } from '../../src/errors.js';
import { demoAddress, demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { localnetAdmin } from '../helpers/token-transactions.js';

/** HTTP requests and calls by method (the local chain also reports round trips per method, left out here). */
const requestsAndCalls = ({ httpRequests, calls }: { httpRequests: number; calls: Record<string, number> }) => ({ httpRequests, calls });

let chain: LocalnetHandle;
const readers: ChainReader[] = [];

beforeAll(async () => {
  chain = await startLocalnet();
});
afterAll(async () => {
  await Promise.all(readers.map((reader) => reader.close()));
  await chain.close();
});
beforeEach(() => {
  chain.faults.clear();
  chain.resetStats();
});

function config(env: Record<string, string> = {}): Config {
  return loadConfig({ JWT_SECRET: 'x'.repeat(40), SOLANA_RPC_URL: chain.url, RPC_RETRIES: '1', ...env });
}

function reader(env: Record<string, string> = {}, fetch?: FetchLike): ChainReader {
  const created = createChainReader(config(env), fetch ? { fetch } : {});
  readers.push(created);
  return created;
}

const wallet = (name: string): string => demoWallet(name).publicKey;

/** Teach a reader which program owns each mint (src/chain/mint-programs.ts), then zero the chain's counters. */
async function knowMints(chainReader: ChainReader, mints: string[]): Promise<void> {
  await chainReader.getTokenBalances(wallet('empty'), mints);
  chain.resetStats();
}
const usdc = demoMint('usdc');
const bonk = demoMint('bonk');

async function expectUnavailable(promise: Promise<unknown>, reason?: RegExp): Promise<GateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GateError);
  const gateError = error as GateError;
  expect(gateError.httpStatus).toBe(503);
  expect(gateError.code).toBe('UPSTREAM_UNAVAILABLE');
  expect(gateError.options.headers?.['Retry-After']).toMatch(/^\d+$/);
  if (reason) expect(gateError.message).toMatch(reason);
  return gateError;
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('holdings from the associated token accounts (getTokenBalances)', () => {
  it('sums the ATAs of both token programs per mint', async () => {
    const chainReader = reader();
    expect(await chainReader.getTokenBalances(wallet('clean'), [usdc, bonk])).toEqual(
      new Map([
        [usdc, 25_000_000n],
        [bonk, 15_000_000_000n],
      ]),
    );
    // Token-2022 ATA with extensions.
    expect(await chainReader.getTokenBalances(wallet('t22-holder'), [demoMint('t22')])).toEqual(new Map([[demoMint('t22'), 42_500_000n]]));
    expect(await chainReader.getTokenBalances(wallet('banned-t22'), [demoMint('banned-t22')])).toEqual(
      new Map([[demoMint('banned-t22'), 7_000_000_000n]]),
    );
  });

  it('does not see non-ATA token accounts, and reports 0 for mints not held', async () => {
    const chainReader = reader();
    const balances = await chainReader.getTokenBalances(wallet('banned-nonata'), [demoMint('banned'), usdc]);
    expect(balances).toEqual(
      new Map([
        [demoMint('banned'), 0n],
        [usdc, 10_000_000n],
      ]),
    );
    expect(await chainReader.getTokenBalances(wallet('empty'), [usdc])).toEqual(new Map([[usdc, 0n]]));
  });

  it.each(['2', '0'])('merges 64 concurrent logins (2 mints each) into one HTTP request (window %s ms)', async (window) => {
    const chainReader = reader({ RPC_BATCH_WINDOW_MS: window });
    await knowMints(chainReader, [usdc, bonk]);
    const names = ['clean', 'whale', 'portfolio', 'banned-nonata'];
    const wallets = Array.from({ length: 64 }, (_, i) => wallet(names[i] ?? `load-${i}`));
    const results = await Promise.all(wallets.map((w) => chainReader.getTokenBalances(w, [usdc, bonk])));

    expect(results[0]).toEqual(new Map([[usdc, 25_000_000n], [bonk, 15_000_000_000n]]));
    expect(results[1]).toEqual(new Map([[usdc, 5_000_000_000_000n], [bonk, 0n]]));
    expect(results[2]).toEqual(new Map([[usdc, 500_000_000n], [bonk, 200_000_000_000n]]));
    expect(results[3]).toEqual(new Map([[usdc, 10_000_000n], [bonk, 0n]]));
    for (const result of results.slice(4)) expect(result).toEqual(new Map([[usdc, 0n], [bonk, 0n]]));

    // One ATA per wallet and mint, under the mint's own program: 128 keys → 2 getMultipleAccounts
    // calls of ≤ 100 keys, packed into one batch body.
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getMultipleAccounts: 2 } });
    expect(chainReader.stats()).toMatchObject({ errors: 0 });
  });

  it('a cold burst reads each mint’s owner once, in the same round trip as the ATAs under both programs; then only that program’s ATAs', async () => {
    const chainReader = reader();
    const t22 = demoMint('t22');
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => chainReader.getTokenBalances(wallet(i === 0 ? 't22-holder' : `cold-${i}`), [usdc, t22])),
    );
    expect(results[0]).toEqual(new Map([[usdc, 0n], [t22, 42_500_000n]]));
    // One round trip: 1 call for the two mints (shared by all 64 callers) and 256 ATA keys (both
    // programs, the mints' owners not known yet) in 3 calls.
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getMultipleAccounts: 4 } });
    expect(chainReader.stats().batchedKeys).toBe(2 + 256);
    chain.resetStats();
    expect((await chainReader.getTokenBalances(wallet('t22-holder'), [usdc, t22])).get(t22)).toBe(42_500_000n);
    // The owners known now: one ATA per mint.
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getMultipleAccounts: 1 } });
    expect(chainReader.stats().batchedKeys).toBe(2 + 256 + 2);
  });

  it('an address that is not a mint of either token program is held by nobody, in one round trip', async () => {
    const chainReader = reader();
    expect(await chainReader.getTokenBalances(wallet('clean'), [wallet('whale')])).toEqual(new Map([[wallet('whale'), 0n]]));
    // The lookup of its owner and the two would-be ATAs, in one request.
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getMultipleAccounts: 2 } });
  });

  it('deduplicates keys asked for by concurrent callers', async () => {
    const chainReader = reader();
    const results = await Promise.all(Array.from({ length: 10 }, () => chainReader.getTokenBalances(wallet('clean'), [usdc, bonk, usdc])));
    for (const result of results) expect(result.get(usdc)).toBe(25_000_000n);
    // Two mint lookups and the ATAs of both mints under both programs: each key sent once.
    expect(chainReader.stats().batchedKeys).toBe(6);
    expect(chain.stats().calls).toEqual({ getMultipleAccounts: 2 });
  });
});

describe('every token account the wallet owns (getTokenAccounts)', () => {
  const summed = (accounts: { mint: string; amount: bigint }[], mint: string) => accounts.filter((a) => a.mint === mint).reduce((sum, a) => sum + a.amount, 0n);

  it('lists non-ATA accounts of both programs: the whole list (by program) and by mint', async () => {
    const chainReader = reader();
    const banned = demoMint('banned');
    const bannedT22 = demoMint('banned-t22');
    const whole = await chainReader.getTokenAccounts(wallet('banned-nonata'));
    expect(summed(whole, banned)).toBe(5_000_000_000n);
    expect(summed(whole, usdc)).toBe(10_000_000n);
    // Token-2022 keypair accounts, one of 165 bytes and one with an extension (170): both count.
    const t22 = await chainReader.getTokenAccounts(wallet('banned-nonata-t22'), [bannedT22]);
    expect(t22.map((a) => a.address).sort()).toEqual([demoAddress('banned-nonata-t22:extended'), demoAddress('banned-nonata-t22:plain')].sort());
    expect(summed(t22, bannedT22)).toBe(7_000_000_000n);
    expect(summed(await chainReader.getTokenAccounts(wallet('whale'), [usdc]), usdc)).toBe(6_000_000_000_000n);
    // By program: one call per program (2); by mint: one call per mint, after the mint's program is looked up once.
    expect(chain.stats().calls).toEqual({ getTokenAccountsByOwner: 4, getMultipleAccounts: 2 });
  });

  it('asks for 166 bytes of each account (layout and length visible), and not at all for an address that is no mint', async () => {
    const chainReader = reader();
    const sent: unknown[] = [];
    const recording = reader({}, async (url, init) => {
      sent.push(JSON.parse(String(init.body)));
      return fetch(url, init);
    });
    expect(await chainReader.getTokenAccounts(wallet('clean'), [wallet('whale')])).toEqual([]);
    expect(chain.stats().calls).toEqual({ getMultipleAccounts: 1 });
    await recording.getTokenAccounts(wallet('clean'));
    expect(JSON.stringify(sent)).toContain('"dataSlice":{"offset":0,"length":166}');
  });
});

describe('getMultipleAccounts', () => {
  it('reads one after another ride one kept-alive connection (no handshake per batch)', async () => {
    const chainReader = reader();
    for (let i = 0; i < 10; i++) expect(await chainReader.getMultipleAccounts([usdc])).toHaveLength(1);
    expect(chain.stats()).toMatchObject({ httpRequests: 10, connections: 1 });
  });

  it('splits into calls of 100 keys, keeps each caller’s order, and keeps bodies under 51,200 bytes', async () => {
    const chainReader = reader();
    const existing = [usdc, bonk, demoMint('t22'), wallet('clean'), chain.state.ataAddress(wallet('clean'), usdc, 'token')];
    const keys = Array.from({ length: 1_200 }, (_, i) => (i % 100 === 7 ? existing[(i / 100) % existing.length | 0]! : wallet(`missing-${i}`)));
    const accounts = await chainReader.getMultipleAccounts(keys);
    expect(accounts).toHaveLength(1_200);
    accounts.forEach((account, i) => {
      const stored = chain.state.getAccount(keys[i]!);
      if (!stored) expect(account).toBeNull();
      else expect(account).toMatchObject({ owner: stored.owner, data: stored.data, executable: false });
    });
    expect(accounts.filter(Boolean).length).toBe(12);
    // 12 calls of ~4.8 KB do not fit one 51,200-byte body: two requests, none refused with 413.
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 2, calls: { getMultipleAccounts: 12 } });
  });

  it('sends callers with different data slices in different calls', async () => {
    const chainReader = reader();
    const ata = chain.state.ataAddress(wallet('clean'), usdc, 'token');
    const [whole, sliced, missing] = await Promise.all([
      chainReader.getMultipleAccounts([ata, usdc]),
      chainReader.getMultipleAccounts([usdc, ata], { offset: 64, length: 8 }),
      chainReader.getMultipleAccounts([wallet('nobody')], { offset: 64, length: 8 }),
    ]);
    expect(whole.map((a) => a?.data.length)).toEqual([165, 82]);
    expect(sliced.map((a) => a?.data.length)).toEqual([8, 8]);
    expect(sliced[1]!.data.readBigUInt64LE(0)).toBe(25_000_000n);
    expect(sliced[1]!.owner).toBe(TOKEN_PROGRAM_ID);
    expect(missing).toEqual([null]);
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getMultipleAccounts: 2 } });
  });

  it('matches batch answers by id, not by position', async () => {
    const reversing: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      const body = (await response.json()) as unknown;
      return new Response(JSON.stringify(Array.isArray(body) ? body.reverse() : body), { status: response.status });
    };
    const chainReader = reader({}, reversing);
    const [clean, portfolio] = await Promise.all([
      chainReader.getTokenBalances(wallet('clean'), [usdc]),
      chainReader.getMultipleAccounts([usdc], { offset: 44, length: 1 }),
    ]);
    expect(clean.get(usdc)).toBe(25_000_000n);
    expect(portfolio[0]!.data).toEqual(Buffer.of(6)); // decimals byte of the mint
  });

  it('rejects only the callers whose keys were in a failed call', async () => {
    const poison = wallet('poison');
    // The call carrying `poison` gets "invalid params" (not retried); the other calls of the same body succeed.
    const poisoning: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      const sent = JSON.parse(String(init.body)) as { id: number; params: [string[]] }[];
      const poisoned = new Set(sent.filter((call) => call.params[0].includes(poison)).map((call) => call.id));
      const replies = (await response.json()) as { id: number; result?: unknown; error?: unknown }[];
      for (const reply of replies) {
        if (poisoned.has(reply.id)) {
          delete reply.result;
          reply.error = { code: -32602, message: 'Invalid params' };
        }
      }
      return new Response(JSON.stringify(replies), { status: response.status });
    };
    const chainReader = reader({}, poisoning);
    const [unlucky, sharedCall, otherCall] = await Promise.allSettled([
      chainReader.getMultipleAccounts([usdc, poison], { offset: 0, length: 8 }),
      chainReader.getMultipleAccounts([bonk], { offset: 0, length: 8 }),
      chainReader.getMultipleAccounts([usdc, bonk]),
    ]);
    expect(unlucky.status).toBe('rejected');
    await expectUnavailable(Promise.reject((unlucky as PromiseRejectedResult).reason), /-32602/);
    // bonk rode in the poisoned call too: its caller fails closed as well.
    expect(sharedCall.status).toBe('rejected');
    expect(otherCall.status).toBe('fulfilled');
    expect((otherCall as PromiseFulfilledResult<unknown[]>).value).toHaveLength(2);
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getMultipleAccounts: 2 } });
  });

  it('rejects keys that are not addresses before sending anything', async () => {
    const chainReader = reader();
    await expect(chainReader.getMultipleAccounts(['not-a-key'])).rejects.toThrow(TypeError);
    expect(chain.stats().httpRequests).toBe(0);
  });
});

/** A fetch that passes requests to the local chain and rewrites the replies to URLs containing `/lying`. */
function tampering(rewrite: (reply: Record<string, unknown>) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!url.includes('/lying')) return response;
    const body = (await response.json()) as unknown;
    for (const reply of Array.isArray(body) ? body : [body]) rewrite(reply as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status: response.status });
  };
}

type AccountJson = { owner: string; data: [string, string] } | null;
const accountsOf = (reply: Record<string, unknown>): AccountJson[] => (reply.result as { value: AccountJson[] }).value;

describe('a lying RPC', () => {
  it('cannot attribute another wallet’s token account to the wallet: naming another owner is a 503, not a balance', async () => {
    const whaleAta = chain.state.getAccount(chain.state.ataAddress(wallet('whale'), usdc, 'token'))!;
    const whaleSlice = whaleAta.data.subarray(0, 166).toString('base64');
    const chainReader = reader({ SOLANA_RPC_URL: `${chain.url}/lying`, RPC_RETRIES: '0' }, tampering((reply) => {
      // Every account becomes the whale's USDC account, owned by the right program.
      for (const account of accountsOf(reply)) if (account && account.data[0] !== '') account.data = [whaleSlice, 'base64'];
    }));
    await expectUnavailable(chainReader.getTokenBalances(wallet('clean'), [usdc, bonk]), /names another owner/);
  });

  it('cannot pass off an account of another program as a token account, nor hide one that way', async () => {
    const chainReader = reader({ SOLANA_RPC_URL: `${chain.url}/lying`, RPC_RETRIES: '0' }, tampering((reply) => {
      // Token accounts only: the mint lookups (zero-length slices) stay honest.
      for (const account of accountsOf(reply)) if (account && account.data[0] !== '') account.owner = TOKEN_2022_PROGRAM_ID;
    }));
    // clean's USDC ATA is a Token account; claimed as Token-2022-owned it is neither counted nor read as empty.
    await expectUnavailable(chainReader.getTokenBalances(wallet('clean'), [usdc]), /owned by TokenzQ/);
  });

  it('answering the wrong number of accounts is a 503, and the next endpoint is asked instead', async () => {
    const dropOne = tampering((reply) => void accountsOf(reply).pop());
    const alone = reader({ SOLANA_RPC_URL: `${chain.url}/lying`, RPC_RETRIES: '0' }, dropOne);
    await expectUnavailable(alone.getTokenBalances(wallet('clean'), [usdc]), /expected \d accounts/);

    const withBackup = reader({ SOLANA_RPC_URL: `${chain.url}/lying,${chain.url}/honest`, RPC_RETRIES: '0' }, dropOne);
    expect((await withBackup.getTokenBalances(wallet('clean'), [usdc])).get(usdc)).toBe(25_000_000n);
    // The lying endpoint once (both calls of its reply short an account), then the honest one for
    // the mint and the ATAs (one request).
    expect(withBackup.stats()).toMatchObject({ httpRequests: 2, errors: 2 });
  });
});

describe('failure handling', () => {
  const modes = [
    { mode: 'http500' },
    { mode: 'http429' },
    { mode: 'timeout' },
    { mode: 'malformed' },
    { mode: 'malformed', variant: 'no-value' },
    { mode: 'rpc-error' },
    { mode: 'unhealthy' },
  ] as const;
  for (const fault of modes) {
    it(`fails closed with 503 when the node keeps answering ${fault.mode}${'variant' in fault ? ` (${fault.variant})` : ''}`, async () => {
      const chainReader = reader({ RPC_TIMEOUT_MS: '300' });
      chain.faults.set(fault);
      const concurrent = Array.from({ length: 5 }, (_, i) => chainReader.getTokenBalances(wallet(i === 0 ? 'clean' : `fail-${i}`), [usdc]));
      for (const attempt of concurrent) await expectUnavailable(attempt);
      expect(chainReader.stats().errors).toBeGreaterThan(0);
    });
  }

  it('fails closed on history and program-account reads too', async () => {
    const chainReader = reader({ RPC_RETRIES: '0' });
    chain.faults.set({ mode: 'http500' });
    await expectUnavailable(chainReader.getSignaturesForAddress(wallet('young'), { limit: 10 }), /getSignaturesForAddress: HTTP 500/);
    await expectUnavailable(chainReader.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ dataSize: 82 }] }));
    await expectUnavailable(chainReader.getTokenBalances(wallet('clean'), [usdc]));
    chain.faults.clear();
    const [signature] = (await chainReader.getSignaturesForAddress(wallet('young'), { limit: 1 })).signatures;
    chain.faults.set({ mode: 'rpc-error', methods: ['getTransaction'] });
    await expectUnavailable(chainReader.getTransactions([signature!.signature]), /JSON-RPC error -32005/);
  });

  for (const mode of ['http500', 'http429'] as const) {
    it(`retries once after a single ${mode} and succeeds`, async () => {
      const chainReader = reader();
      await knowMints(chainReader, [usdc]);
      chain.faults.set({ mode, count: 1 });
      expect((await chainReader.getTokenBalances(wallet('clean'), [usdc])).get(usdc)).toBe(25_000_000n);
      expect(chain.stats().httpRequests).toBe(2);
      expect(chainReader.stats()).toMatchObject({ errors: 1 });
    });
  }

  it('does not retry invalid params (-32602)', async () => {
    const chainReader = reader({ RPC_RETRIES: '3' });
    const tooManyFilters = Array.from({ length: 5 }, () => ({ dataSize: 165 }));
    await expectUnavailable(chainReader.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: tooManyFilters }), /-32602/);
    expect(chain.stats().httpRequests).toBe(1);
  });

  it('fails over to the next URL when the first is down, and stays there', async () => {
    const chainReader = reader({ SOLANA_RPC_URL: `${await closedPortUrl()},${chain.url}`, RPC_RETRIES: '0' });
    expect((await chainReader.getTokenBalances(wallet('clean'), [usdc])).get(usdc)).toBe(25_000_000n);
    expect((await chainReader.getTokenBalances(wallet('portfolio'), [usdc])).get(usdc)).toBe(500_000_000n);
    // The dead endpoint once, then the live one: the mint with clean's ATAs, then portfolio's ATA.
    expect(chainReader.stats()).toMatchObject({ httpRequests: 3, errors: 1 });
    expect(chain.stats().httpRequests).toBe(2);
  });

  it('gives up on a hanging node after RPC_TIMEOUT_MS', async () => {
    const chainReader = reader({ RPC_TIMEOUT_MS: '200', RPC_RETRIES: '0' });
    chain.faults.set({ mode: 'timeout' });
    await expectUnavailable(chainReader.getMultipleAccounts([usdc]), /timed out/);
  });
});

describe('history and program accounts', () => {
  it('pages signatures newest first and flattens transactions', async () => {
    const chainReader = reader();
    const young = wallet('young');
    const { signatures: page } = await chainReader.getSignaturesForAddress(young, { limit: 1000 });
    expect(page).toHaveLength(3);
    expect(page[0]!.slot).toBeGreaterThanOrEqual(page[2]!.slot);
    const { signatures: older } = await chainReader.getSignaturesForAddress(young, { limit: 1000, before: page[0]!.signature });
    expect(older.map((s) => s.signature)).toEqual(page.slice(1).map((s) => s.signature));

    const transactions = await chainReader.getTransactions(page.map((s) => s.signature));
    expect(chain.stats().httpRequests).toBe(3); // two pages, then one batch of three getTransaction
    transactions.forEach((tx, i) => {
      expect(tx!.signature).toBe(page[i]!.signature);
      expect(tx!.slot).toBe(page[i]!.slot);
      expect(tx!.accountKeys).toContain(young);
      expect(tx!.preBalances).toHaveLength(tx!.accountKeys.length);
      expect(typeof tx!.postBalances[0]).toBe('bigint');
      expect(tx!.instructions.length).toBeGreaterThan(0);
    });
  });

  it('resolves loaded addresses, inner instructions and token balances of a v0 transaction', async () => {
    const chainReader = reader();
    const active = wallet('active');
    const { signatures: page } = await chainReader.getSignaturesForAddress(active, { limit: 1000 });
    const transactions = await chainReader.getTransactions(page.map((s) => s.signature));
    const swap = transactions.find((tx) => tx!.instructions.some((ix) => ix.programId === 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4'))!;
    expect(swap).toBeDefined();
    const raw = chain.state.getTransaction(swap.signature)!.result as {
      transaction: { message: { accountKeys: string[] } };
      meta: { loadedAddresses: { writable: string[]; readonly: string[] } };
    };
    expect(swap.accountKeys).toEqual([
      ...raw.transaction.message.accountKeys,
      ...raw.meta.loadedAddresses.writable,
      ...raw.meta.loadedAddresses.readonly,
    ]);
    expect(raw.meta.loadedAddresses.writable.length + raw.meta.loadedAddresses.readonly.length).toBeGreaterThan(0);
    for (const balance of [...swap.preTokenBalances, ...swap.postTokenBalances]) {
      expect(typeof balance.amount).toBe('bigint');
      expect(swap.accountKeys[balance.accountIndex]).toBeDefined();
    }
    // Failed transactions keep their err, and agree with what the signature list says.
    const failed = transactions.filter((tx) => tx!.err !== null).map((tx) => tx!.signature);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed).toEqual(page.filter((s) => s.err !== null).map((s) => s.signature));
  });

  it('reads history at confirmed when RPC_COMMITMENT=processed (the node refuses processed there)', async () => {
    const chainReader = reader({ RPC_COMMITMENT: 'processed' });
    const { signatures: page } = await chainReader.getSignaturesForAddress(wallet('quiet'), { limit: 10 });
    expect(page).toHaveLength(2);
    expect((await chainReader.getTransactions(page.map((s) => s.signature))).every((tx) => tx !== null)).toBe(true);
    expect((await chainReader.getTokenBalances(wallet('clean'), [usdc])).get(usdc)).toBe(25_000_000n);
  });

  it('answers null for a transaction the node does not have', async () => {
    const chainReader = reader();
    const [signature] = (await chainReader.getSignaturesForAddress(wallet('young'), { limit: 1 })).signatures;
    const unknown = '1'.repeat(64);
    expect(await chainReader.getTransactions([unknown, signature!.signature]).then((txs) => txs.map((tx) => tx?.signature ?? null))).toEqual([
      null,
      signature!.signature,
    ]);
  });

  it('reads lending obligations with filters and a data slice', async () => {
    const chainReader = reader();
    const save = 'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo';
    const filters = [{ dataSize: 1300 }, { memcmp: { offset: 42, bytes: wallet('debtor-save') } }];
    const obligations = await chainReader.getProgramAccounts(save, { filters });
    expect(obligations).toHaveLength(1);
    expect(obligations[0]!.account.owner).toBe(save);
    expect(obligations[0]!.account.data.subarray(42, 74).equals(Buffer.from(demoWallet('debtor-save').secretKey.subarray(32)))).toBe(true);
    const sliced = await chainReader.getProgramAccounts(save, { filters, dataSlice: { offset: 203, length: 1 } });
    expect(sliced[0]!.account.data).toEqual(Buffer.of(1)); // borrows_len
    expect(await chainReader.getProgramAccounts(TOKEN_2022_PROGRAM_ID, { filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: wallet('empty') } }] })).toEqual([]);
  });

  it("scans token accounts by owner only in the shape a node answers from its index (agave's owner filter), never the whole program", async () => {
    const chainReader = reader();
    const owner = wallet('banned-nonata-t22');
    const byOwner = { memcmp: { offset: 32, bytes: owner } };
    // A node without the shape refuses (-32010), as one excluding the program from full scans does.
    chain.profile.change({ preset: 'none', unindexedTokenScan: 'refuse' });
    try {
      // Token-2022: dataSize 165 finds the plain account, memcmp [2] at 165 the one with an extension.
      const plain = await chainReader.getProgramAccounts(TOKEN_2022_PROGRAM_ID, { filters: [{ dataSize: 165 }, byOwner] });
      const extended = await chainReader.getProgramAccounts(TOKEN_2022_PROGRAM_ID, { filters: [{ memcmp: { offset: 165, bytes: '3' } }, byOwner] });
      expect(plain.map(({ account }) => account.data.length)).toEqual([165]);
      expect(extended.map(({ account }) => account.data.length)).toEqual([170]);
      expect(await chainReader.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ dataSize: 165 }, byOwner] })).toEqual([]);
      // The shape that made a node scan every account: a bug, refused before anything is sent.
      chain.resetStats();
      await expect(chainReader.getProgramAccounts(TOKEN_2022_PROGRAM_ID, { filters: [byOwner] })).rejects.toThrow(TypeError);
      await expect(chainReader.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ memcmp: { offset: 0, bytes: demoMint('usdc') } }] })).rejects.toThrow(TypeError);
      expect(chain.stats().httpRequests).toBe(0);
      expect(chain.stats().provider.refusedCalls).toBe(0);
    } finally {
      chain.profile.change('none');
    }
  });
});

describe('one view of the chain per login (minContextSlot, context.slot)', () => {
  /** Nodes over the same chain state, each with its own ledger settings and call log. */
  const allNodes: LocalnetHandle[] = [];
  async function nodes(count: number, options: { blockMs?: number } = {}): Promise<LocalnetHandle[]> {
    const started = await Promise.all(Array.from({ length: count }, () => startLocalnet({ state: chain.state, recordCalls: 200, ...options })));
    allNodes.push(...started);
    cleanups.push(() => Promise.all(started.map((node) => node.close())));
    return started;
  }
  /** Every node here advances the slot they share: set the rate of all their clocks (0 stops them). */
  const setClocks = async (blockMs: number): Promise<void> => {
    await Promise.all([chain, ...allNodes].map((node) => localnetAdmin(node.url, 'blocks', { blockMs })));
  };
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  });
  const minimumOf = (node: LocalnetHandle, method: string): (number | undefined)[] =>
    node
      .calls()
      .calls.filter((call) => call.method === method)
      .map((call) => {
        const params = call.params as unknown[];
        return (params[params.length - 1] as { minContextSlot?: number }).minContextSlot;
      });

  it("a login's first read carries no minimum; its later reads ask for the slot it has seen", async () => {
    const [node] = await nodes(1);
    const login = reader({ SOLANA_RPC_URL: node!.url }).withDeadline(Infinity);
    const slotBefore = chain.state.slot;
    await login.getTokenBalances(wallet('clean'), [usdc]);
    const first = minimumOf(node!, 'getMultipleAccounts'); // the mint's program and the ATAs
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((minimum) => minimum === undefined)).toBe(true);
    await login.getSignaturesForAddress(wallet('young'), { limit: 10 });
    await login.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: wallet('clean') } }] });
    await login.getMultipleAccounts([wallet('clean')]);
    // The slot the balances were read at (the chain's; a block clock may advance it meanwhile).
    const [seen] = minimumOf(node!, 'getSignaturesForAddress');
    expect(seen).toBeGreaterThanOrEqual(slotBefore);
    expect(seen).toBeLessThanOrEqual(chain.state.slot);
    // The history read is followed once by the endpoint's probe (a minimum no node can reach).
    expect(minimumOf(node!, 'getSignaturesForAddress')).toEqual([seen, Number.MAX_SAFE_INTEGER]);
    expect(minimumOf(node!, 'getProgramAccounts')).toEqual([seen]);
    expect(minimumOf(node!, 'getMultipleAccounts')).toEqual([...first, seen]);
  });

  it('a reply from a slot behind what the login has read is not used: it is asked again elsewhere', async () => {
    // The first node is 10 slots behind (within LAGGING_SLOTS) and ignores minContextSlot.
    const [behind, current] = await nodes(2);
    behind!.ledger.set({ slotsBehind: 10, honoursMinContextSlot: false });
    const chainReader = reader({ SOLANA_RPC_URL: `${behind!.url},${current!.url}`, RPC_RETRIES: '1', RPC_HEDGE_MS: '0' });
    const login = chainReader.withDeadline(Infinity);
    behind!.faults.set({ mode: 'http500', count: 1 });
    await login.getTokenBalances(wallet('clean'), [usdc]); // answered by the current node
    // The node behind cools down after its failure (≤ 100 ms for a first one, with jitter): once it
    // has, it is the next one tried when the current node fails, rather than whichever cools first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    current!.faults.set({ mode: 'http500', count: 1 });
    const [behindMark, currentMark] = [behind!.calls().last, current!.calls().last];
    const [account] = await login.getMultipleAccounts([wallet('clean')]);
    expect(account?.lamports).toBe(5_000_000_000);
    // Asked of the node behind (the current one failed once), which answered from its older slot;
    // that answer was not used: the current node was asked again.
    expect(behind!.calls(behindMark).calls.map((call) => call.answer)).toEqual(['1 of 1 accounts exist']);
    expect(current!.calls(currentMark).calls.map((call) => call.answer)).toEqual(['no answer: http500 (fault)', '1 of 1 accounts exist']);
    expect(chainReader.stats().errors).toBeGreaterThanOrEqual(2);
  });

  it('a node a few slots short: that read waits for it to catch up, and the node serves other reads meanwhile', async () => {
    // The chain's slot stands still until the node catches up: "two slots short" then holds
    // however long this machine takes (several clocks advance the shared slot otherwise).
    const [node] = await nodes(1, { blockMs: 0 });
    await setClocks(0);
    onTestFinished(() => setClocks(400));
    const login = reader({ SOLANA_RPC_URL: node!.url, RPC_RETRIES: '1' }).withDeadline(Infinity);
    await login.getTokenBalances(wallet('clean'), [usdc]);
    node!.ledger.set({ slotsBehind: 2, laggingMethods: ['getSignaturesForAddress'] });
    const mark = node!.calls().last;
    const history = login.getSignaturesForAddress(wallet('young'), { limit: 10 });
    while (!node!.calls(mark).calls.some((call) => call.answer.startsWith('error -32016'))) await new Promise((resolve) => setTimeout(resolve, 5));
    // Another read of the login, while the history read waits: not held up.
    const [account] = await login.getMultipleAccounts([wallet('clean')]);
    expect(account?.lamports).toBe(5_000_000_000);
    node!.ledger.set({ slotsBehind: 0 }); // the node catches up
    const { signatures } = await history;
    expect(signatures).toHaveLength(3);
    // The page refused (-32016), the accounts read answered while it waited, then the page answered
    // once the node caught up. How many times the page was refused before that depends on how long
    // this machine took to get here, so the order is what is checked, not the count.
    const calls = node!.calls(mark).calls.map((call) => `${call.method}: ${call.answer.startsWith('error') ? call.answer.slice(0, 12) : 'ok'}`);
    const firstPage = calls.indexOf('getSignaturesForAddress: ok');
    expect(calls[0]).toBe('getSignaturesForAddress: error -32016');
    expect(calls.indexOf('getMultipleAccounts: ok')).toBeGreaterThan(0);
    expect(calls.indexOf('getMultipleAccounts: ok')).toBeLessThan(firstPage);
    expect(calls.slice(0, firstPage).every((call) => call === 'getSignaturesForAddress: error -32016' || call === 'getMultipleAccounts: ok')).toBe(true);
    expect(calls.filter((call) => call === 'getSignaturesForAddress: ok')).toHaveLength(1);
  });

  it('without a node at the slot already read, the read is a 503', async () => {
    const [node] = await nodes(1);
    const login = reader({ SOLANA_RPC_URL: node!.url, RPC_RETRIES: '1' }).withDeadline(Infinity);
    await login.getTokenBalances(wallet('clean'), [usdc]);
    node!.ledger.set({ slotsBehind: 100, laggingMethods: ['getSignaturesForAddress'] });
    await expectUnavailable(login.getSignaturesForAddress(wallet('young'), { limit: 10 }), /behind|-32016/);
  });

  it("an endpoint's history horizon and its honouring of minContextSlot are read once and kept (HISTORY_HORIZON_TTL_MS)", async () => {
    const [node] = await nodes(1);
    node!.ledger.set({ firstAvailableBlock: 1234 });
    const chainReader = reader({ SOLANA_RPC_URL: node!.url });
    await chainReader.getTokenBalances(wallet('clean'), [usdc]);
    for (const name of ['young', 'quiet']) {
      const page = await chainReader.getSignaturesForAddress(wallet(name), { limit: 1000 });
      const { firstSlot, blockTime } = await page.horizon();
      expect(firstSlot).toBe(1234);
      expect(Math.abs(blockTime! - chain.state.blockTimeOfSlot(1234))).toBeLessThanOrEqual(1);
    }
    const methods = node!.calls().calls.map((call) => call.method);
    expect(methods.filter((method) => method === 'getFirstAvailableBlock')).toHaveLength(1);
    expect(methods.filter((method) => method === 'getBlockTime')).toHaveLength(1);
    expect(methods.filter((method) => method === 'getSignaturesForAddress')).toHaveLength(3); // two pages, one probe
  });
});
