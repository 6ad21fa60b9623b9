import { spawn, type ChildProcess } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBase58 } from '../../src/lib/base58.js';
import { encodeBase58 } from '../../src/lib/base58-encode.js';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER } from 'x404-localnet/demo-mint.js';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startStack } from '../helpers/gate.js';
import { associatedTokenAccount } from '../helpers/mint.js';
import { launchBrowser, type Browser } from './browser-harness.js';

/**
 * The watch page of `npm run dev` (docs/architecture.md), driven in chromium: the real dev entry
 * (packages/devpage/dist/dev.js) with its embedded local chain, a demo wallet and a feature (or a demo mint)
 * picked on the page, and each step's content checked the way a viewer reads it, against what
 * web3.js, node:crypto and the chain say. Screenshots go to
 * test-results/watch-page/ (git-ignored). A gate started as `npm start` has no such page.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(ROOT, 'test-results', 'watch-page');
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

let dev: ChildProcess;
let devOutput = '';
let base: string;
/** The embedded local chain's JSON-RPC URL, as npm run dev printed it. */
let chainUrl: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // Without POLICIES_FILE, as `npm run dev` runs: the demo's operator policy and launch rule (packages/devpage/src/demo.ts).
  dev = spawn(process.execPath, [join(ROOT, 'packages/devpage/dist/dev.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOCALNET_PORT: '0', LOG_LEVEL: 'warn', WORKER_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev did not print the watch page's address:\n${devOutput}`)), 30_000);
    const read = (chunk: Buffer): void => {
      devOutput += chunk.toString();
      const match = /open (http:\/\/127\.0\.0\.1:\d+)\/ in a browser/.exec(devOutput);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    dev.stdout?.on('data', read);
    dev.stderr?.on('data', read);
    dev.once('exit', (code) => reject(new Error(`npm run dev exited with ${code}:\n${devOutput}`)));
  });
  chainUrl = (/local chain on (http:\/\/127\.0\.0\.1:\d+)/.exec(devOutput) as RegExpExecArray)[1] as string;
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${base}/`);
  await page.waitForSelector('#sign-in:not([disabled])', { timeout: 15_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (dev && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev.once('exit', resolve));
    dev.kill('SIGTERM');
    await exited;
  }
});

/** Picks the target and wallet, signs in, and waits until the page has shown the outcome. */
async function watchSignIn(target: string, wallet: string): Promise<void> {
  await page.selectOption('#target', { label: target });
  await page.selectOption('#wallet', wallet);
  await page.click('#sign-in');
  await page
    .waitForFunction(() => {
      const token = document.querySelector('.step[data-step="token"]') as HTMLElement | null;
      const decision = document.querySelector('.step[data-step="decision"]') as HTMLElement | null;
      return token?.dataset.state === 'done' || decision?.dataset.state === 'failed';
    }, undefined, { timeout: 20_000 })
    .catch(async () => {
      throw new Error(`the page did not finish: notice ${JSON.stringify(await page.textContent('#notice'))}; page errors: ${pageErrors.join('; ') || 'none'}`);
    });
}

const stepState = (step: string): Promise<string | null> => page.getAttribute(`.step[data-step="${step}"]`, 'data-state');
const text = async (selector: string): Promise<string> => (await page.textContent(selector)) ?? '';
const json = async (selector: string): Promise<any> => JSON.parse(await text(selector));

describe('the watch page of npm run dev, in chromium', () => {
  it('shows each step of a blacklist sign-in: nonce, challenge, signature, chain reads, decision, token', async () => {
    const wallet = demoWallet('clean').publicKey;
    await watchSignIn('blacklist', 'clean');

    expect(await stepState('nonce')).toBe('done');
    expect(await text('.step[data-step="nonce"] .summary')).toContain('HTTP 200');
    const nonce = await text('.step[data-step="nonce"] code.nonce');
    expect(nonce).toMatch(/^[a-z0-9]{64}$/);

    const challenge = await page.getAttribute('pre.challenge', 'data-value');
    expect(challenge).toBe(`CHALLENGE::${nonce}::/x404_auth/blacklist::SERVICE404_BLACKLIST`);
    expect(await text('pre.challenge')).toBe(challenge);

    // The signature shown verifies with node:crypto (not the page's @noble/ed25519).
    const signature = decodeBase58(await text('pre.signature')) as Uint8Array;
    expect(signature).toHaveLength(64);
    const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, decodeBase58(wallet) as Uint8Array]), format: 'der', type: 'spki' });
    expect(verify(null, Buffer.from(challenge!, 'utf8'), publicKey, signature)).toBe(true);
    expect(await text('.step[data-step="signature"] .summary')).toContain(`Verified in this page against ${wallet}`);

    // The chain reads of this login: every token account the wallet owns (the demo policy names three
    // mints, so the wallet's whole list, one call per token program).
    expect(await stepState('chain')).toBe('done');
    const methods = await page.$$eval('.step[data-step="chain"] tr[data-method]', (rows) => rows.map((row) => row.getAttribute('data-method')));
    expect(methods).toContain('getTokenAccountsByOwner');
    const reads = await text('.step[data-step="chain"] tbody');
    expect(reads).toContain('wallet clean');
    expect(reads).toContain('Token program');
    expect(reads).toContain('Token-2022 program');

    expect(await stepState('decision')).toBe('done');
    expect(await text('.step[data-step="decision"] .summary')).toContain('HTTP 200');
    const sent = await text('.step[data-step="decision"] table');
    expect(sent).toContain(`x-404-addr${wallet}`);
    expect(sent).toContain(`x-404-nonce${nonce}`);
    expect(sent).toContain(`excluded_mints["${demoMint('banned')}"`);
    const answer = await json('pre.response');
    expect(answer).toMatchObject({ success: true, publicKey: wallet, feature: 'blacklist', token: expect.any(String) });

    expect(await stepState('token')).toBe('done');
    expect(await json('pre.token-header')).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    expect(await json('pre.token-claims')).toMatchObject({ sub: wallet, feature: 'blacklist', pol: expect.any(String), exp: expect.any(Number) });
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'blacklist-clean-200.png'), fullPage: true });
  });

  it('shows a refused wallet as a client sees it: 500 HOLDS_BANNED_TOKEN, and no token', async () => {
    await watchSignIn('blacklist', 'banned-holder');

    expect(await stepState('signature')).toBe('done');
    expect(await stepState('decision')).toBe('failed');
    expect(await text('.step[data-step="decision"] .summary')).toContain('HTTP 500');
    const answer = await json('pre.response');
    expect(answer).toMatchObject({ error: 'HOLDS_BANNED_TOKEN' });
    expect(answer.message).toContain(demoMint('banned'));
    expect(await json('pre.thrown')).toMatchObject({ name: 'X404Error', code: 'HOLDS_BANNED_TOKEN', status: 500, body: answer });
    expect(await stepState('token')).toBe('skipped');
    const reads = await text('.step[data-step="chain"] tbody');
    expect(reads).toContain('wallet banned-holder');
    expect(reads).toContain('getTokenAccountsByOwner');
    await page.screenshot({ path: join(SHOTS, 'blacklist-banned-holder-500.png'), fullPage: true });
  });

  it('fills each feature with a demo policy: tier-gold gets the gold tier in its token', async () => {
    await watchSignIn('tier', 'tier-gold');
    expect(await stepState('token')).toBe('done');
    expect(await json('pre.token-claims')).toMatchObject({ sub: demoWallet('tier-gold').publicKey, feature: 'tier', tier: 'gold' });
    await page.screenshot({ path: join(SHOTS, 'tier-gold-200.png'), fullPage: true });
  });

  it("offers the gate's operator policies and rules, and signs in under a policy", async () => {
    const groups = await page.$$eval('#target optgroup', (nodes) => nodes.map((node) => node.getAttribute('label')));
    expect(groups).toEqual(['Features (policy headers below)', 'Operator policies (POLICIES_FILE, open mode)', 'Rules (POLICIES_FILE)']);
    await watchSignIn('blacklist · launch', 'clean');
    expect(await page.inputValue('#policy')).toContain(demoMint('banned'));
    expect(await text('.step[data-step="decision"] table')).toContain('x-404-policylaunch');
    expect(await json('pre.token-claims')).toMatchObject({ sub: demoWallet('clean').publicKey, feature: 'blacklist', pnm: 'launch' });
  });
});

