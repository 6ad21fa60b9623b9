import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGate, loadConfig, createLogger, redactUrl, redactUrlsIn } from '../../../dist/src/embed.js';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER, writeDemoMintSigner } from 'x404-localnet/demo-mint.js';
import { demoWallet } from 'x404-localnet/fixture.js';
import { clusterFromSetting, clusterSettingOf } from 'x404-localnet/cluster.js';
import { startLocalnet } from 'x404-localnet/server.js';
import { authenticate, memoryStorage } from '../../../dist/src/sdk/index.js';
import { DEMO_LAUNCH_TRIES, DEMO_POLICIES, writeDemoRules } from './demo.js';
import { watchRoutes } from './routes.js';

/** How many JSON-RPC calls the embedded local chain keeps for the watch page. */
const RECORDED_CALLS = 2_000;

/**
 * `npm run dev`: the local chain with its demo wallets, and the gate pointed at it with a freshly
 * generated development secret, serving the watch page at `/` (packages/devpage; never in `npm start`).
 * Then it signs a demo wallet in, so the whole flow is visible.
 */
async function dev(): Promise<void> {
  // A chain whose commitments differ as a cluster's do (LOCALNET_CLUSTER=off: all at once; cluster.ts).
  const cluster = clusterFromSetting(clusterSettingOf(process.argv.slice(2), process.env));
  const localnet = await startLocalnet({ port: Number(process.env.LOCALNET_PORT ?? 8899), host: '127.0.0.1', recordCalls: RECORDED_CALLS, cluster });
  const jwtSecret = randomBytes(48).toString('base64url');
  const embeddedChain = process.env.SOLANA_RPC_URL === undefined;
  // Without a POLICIES_FILE of one's own, the demo's: a launch rule over the demo wallets (docs/rules.md).
  const policiesFile = process.env.POLICIES_FILE ?? writeDemoRules(mkdtempSync(join(tmpdir(), 'x404-dev-')));
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    // A development gate serves demo keypairs and a page that signs with them: this machine only,
    // unless HOST says otherwise.
    HOST: '127.0.0.1',
    ...process.env,
    JWT_SECRET: process.env.JWT_SECRET ?? jwtSecret,
    SOLANA_RPC_URL: process.env.SOLANA_RPC_URL ?? localnet.url,
    POLICIES_FILE: policiesFile,
  });
  // Where the gate reads the chain, as the page may show it: a provider URL's key never leaves the process.
  const devRoutes = watchRoutes({
    rpcUrl: config.rpcUrls.map(redactUrl).join(', '),
    ...(embeddedChain ? { chainCalls: (since: number) => localnet.calls(since), chainUrl: localnet.url } : {}),
  });
  const gate = await startGate(config, createLogger(config.logLevel), { devRoutes });
  const base = `http://${urlHost(config.host)}:${gate.port}`;

  const policy = DEMO_POLICIES.blacklist;
  const clean = demoWallet('clean');
  const result = await authenticate({ baseUrl: base, feature: 'blacklist', policy, signer: { secretKey: clean.secretKey }, storage: memoryStorage() });

  // A Solana keypair file of the demo wallet, so the CLI line below works as printed.
  const keypairFile = join(tmpdir(), 'x404-demo-clean.json');
  writeFileSync(keypairFile, JSON.stringify([...clean.secretKey]));
  // The demo launch's co-signing key (mint authority of its mints), for a mint configuration's `signer`.
  const mintSignerFile = writeDemoMintSigner();
  // The wallet that passes the demo launch rule, so the mint line below works as printed.
  const minter = demoWallet(DEMO_LAUNCH_TRIES.passes);
  const minterFile = join(tmpdir(), `x404-demo-${DEMO_LAUNCH_TRIES.passes}.json`);
  writeFileSync(minterFile, JSON.stringify([...minter.secretKey]));
  // The demo launch's mints exist on the embedded chain only, under the demo POLICIES_FILE.
  const demoLaunch = process.env.POLICIES_FILE === undefined && embeddedChain;
  if (demoLaunch) await fastForwardRecount(base, Object.keys(DEMO_LAUNCH_MINTS), () => localnet.blocks.advance(183));

  const chainLine = embeddedChain ? `local chain on ${localnet.url}` : `reading ${redactUrl(config.rpcUrls[0] as string)}${config.rpcUrls.length > 1 ? ` (+${config.rpcUrls.length - 1} more)` : ''}`;
  const lines = [
    '',
    `x404 gate (development) on ${base}  ·  ${chainLine}`,
    `JWT_SECRET is a random development secret for this run only.`,
    '',
    `Demo: wallet "clean" (${clean.publicKey}) signed in to blacklist → HTTP 200, token ${result.token.slice(0, 24)}…`,
    '',
    `Watch a sign-in step by step: open ${base}/ in a browser.`,
    ...(demoLaunch ? [`Watch a co-signed mint step by step: ${base}/#mint (the page's "Co-signed mint").`] : []),
    '',
    'Try it yourself:',
    `  curl -i ${base}/health`,
    `  curl -i ${base}/x404_auth/blacklist            # a nonce in X-404-Nonce`,
    `  node dist/src/cli/x404.js login --url ${base} --feature blacklist --keypair ${keypairFile} --policy '${JSON.stringify(policy)}'`,
    `  node dist/src/cli/x404.js login --url ${base} --rule launch --keypair ${keypairFile}      # the demo launch rule (${policiesFile}); "clean" is on its deny list`,
    `  POLICIES_FILE=${policiesFile} SOLANA_RPC_URL=${localnet.url} node dist/src/cli/x404.js check --rule launch --wallet ${clean.publicKey}`,
    ...(demoLaunch
      ? [
          `  node dist/src/cli/x404.js mint --url ${base} --name genesis --keypair ${minterFile} --rpc ${localnet.url}`,
          `      # co-signed by the gate: "${DEMO_LAUNCH_TRIES.passes}" passes the launch rule, once per mint (genesis, genesis-t22); again → 403 MINT_LIMIT_REACHED`,
          `  node dist/src/cli/x404.js mint-status genesis --url ${base}      # issued / reserved / supply`,
        ]
      : []),
    '',
    'Demo wallets (keypairs: demoWallet(name) in packages/localnet/src/fixture.ts): clean, banned-holder, whale, tier-gold, lock-steady, active, old, debtor-save, …',
    `Demo launch mints (packages/localnet/src/demo-mint.ts): genesis ${DEMO_LAUNCH_MINTS.genesis.address} (SPL Token), genesis-t22 ${DEMO_LAUNCH_MINTS['genesis-t22'].address} (Token-2022);`,
    `  their mint authority ${DEMO_MINT_SIGNER.publicKey} is the demo co-signing key in ${mintSignerFile}.`,
    'Ctrl-C stops both.',
    '',
  ];
  process.stdout.write(lines.join('\n'));

  const stop = async (): Promise<void> => {
    await gate.stop();
    await localnet.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

/**
 * A gate without Redis rebuilds its mints' counts from the chain at start, after waiting ~150
 * blocks (a minute) for any blockhash a previous run could have left in flight; it answers 503
 * MINT_RECOUNTING meanwhile. The embedded chain is new, so nothing is in flight: its blocks are
 * produced now, until each demo mint answers.
 */
async function fastForwardRecount(base: string, names: readonly string[], advance: () => void): Promise<void> {
  for (const name of names) {
    for (let tries = 0; tries < 200; tries++) {
      const res = await fetch(`${base}/x404_mint/${name}`);
      await res.arrayBuffer();
      if (res.status !== 503) break;
      advance();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** The address to print for a listening host: the loopback address for the wildcard ones. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

dev().catch((error: unknown) => {
  process.stderr.write(`npm run dev failed: ${redactUrlsIn(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(1);
});
