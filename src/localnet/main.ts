/**
 * `npm run localnet`: the local Solana chain with the demo fixture. PORT (default 8899) and HOST
 * (default 127.0.0.1) choose where it listens; RPC_LATENCY_MS and RPC_REQUESTS_PER_SECOND simulate a
 * hosted provider's round trip and rate limit (provider.ts). Prints the URL and the demo catalogue.
 */
import { DEMO_MINTS, DEMO_WALLETS, demoMint, demoWallet, type DemoMintName, type DemoWalletName } from './fixture.js';
import { DEMO_COLLECTIONS } from './collections/fixture.js';
import { providerSettingsFromEnv } from './provider.js';
import { startLocalnet } from './server.js';

function readPort(): number {
  const raw = process.env.PORT ?? '8899';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be 0..65535, got ${raw}`);
  return port;
}

const handle = await startLocalnet({ port: readPort(), host: process.env.HOST ?? '127.0.0.1', provider: providerSettingsFromEnv(process.env) });
const lines = [`localnet: Solana JSON-RPC on ${handle.url} (admin routes under ${handle.url}/__localnet/)`];
const { latencyMs, requestsPerSecond } = handle.provider.current();
if (latencyMs > 0 || requestsPerSecond > 0) {
  lines.push(`provider simulation: ${latencyMs} ms per answer, ${requestsPerSecond === 0 ? 'no rate limit' : `HTTP 429 above ${requestsPerSecond} requests/s`}`);
}
lines.push('', 'mints:');
for (const name of Object.keys(DEMO_MINTS) as DemoMintName[]) {
  const spec = DEMO_MINTS[name];
  lines.push(`  ${name.padEnd(12)} ${demoMint(name).padEnd(44)} ${spec.program.padEnd(9)} ${spec.decimals}  ${spec.purpose}`);
}
lines.push('', 'wallets (secret keys: demoWallet(name) in src/localnet/fixture.ts):');
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