describe('the demo launch rule', () => {
  it('signs a wallet in to the whole rule: each leaf in the answer, rul and lvs in the token', async () => {
    await watchSignIn('launch', 'old');
    expect(await stepState('token')).toBe('done');
    expect(await text('.step[data-step="challenge"]')).toContain('::/x404_auth/launch::SERVICE404_LAUNCH');
    const claims = await json('pre.token-claims');
    expect(claims).toMatchObject({ sub: demoWallet('old').publicKey, feature: 'launch', rul: 'launch' });
    expect(claims.lvs).toMatch(/^[-01?]{8}$/);
    expect(await text('.step[data-step="decision"]')).toContain('$.all[2].any[0]');
    await page.screenshot({ path: join(SHOTS, 'rule-launch-old-200.png'), fullPage: true });
  });

  it('shows the deciding leaf\'s answer as a client sees it: clean is on the deny list', async () => {
    await watchSignIn('launch', 'clean');
    expect(await stepState('decision')).toBe('failed');
    const decision = await text('.step[data-step="decision"]');
    expect(decision).toContain('WALLET_DENIED');
    expect(decision).toContain('$.all[3].not');
    await page.screenshot({ path: join(SHOTS, 'rule-launch-clean-403.png'), fullPage: true });
  });
});

/** Picks the mint and wallet in the "Co-signed mint" view, mints, and waits until the page has shown the outcome. */
async function watchMint(name: string, wallet: string): Promise<void> {
  if (!(await page.isVisible('#mint-view'))) await page.click('#tab-mint');
  await page.waitForSelector('#mint-button:not([disabled])', { timeout: 15_000 });
  await page.selectOption('#mint-name', name);
  await page.selectOption('#mint-wallet', wallet);
  await page.click('#mint-button');
  await page
    .waitForFunction(() => {
      const balance = (document.querySelector('.step[data-step="mint-balance"]') as HTMLElement | null)?.dataset.state;
      return !(document.querySelector('#mint-button') as HTMLButtonElement).disabled && (balance === 'done' || balance === 'failed' || balance === 'skipped');
    }, undefined, { timeout: 40_000 })
    .catch(async () => {
      throw new Error(`the mint did not finish: notice ${JSON.stringify(await page.textContent('#mint-notice'))}; page errors: ${pageErrors.join('; ') || 'none'}`);
    });
}

