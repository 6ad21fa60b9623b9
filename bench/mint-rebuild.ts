/**
 * What rebuilding a mint's counts from the chain costs (issue 32, docs/minting.md "Counts rebuilt
 * from the chain"): N mints co-signed by one key land on the local chain (in its own process), then
 * the gate's rebuild (src/mint/rebuild.ts) reads them back through the mint's RPC client — pages of
 * getSignaturesForAddress, getTransaction base64 for each — under a provider profile (default
 * `history-batch-10`: at most 10 history calls per JSON-RPC array). Prints the calls, HTTP requests
 * and time, and checks the counts are exact.
 *
 *   npm run build && node dist/bench/mint-rebuild.js [--mints=2000] [--profile=history-batch-10]
 *
 * Not a test: the integrator does the run of record, alone on the machine.
 */
import { sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createMintChain } from '../src/mint/chain.js';
import { rebuildCounts } from '../src/mint/rebuild.js';
import { loadPolicyFile } from '../src/policy/load.js';
import { tokenMintTransaction, type MintConfiguration } from '../src/sdk/mint.js';
import { decodeTransaction } from '../src/transaction/decode.js';
import { encodeMessage, encodeTransaction } from '../src/transaction/encode.js';
import { startLocalnetProcess } from './processes.js';
import { keypairFileText, randomWallet } from './wallets.js';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

const args = new Map(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=') as [string, string]));
const MINTS = Number(args.get('mints') ?? 2000);
const PROFILE = args.get('profile') ?? 'history-batch-10';

async function rpc(url: string, body: unknown): Promise<unknown> {
  return (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'x404-bench-rebuild-'));
  const localnet = await startLocalnetProcess({ LOCALNET_BLOCK_MS: '0' });
  try {
    const signer = randomWallet();
    writeFileSync(join(dir, 'signer.json'), keypairFileText(signer), { mode: 0o600 });
    const { address: mint } = (await localnet.admin('mint', { decimals: 0, program: 'token', mintAuthority: signer.address, supply: '0' })) as { address: string };
    const policies = join(dir, 'policies.json');
    writeFileSync(
      policies,
      JSON.stringify({
        blacklist: { launch: { excluded_mints: [], max_holdings: {} } },
        rules: { launch: { all: [{ feature: 'blacklist', policy: 'launch' }] } },
        mints: { drop: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint, amount: '1' } },
      }),
    );
    const configuration = { name: 'drop', signer: signer.address, program: 'spl-token', mint, amount: '1', tokenProgram: TOKEN_PROGRAM } as unknown as MintConfiguration;

    // N wallets, each minting once, signed by the wallet and the key; sent in arrays of 20.
    const blockhash = ((await rpc(localnet.url, { jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'confirmed' }] })) as { result: { value: { blockhash: string } } }).result.value.blockhash;
    const sends: unknown[] = [];
    for (let i = 0; i < MINTS; i++) {
      const wallet = randomWallet();
      await localnet.admin('lamports', { address: wallet.address, lamports: '1000000000' });
      const message = encodeMessage(decodeTransaction(await tokenMintTransaction({ configuration, wallet: wallet.address, blockhash })).message);
      const wire = encodeTransaction([new Uint8Array(sign(null, message, wallet.privateKey)), new Uint8Array(sign(null, message, signer.privateKey))], message);
      sends.push({ jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [Buffer.from(wire).toString('base64'), { encoding: 'base64', skipPreflight: true }] });
    }
    for (let i = 0; i < sends.length; i += 20) await rpc(localnet.url, sends.slice(i, i + 20));
    // Landed (the chain as a cluster lands a transaction a few blocks after its send; one admin
    // advance delivers them once, after its last block), then confirmed and finalized.
    for (let i = 0; i < 4; i++) await localnet.admin('blocks', { advance: 1 });
    await localnet.admin('blocks', { advance: 40 });

    await localnet.admin('provider', { profile: PROFILE });
    await localnet.resetStats();
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(40), SOLANA_RPC_URL: localnet.url, WORKER_THREADS: '0', POLICIES_FILE: policies });
    const set = loadPolicyFile(policies, config.policyMode);
    const chain = createMintChain(config);
    const started = performance.now();
    const counts = (await rebuildCounts([set.mints.get('drop')!], chain)).get('drop')!;
    const ms = performance.now() - started;
    const stats = await localnet.stats();
    if (counts.issued !== MINTS || counts.wallets.size !== MINTS) throw new Error(`rebuilt ${counts.issued} mints of ${counts.wallets.size} wallets, expected ${MINTS}`);
    const lines = [
      `# Counts rebuilt from the chain — ${new Date().toISOString()} (${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()}, Node ${process.version})`,
      '',
      `${MINTS} mints, provider profile ${PROFILE}: ${Math.round(ms)} ms, ${stats.calls.getSignaturesForAddress ?? 0} getSignaturesForAddress, ${stats.calls.getTransaction ?? 0} getTransaction, ${stats.calls.getFirstAvailableBlock ?? 0} getFirstAvailableBlock, ${stats.httpRequests} HTTP requests; ${Math.round((ms * 1000) / MINTS)} µs a mint.`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await localnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
