/**
 * `npm run localnet`: the local Solana chain with the demo fixture. PORT (default 8899) and HOST
 * (default 127.0.0.1) choose where it listens; LOCALNET_BLOCK_MS how often it produces a block
 * (default 400, 0: only on POST /__localnet/blocks); RPC_LATENCY_MS and RPC_REQUESTS_PER_SECOND simulate a
 * hosted provider's round trip and rate limit (provider.ts), RPC_PROFILE how it limits callers
 * (provider-profile.ts: a preset, e.g. `batches-off` or `per-call-budget,callsPerSecond=150`);
 * LOCALNET_CLUSTER (or `--cluster=`) how far apart the commitments are (cluster.ts: default
 * confirmed 2 blocks behind and transactions landing 2 blocks after sending; `off`: all at once;
 * `confirmedLag=3,landingBlocks=1`). Prints the URL and the demo catalogue.
 */
import { DEMO_MINTS, DEMO_WALLETS, demoMint, demoWallet, type DemoMintName, type DemoWalletName } from './fixture.js';
import { DEMO_COLLECTIONS } from './collections/fixture.js';
import { clusterFromSetting, clusterSettingOf, describeCluster } from './cluster.js';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER } from './demo-mint.js';
import { providerSettingsFromEnv } from './provider.js';
import { describeProfile, profileFromEnv } from './provider-profile.js';
import { startLocalnet } from './server.js';

function readPort(): number {
  const raw = process.env.PORT ?? '8899';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be 0..65535, got ${raw}`);
  return port;
}

function readBlockMs(): number | undefined {
  const raw = process.env.LOCALNET_BLOCK_MS;
  if (raw === undefined) return undefined;
  const blockMs = Number(raw);
  if (!Number.isInteger(blockMs) || blockMs < 0) throw new Error(`LOCALNET_BLOCK_MS must be a whole number of milliseconds (0 stops the clock), got ${raw}`);
  return blockMs;
}

// Read (and refused when wrong) before listening.
const profile = profileFromEnv(process.env);
const cluster = clusterFromSetting(clusterSettingOf(process.argv.slice(2), process.env));
const handle = await startLocalnet({ port: readPort(), host: process.env.HOST ?? '127.0.0.1', provider: providerSettingsFromEnv(process.env), blockMs: readBlockMs(), cluster });
handle.profile.set(profile);
const lines = [`localnet: Solana JSON-RPC on ${handle.url} (admin routes under ${handle.url}/__localnet/)`];
lines.push(handle.blocks.blockMs > 0 ? `blocks: one every ${handle.blocks.blockMs} ms (a blockhash lives 150 blocks)` : 'blocks: clock stopped (POST /__localnet/blocks {"advance": n})');
lines.push(describeCluster(handle.cluster.get()));
const { latencyMs, requestsPerSecond } = handle.provider.current();
if (latencyMs > 0 || requestsPerSecond > 0) {
  lines.push(`provider simulation: ${latencyMs} ms per answer, ${requestsPerSecond === 0 ? 'no rate limit' : `HTTP 429 above ${requestsPerSecond} requests/s`}`);
}
if (profile.preset !== 'none') lines.push(`provider profile: ${describeProfile(profile)}`);
lines.push('', 'mints:');
for (const name of Object.keys(DEMO_MINTS) as DemoMintName[]) {
  const spec = DEMO_MINTS[name];
  lines.push(`  ${name.padEnd(12)} ${demoMint(name).padEnd(44)} ${spec.program.padEnd(9)} ${spec.decimals}  ${spec.purpose}`);
}
for (const [name, mint] of Object.entries(DEMO_LAUNCH_MINTS)) {
  lines.push(`  ${name.padEnd(12)} ${mint.address.padEnd(44)} ${mint.program.padEnd(9)} ${mint.decimals}  demo launch: mint authority ${DEMO_MINT_SIGNER.publicKey} (demo-mint.ts)`);
}
lines.push('', 'wallets (secret keys: demoWallet(name) in packages/localnet/src/fixture.ts):');
for (const name of Object.keys(DEMO_WALLETS) as DemoWalletName[]) {
  lines.push(`  ${name.padEnd(16)} ${demoWallet(name).publicKey.padEnd(44)} ${DEMO_WALLETS[name]}`);
}
lines.push('', `collections (the collection feature; searchAssets is served on ${handle.url} too, so DAS_URL may be it):`);
for (const [name, address] of Object.entries(DEMO_COLLECTIONS)) lines.push(`  ${name.padEnd(16)} ${address}`);
console.log(lines.join('\n'));

const stop = () => {
  handle.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