async function chainRpc(method: string, params: unknown[]): Promise<any> {
  const response = await fetch(chainUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await response.json()) as { result: unknown }).result;
}

/** Whether `signature` is `address`'s ed25519 signature over `message`, by node:crypto (not the page's @noble/ed25519). */
function verifiesWithNode(address: string, message: Uint8Array, signature: Uint8Array): boolean {
  const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, decodeBase58(address) as Uint8Array]), format: 'der', type: 'spki' });
  return verify(null, message, publicKey, signature);
}

const mintCalls = async (): Promise<string[]> => page.$$eval('.step[data-step="mint-chain"] tr[data-method]', (rows) => rows.map((row) => row.getAttribute('data-method') as string));

describe('the co-signed mint of the demo launch (the "Co-signed mint" view)', () => {
  const old = demoWallet('old').publicKey;
  const genesis = DEMO_LAUNCH_MINTS.genesis.address;
  const oldsAccount = associatedTokenAccount(new PublicKey(old), new PublicKey(genesis)).toBase58();

  it('mints genesis for a wallet that passes the rule: configuration, decoded transaction, both signatures, the gate\'s calls, confirmation, balance', async () => {
    await watchMint('genesis', 'old');

    expect(await stepState('mint-config')).toBe('done');
    expect(await json('pre.mint-configuration')).toMatchObject({ name: 'genesis', program: 'spl-token', signer: DEMO_MINT_SIGNER.publicKey, mint: genesis, amount: '1', perWallet: 1, rule: 'launch' });

    // The transaction the SDK built, decoded: the optional compute budget, the wallet's own ATA, MintTo of 1 to it, signed by the gate's key read-only.
    expect(await stepState('mint-transaction')).toBe('done');
    expect(await page.$$eval('table.instructions tr[data-instruction]', (rows) => rows.map((row) => row.getAttribute('data-instruction')))).toEqual(['SetComputeUnitLimit', 'CreateIdempotent', 'MintTo']);
    const mintTo = await text('table.instructions tr[data-instruction="MintTo"]');
    expect(mintTo).toContain('amount: 1');
    expect(mintTo).toContain(`destination: ${oldsAccount} old's genesis account (ATA)`);
    expect(mintTo).toContain(`mint authority: ${DEMO_MINT_SIGNER.publicKey}`);
    expect(await text(`table.keys tr[data-key="${DEMO_MINT_SIGNER.publicKey}"] td.role`)).toBe('signer, read-only');
    expect(await text(`table.keys tr[data-key="${old}"] td.role`)).toBe('signer, writable — the fee payer');

    // What the page shows was sent is what web3.js decodes, and the wallet's signature on it verifies with node:crypto.
    const sent = VersionedTransaction.deserialize(Buffer.from((JSON.parse((await text('pre.mint-request')).split('\n\n')[1] as string) as { transaction: string }).transaction, 'base64'));
    const message = sent.message.serialize();
    expect(sent.message.staticAccountKeys.map((key) => key.toBase58()).slice(0, 2)).toEqual([old, DEMO_MINT_SIGNER.publicKey]);
    expect(verifiesWithNode(old, message, sent.signatures[0] as Uint8Array)).toBe(true);
    expect(sent.signatures[1]).toEqual(new Uint8Array(64));
    expect(await text('pre.wallet-signature')).toBe(encodeBase58(sent.signatures[0] as Uint8Array));
    expect(await text('.step[data-step="mint-signature"] .summary')).toContain(`Verified in this page against ${old}`);

    // The gate's answer: 200, co-signed; the gate's signature in slot 1 verifies over the same message.
    expect(await stepState('mint-answer')).toBe('done');
    expect(await text('.step[data-step="mint-answer"] .summary')).toContain('HTTP 200');
    const answer = await json('pre.mint-answer-body');
    expect(answer).toMatchObject({ success: true, signature: encodeBase58(sent.signatures[0] as Uint8Array), remaining: 0, lastValidBlockHeight: expect.any(Number) });
    const cosigned = VersionedTransaction.deserialize(Buffer.from(answer.transaction, 'base64'));
    expect(Buffer.from(cosigned.message.serialize()).equals(Buffer.from(message))).toBe(true);
    expect(verifiesWithNode(DEMO_MINT_SIGNER.publicKey, message, cosigned.signatures[1] as Uint8Array)).toBe(true);
    expect(await text('pre.gate-signature')).toBe(encodeBase58(cosigned.signatures[1] as Uint8Array));
    expect(await text('.co-signature')).toContain(`Verified in this page against the gate's key ${DEMO_MINT_SIGNER.publicKey}`);
    expect(await page.$$eval('ol.checks li', (items) => items.map((item) => item.getAttribute('data-outcome')))).toEqual(Array(8).fill('passed'));

    // The calls the gate made while it decided: the blockhash, the rule's reads, the simulation, the send.
    expect(await stepState('mint-chain')).toBe('done');
    const calls = await mintCalls();
    for (const method of ['isBlockhashValid', 'getTokenAccountsByOwner', 'getSignaturesForAddress', 'simulateTransaction', 'sendTransaction']) expect(calls).toContain(method);
    expect(calls.indexOf('simulateTransaction')).toBeLessThan(calls.indexOf('sendTransaction'));
    expect(await text('.step[data-step="mint-chain"] tr[data-method="sendTransaction"] td.answer')).toBe(`sent: ${answer.signature}`);

    expect(await stepState('mint-confirmation')).toBe('done');
    expect(await text('.step[data-step="mint-confirmation"] .summary')).toMatch(/^(confirmed|finalized) in slot \d+/);

    // The balance the page shows is the chain's.
    expect(await stepState('mint-balance')).toBe('done');
    expect(await text('.step[data-step="mint-balance"] .balance')).toBe('1');
    expect(await text('.step[data-step="mint-balance"] .summary')).toContain('old now holds 1 genesis (this transaction: 0 → 1)');
    const account = await chainRpc('getAccountInfo', [oldsAccount, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    expect(account.value.data.parsed.info).toMatchObject({ mint: genesis, owner: old, tokenAmount: { amount: '1' } });
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'mint-genesis-old-200.png'), fullPage: true });
  });

  it('refuses the same wallet a second mint: 403 MINT_LIMIT_REACHED, no co-signature, nothing simulated or sent', async () => {
    await watchMint('genesis', 'old');

    expect(await stepState('mint-signature')).toBe('done');
    expect(await stepState('mint-answer')).toBe('failed');
    expect(await text('.step[data-step="mint-answer"] .summary')).toContain('HTTP 403');
    expect(await json('pre.mint-answer-body')).toMatchObject({ error: 'MINT_LIMIT_REACHED', perWallet: 1 });
    expect(await json('pre.mint-thrown')).toMatchObject({ name: 'X404Error', code: 'MINT_LIMIT_REACHED', status: 403 });
    expect(await page.getAttribute('ol.checks li[data-check="counts"]', 'data-outcome')).toBe('refused');
    expect(await page.$$('.co-signature')).toHaveLength(0);
    expect(await text('.no-co-signature')).toContain('No co-signature');
    const calls = await mintCalls();
    expect(calls).not.toContain('simulateTransaction');
    expect(calls).not.toContain('sendTransaction');
    expect(await stepState('mint-confirmation')).toBe('skipped');
    expect(await stepState('mint-balance')).toBe('skipped');
    expect((await chainRpc('getAccountInfo', [oldsAccount, { encoding: 'jsonParsed', commitment: 'processed' }])).value.data.parsed.info.tokenAmount.amount).toBe('1');
    await page.screenshot({ path: join(SHOTS, 'mint-genesis-old-again-403.png'), fullPage: true });
  });

  it("shows the rule's refusal for a wallet that fails it, with no signature: young is too new", async () => {
    await watchMint('genesis', 'young');

    // A refusal, not a failure of the gate: 403 with the rule's code (a sign-in answers it 500).
    expect(await stepState('mint-answer')).toBe('failed');
    expect(await text('.step[data-step="mint-answer"] .summary')).toContain('HTTP 403');
    const answer = await json('pre.mint-answer-body');
    expect(answer).toMatchObject({ error: 'WALLET_TOO_NEW', rule: 'launch', failed: expect.arrayContaining(['$.all[1]']) });
    expect(answer.signature).toBeUndefined();
    expect(answer.transaction).toBeUndefined();
    expect(await page.getAttribute('ol.checks li[data-check="rule"]', 'data-outcome')).toBe('refused');
    expect(await page.getAttribute('ol.checks li[data-check="simulate"]', 'data-outcome')).toBe('not reached');
    const calls = await mintCalls();
    expect(calls).toContain('getSignaturesForAddress');
    expect(calls).not.toContain('simulateTransaction');
    expect(calls).not.toContain('sendTransaction');
    expect(await stepState('mint-balance')).toBe('skipped');
    const youngsAccount = associatedTokenAccount(new PublicKey(demoWallet('young').publicKey), new PublicKey(genesis)).toBase58();
    expect((await chainRpc('getAccountInfo', [youngsAccount, { encoding: 'base64' }])).value).toBeNull();
    await page.screenshot({ path: join(SHOTS, 'mint-genesis-young-403.png'), fullPage: true });
  });
});

describe('a gate started as npm start', () => {
  it('has no watch page: / and its routes answer 404', async () => {
    const stack = await startStack();
    try {
      for (const path of ['/', '/watch/demo.json', '/watch/chain-reads', '/watch/files/packages/devpage/dist/page.js']) {
        const response = await fetch(`${stack.gateUrl}${path}`);
        expect(response.status, path).toBe(404);
        expect(await response.json()).toMatchObject({ error: 'NOT_FOUND' });
      }
    } finally {
      await stack.stop();
    }
  });
});
