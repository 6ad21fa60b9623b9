/**
 * What counting a wallet's holdings costs per login, by read (src/chain/wallet-holdings.ts):
 * its associated token accounts (getMultipleAccounts), every account by mint (one
 * getTokenAccountsByOwner per mint) and every account by program (the whole list, two calls).
 * Against the local chain in its own process: calls, HTTP requests and bytes each way per login
 * from its counters, and this process's CPU per login (JSON parsing and the checks of
 * src/chain/holdings.ts; the chain's own CPU is not in it), for a typical wallet, a wallet with
 * many token accounts and policies naming 1 to 20 mints.
 *
 *   npm run build && node dist/bench/holdings-reads.js [--logins=400] [--heavy=400] [--mints=1,2]   (npm run bench runs it too)
 *
 * Logins run 16 at a time, so reads merge into batches as they do under load.
 */
import { createChainReader } from '../src/chain/reader.js';
import type { ChainReader } from '../src/chain/types.js';
import { loadConfig } from '../src/config.js';
import { startLocalnetProcess, type LocalnetChild, type RpcCounters } from './processes.js';
import { benchWallets } from './wallets.js';

const option = (name: string, fallback: number): number => {
  const raw = process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  return raw === undefined ? fallback : Number(raw);
};
const LOGINS = option('logins', 400);
const HEAVY_ACCOUNTS = option('heavy', 400);
const TYPICAL_ACCOUNTS = 12;
const CONCURRENT = 16;
/** --mints=1,2: only these policy sizes (default 1, 2, 3, 5, 10, 20). */
const POLICY_MINTS = (process.argv.find((arg) => arg.startsWith('--mints='))?.slice('--mints='.length).split(',').map(Number) ?? [1, 2, 3, 5, 10, 20]);

type Read = 'ata' | 'by mint' | 'by program';
const READS: Read[] = ['ata', 'by mint', 'by program'];

export interface HoldingsReadCost {
  wallet: string;
  tokenAccounts: number;
  policyMints: number;
  read: Read;
  callsPerLogin: number;
  httpRequestsPerLogin: number;
  requestBytesPerLogin: number;
  responseBytesPerLogin: number;
  cpuUsPerLogin: number;
}

function read(chain: ChainReader, how: Read, wallet: string, mints: string[]): Promise<unknown> {
  if (how === 'ata') return chain.getTokenBalances(wallet, mints);
  if (how === 'by mint') return chain.getTokenAccounts(wallet, mints);
  return chain.getTokenAccounts(wallet);
}

export async function holdingsReadCosts(log: (line: string) => void = console.log, options: { logins?: number } = {}): Promise<HoldingsReadCost[]> {
  const logins = options.logins ?? LOGINS;
  const localnet = await startLocalnetProcess();
  const results: HoldingsReadCost[] = [];
  try {
    const policyMints: string[] = [];
    for (let i = 0; i < Math.max(...POLICY_MINTS); i++) policyMints.push((await localnet.admin('mint', { decimals: 6, program: 'token' })).address as string);
    const otherMints: string[] = [];
    for (let i = 0; i < HEAVY_ACCOUNTS; i++) otherMints.push((await localnet.admin('mint', { decimals: 6, program: i % 2 === 0 ? 'token' : 'token2022' })).address as string);
    const kinds = [
      { name: 'typical', accounts: TYPICAL_ACCOUNTS },
      { name: 'heavy', accounts: HEAVY_ACCOUNTS },
    ];
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(40), SOLANA_RPC_URL: localnet.url });
    for (const kind of kinds) {
      // Every other account a Token-2022 ATA (ImmutableOwner, 170 bytes), as wallets hold them; none of the policy's mints.
      const wallets = benchWallets(8, `holdings-${kind.name}`);
      for (const wallet of wallets) {
        for (let start = 0; start < kind.accounts; start += 32) {
          await Promise.all(
            otherMints.slice(start, Math.min(kind.accounts, start + 32)).map((mint, i) =>
              localnet.admin('token-account', { owner: wallet.address, mint, amount: '1000', program: (start + i) % 2 === 0 ? 'token' : 'token2022' }),
            ),
          );
        }
      }
      for (const count of POLICY_MINTS) {
        const mints = policyMints.slice(0, count);
        for (const how of READS) {
          const chain = createChainReader(config);
          // Untimed: the mints' programs learned, the code warm.
          await Promise.all(wallets.map((wallet) => read(chain, how, wallet.address, mints)));
          await localnet.resetStats();
          const cpuBefore = process.cpuUsage();
          for (let done = 0; done < logins; done += CONCURRENT) {
            await Promise.all(wallets.concat(wallets).slice(0, CONCURRENT).map((wallet) => read(chain, how, wallet.address, mints)));
          }
          const cpu = process.cpuUsage(cpuBefore);
          const stats: RpcCounters = await localnet.stats();
          await chain.close();
          const made = Math.ceil(logins / CONCURRENT) * CONCURRENT;
          const calls = Object.values(stats.calls).reduce((sum, n) => sum + n, 0);
          const result: HoldingsReadCost = {
            wallet: kind.name,
            tokenAccounts: kind.accounts,
            policyMints: count,
            read: how,
            callsPerLogin: calls / made,
            httpRequestsPerLogin: stats.httpRequests / made,
            requestBytesPerLogin: (stats.requestBytes ?? 0) / made,
            responseBytesPerLogin: (stats.responseBytes ?? 0) / made,
            cpuUsPerLogin: (cpu.user + cpu.system) / made,
          };
          results.push(result);
          log(
            `${kind.name} wallet (${kind.accounts} token accounts), ${count} policy mint${count === 1 ? '' : 's'}, ${how}: ` +
              `${result.callsPerLogin.toFixed(2)} calls, ${result.httpRequestsPerLogin.toFixed(3)} HTTP requests, ` +
              `${Math.round(result.requestBytesPerLogin)} B sent, ${Math.round(result.responseBytesPerLogin)} B received, ${result.cpuUsPerLogin.toFixed(1)} µs CPU per login`,
          );
        }
      }
    }
  } finally {
    await localnet.stop();
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await holdingsReadCosts();
