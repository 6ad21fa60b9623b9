import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { rolldown } from 'rolldown';
import { demoMint } from 'x404-localnet/fixture.js';
import { decodeJwt, newWallet, publicKeyOf } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { bundleSdkForBrowser, launchBrowser, servePages, type Browser, type PageServer } from './browser-harness.js';

/**
 * Sign In With Solana in a real browser. The page at http://localhost:<port> (the gate's SIWS_DOMAINS)
 * signs in to the gate at http://127.0.0.1:<gate port> with the bundled SDK and an injected
 * wallet-standard wallet that behaves like Phantom: its `solana:signIn` fills in the domain from the
 * page's own `location.host` and refuses an input naming another host (the wallet's anti-phishing
 * check), then signs the text @solana/wallet-standard-util's createSignInMessage builds.
 *
 * The story: the real site signs in with SIWS (auto), re-uses its token, falls back to the challenge
 * for a wallet without signIn and to a memo transaction for a hardware wallet. A phishing site on
 * another origin that relays the gate's nonce gets a message naming its own host, which the gate
 * refuses; one that forges the real domain is stopped by the wallet before anything is signed.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The injected wallet, bundled for the page. Built as a wallet would be: the SIWS text from
 * createSignInMessage, ed25519 from @noble/ed25519 (WebCrypto SHA-512), an in-page keypair.
 * `log` records what the wallet was asked, for the test to read back.
 */
const WALLET_ENTRY = `
import { createSignInMessage, verifySignIn } from '@solana/wallet-standard-util';
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';

export function createTestWallet(secretKey, featureNames) {
  const seed = secretKey.slice(0, 32);
  const publicKey = secretKey.slice(32, 64);
  const address = bs58.encode(publicKey);
  const account = { address, publicKey, chains: ['solana:mainnet'], features: [...featureNames] };
  const log = { signIn: [], refused: [], signMessage: 0, signTransaction: 0 };
  const features = {
    'solana:signIn': {
      version: '1.0.0',
      async signIn(...inputs) {
        return Promise.all(inputs.map(async (input = {}) => {
          // Phantom's rule: the domain is the page's unless the input names one, and then it must be the page's.
          const host = location.host;
          const domain = input.domain ?? host;
          if (domain.toLowerCase() !== host.toLowerCase()) {
            log.refused.push({ domain, host });
            throw new Error('Sign-in refused: the request is for ' + domain + ' but this page is ' + host);
          }
          if (input.address !== undefined && input.address !== address) throw new Error('Sign-in refused: not this account');
          const fields = { ...input, domain, address };
          const signedMessage = createSignInMessage(fields);
          const signature = await ed.signAsync(signedMessage, seed);
          const output = { account, signedMessage, signature, signatureType: 'ed25519' };
          log.signIn.push({ input: JSON.parse(JSON.stringify(input)), text: new TextDecoder().decode(signedMessage), verified: verifySignIn(fields, output) });
          return output;
        }));
      },
    },
    'solana:signMessage': {
      version: '1.0.0',
      async signMessage(...inputs) {
        log.signMessage += 1;
        return Promise.all(inputs.map(async ({ message }) => ({ signedMessage: message, signature: await ed.signAsync(message, seed) })));
      },
    },
    'solana:signTransaction': {
      version: '1.0.0',
      supportedTransactionVersions: ['legacy', 0],
      async signTransaction(...inputs) {
        log.signTransaction += 1;
        return Promise.all(inputs.map(async ({ transaction }) => {
          // One signature slot (count 1, 64 bytes), then the message: sign the message, fill the slot.
          if (transaction[0] !== 1) throw new Error('expected one signature slot');
          const signature = await ed.signAsync(transaction.subarray(65), seed);
          const signedTransaction = Uint8Array.from(transaction);
          signedTransaction.set(signature, 1);
          return { signedTransaction };
        }));
      },
    },
  };
  const wallet = {
    version: '1.0.0',
    name: 'x404 test wallet',
    icon: 'data:image/svg+xml;base64,PHN2Zy8+',
    chains: ['solana:mainnet'],
    accounts: [account],
    features: Object.fromEntries(featureNames.map((name) => [name, features[name]])),
  };
  return { wallet, log };
}
`;

const WALLET_ID = `${ROOT}test/e2e/in-page-wallet.js`;

/** WALLET_ENTRY as one browser ES module (a virtual file in test/e2e, so node_modules resolve from the repo). */
async function bundleWalletForBrowser(): Promise<string> {
  const bundle = await rolldown({
    input: WALLET_ID,
    cwd: ROOT,
    platform: 'browser',
    logLevel: 'warn',
    plugins: [{ name: 'in-page-wallet', resolveId: (id) => (id === WALLET_ID ? id : null), load: (id) => (id === WALLET_ID ? WALLET_ENTRY : null) }],
  });
  try {
    const { output } = await bundle.generate({ format: 'esm' });
    const [chunk] = output;
    if (!chunk || chunk.type !== 'chunk' || output.length !== 1) throw new Error('expected one chunk');
    return chunk.code;
  } finally {
    await bundle.close();
  }
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>x404 SIWS test page</title></head>
<body>
<script type="module">
  import * as x404 from '/sdk.js';
  import { createTestWallet } from '/wallet.js';
  window.wallets = {};
  window.createTestWallet = createTestWallet;
  window.x404 = x404;
</script>
</body></html>`;

type WalletFeature = 'solana:signIn' | 'solana:signMessage' | 'solana:signTransaction';
const ALL_FEATURES: WalletFeature[] = ['solana:signIn', 'solana:signMessage', 'solana:signTransaction'];

let stack: Stack;
let pages: PageServer; // the real site, http://localhost:<port>
let phishing: PageServer; // the same files on another origin, http://127.0.0.1:<port2>
let phishingUrl: string;
let browser: Browser;
let site: Page;
let phishingSite: Page;
const files: Record<string, [string, string]> = {};

const policy = { excluded_mints: [demoMint('banned')], max_holdings: { [demoMint('usdc')]: '1000000000000' } };

beforeAll(async () => {
  // The page server first: its port is the SIWS domain the gate is started with.
  [pages, phishing] = await Promise.all([servePages(files), servePages(files)]);
  phishingUrl = phishing.url.replace('//localhost:', '//127.0.0.1:');
  const [started, sdk, wallet, launched] = await Promise.all([
    startStack({ env: { SIWS_DOMAINS: new URL(pages.url).host } }),
    bundleSdkForBrowser(),
    bundleWalletForBrowser(),
    launchBrowser(),
  ]);
  stack = started;
  browser = launched;
  files['/'] = ['text/html; charset=utf-8', PAGE];
  files['/sdk.js'] = ['text/javascript; charset=utf-8', sdk];
  files['/wallet.js'] = ['text/javascript; charset=utf-8', wallet];
  [site, phishingSite] = await Promise.all([browser.context.newPage(), browser.context.newPage()]);
  await Promise.all([site.goto(pages.url), phishingSite.goto(phishingUrl)]);
  await Promise.all([site, phishingSite].map((page) => page.waitForFunction(() => (window as any).x404 !== undefined)));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([pages?.close(), phishing?.close()]);
  await stack?.stop();
});

/** A fresh wallet with some SOL on the local chain. */
function fundedWallet(): Uint8Array {
  const secret = newWallet();
  stack.localnet.state.setLamports(publicKeyOf(secret), 1_000_000_000);
  return secret;
}

interface SignInRun {
  ok: boolean;
  token?: string;
  signMode?: string;
  alreadyAuthenticated?: boolean;
  publicKey?: string;
  name?: string;
  code?: string;
  status?: number;
  message?: string;
  body?: any;
  /** What the in-page wallet was asked so far (its log lives as long as the page). */
  log: { signIn: { input: any; text: string; verified: boolean }[]; refused: { domain: string; host: string }[]; signMessage: number; signTransaction: number };
  /** The SDK's requests to the gate in this run, and the nonce each answer carried. */
  requests: { headers: Record<string, string>; status: number; nonce: string | null }[];
}

/**
 * Runs the SDK's authenticate in `page` with the injected wallet `secretKey` exposing `features`
 * (one wallet object per key and feature set, kept across calls so its log counts every request).
 */
function authenticateInPage(page: Page, secretKey: Uint8Array, features: WalletFeature[], hardware = false): Promise<SignInRun> {
  return page.evaluate(
    async ({ gateUrl, secretKey, features, hardware, policy }) => {
      const w = window as any;
      const id = `${secretKey.join(',')}|${features.join(',')}`;
      w.wallets[id] ??= w.createTestWallet(Uint8Array.from(secretKey), features);
      const { wallet, log } = w.wallets[id];
      const requests: SignInRun['requests'] = [];
      const recordingFetch = async (input: string, init?: RequestInit): Promise<Response> => {
        const response = await fetch(input, init);
        requests.push({ headers: { ...(init?.headers as Record<string, string>) }, status: response.status, nonce: response.headers.get('x-404-nonce') });
        return response;
      };
      const snapshot = () => JSON.parse(JSON.stringify(log));
      try {
        const result = await w.x404.authenticate({ baseUrl: gateUrl, feature: 'blacklist', policy, signer: hardware ? { wallet, hardware: true } : { wallet }, fetch: recordingFetch });
        return { ok: true, token: result.token, signMode: result.signMode, alreadyAuthenticated: result.alreadyAuthenticated, publicKey: result.publicKey, log: snapshot(), requests };
      } catch (error: any) {
        return { ok: false, name: error.name, code: error.code, status: error.status, message: error.message, body: error.body, log: snapshot(), requests };
      }
    },
    { gateUrl: stack.gateUrl, secretKey: [...secretKey], features, hardware, policy },
  );
}

/** The fields of a SIWS message text (as the wallet-standard serialiser lays them out). */
function siwsFieldsOf(text: string): { domain: string; address: string; uri?: string; nonce?: string; chainId?: string; resources: string[] } {
  const lines = text.split('\n');
  const field = (label: string) => lines.find((line) => line.startsWith(`${label}: `))?.slice(label.length + 2);
  return {
    domain: (lines[0] ?? '').replace(/ wants you to sign in with your Solana account:$/, ''),
    address: lines[1] ?? '',
    uri: field('URI'),
    nonce: field('Nonce'),
    chainId: field('Chain ID'),
    resources: lines.slice(lines.indexOf('Resources:') + 1).filter((line) => line.startsWith('- ')).map((line) => line.slice(2)),
  };
}

describe('Sign In With Solana from the real site (a page on SIWS_DOMAINS, cross-origin to the gate)', () => {
  it('auto picks siws for a wallet with solana:signIn: the wallet signs its own domain and the gate\'s nonce; the token says sgm: siws and is re-used', async () => {
    const secret = fundedWallet();
    const first = await authenticateInPage(site, secret, ALL_FEATURES);
    expect(first, first.message).toMatchObject({ ok: true, signMode: 'siws', alreadyAuthenticated: false, publicKey: publicKeyOf(secret) });
    expect(decodeJwt(first.token!)).toMatchObject({ sub: publicKeyOf(secret), feature: 'blacklist', sgm: 'siws' });

    // What the wallet signed: this page's host and origin, the nonce the gate answered, the feature's resource.
    expect(first.log.signIn).toHaveLength(1);
    const [signed] = first.log.signIn;
    const gateNonce = first.requests[0]!.nonce;
    expect(gateNonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(siwsFieldsOf(signed!.text)).toEqual({
      domain: new URL(pages.url).host,
      address: publicKeyOf(secret),
      uri: pages.url,
      nonce: gateNonce,
      chainId: 'mainnet',
      resources: ['x404:blacklist'],
    });
    expect(signed!.verified).toBe(true); // wallet-standard-util's verifySignIn, in the page
    expect([first.log.signMessage, first.log.signTransaction]).toEqual([0, 0]);

    // The cross-origin login carried the SIWS headers (so chromium's preflight for them passed).
    const login = first.requests.at(-1)!;
    expect(login.status).toBe(200);
    expect(login.headers).toMatchObject({ 'x-404-sign-mode': 'siws', 'x-404-nonce': gateNonce, 'x-404-addr': publicKeyOf(secret) });
    expect(Buffer.from(login.headers['x-404-message']!, 'base64').toString('utf8')).toBe(signed!.text);

    // Second visit: the stored token is accepted; the wallet is not asked again.
    const second = await authenticateInPage(site, secret, ALL_FEATURES);
    expect(second, second.message).toMatchObject({ ok: true, alreadyAuthenticated: true, token: first.token });
    expect(second.log.signIn).toHaveLength(1);
    expect(second.requests.map((request) => [request.headers['x-jwt'] === first.token, request.status])).toEqual([[true, 200]]);
  });

  it('a wallet with only solana:signMessage → auto signs the challenge (no sgm in the token)', async () => {
    const secret = fundedWallet();
    const run = await authenticateInPage(site, secret, ['solana:signMessage']);
    expect(run, run.message).toMatchObject({ ok: true, signMode: 'challenge', alreadyAuthenticated: false });
    expect(run.log).toMatchObject({ signIn: [], signMessage: 1, signTransaction: 0 });
    const claims = decodeJwt(run.token!);
    expect(claims.sub).toBe(publicKeyOf(secret));
    expect(claims).not.toHaveProperty('sgm');
    expect(run.requests.at(-1)!.headers).not.toHaveProperty('x-404-sign-mode');
  });

  it('a hardware wallet ({ wallet, hardware: true }) with only solana:signTransaction → memo-tx', async () => {
    const secret = fundedWallet();
    const run = await authenticateInPage(site, secret, ['solana:signTransaction'], true);
    expect(run, run.message).toMatchObject({ ok: true, signMode: 'memo-tx', alreadyAuthenticated: false });
    expect(run.log).toMatchObject({ signIn: [], signMessage: 0, signTransaction: 1 });
    expect(decodeJwt(run.token!)).toMatchObject({ sub: publicKeyOf(secret), sgm: 'memo-tx' });
    expect(run.requests.at(-1)!.headers['x-404-sign-mode']).toBe('memo-tx');
  });

  it('the gate\'s preflight answer allows X-404-Sign-Mode and X-404-Message from the page\'s origin', async () => {
    const response = await fetch(`${stack.gateUrl}/x404_auth/blacklist`, {
      method: 'OPTIONS',
      headers: {
        Origin: pages.url,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-404-sign-mode,x-404-message,x-404-signature,x-404-addr,x-404-nonce,x-404-feature',
      },
    });
    expect(response.status).toBeLessThan(300);
    expect([pages.url, '*']).toContain(response.headers.get('access-control-allow-origin'));
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['x-404-sign-mode', 'x-404-message', 'x-404-signature', 'x-404-addr', 'x-404-nonce']));
  });
});

describe('a phishing site on another origin (http://127.0.0.1:<port>, not in SIWS_DOMAINS)', () => {
  it('relays the gate\'s nonce with the same SDK and wallet: the wallet signs the phishing host, and the gate refuses it naming the domain', async () => {
    const secret = fundedWallet();
    const run = await authenticateInPage(phishingSite, secret, ALL_FEATURES);
    const phishingHost = new URL(phishingUrl).host;
    // The SDK asks for the page's own host (never the gate's domain, which the wallet would flag),
    // the wallet signs it as its own, and the gate, which knows only SIWS_DOMAINS, refuses the proof.
    expect(run, run.message).toMatchObject({ ok: false, name: 'X404Error', code: 'INVALID_SIGNATURE', status: 401, body: { field: 'domain' } });
    expect(run.message).toContain(phishingHost);
    expect(run.message).toContain(new URL(pages.url).host);
    expect(run.log.signIn).toHaveLength(1);
    expect(siwsFieldsOf(run.log.signIn[0]!.text)).toMatchObject({ domain: phishingHost, uri: phishingUrl });
    expect(run.requests.map((request) => [request.headers['x-404-sign-mode'], request.status])).toEqual([[undefined, 200], ['siws', 401]]);
  });

  it('forges the real site\'s domain around a relayed nonce: the wallet refuses, so no login reaches the gate', async () => {
    const secret = fundedWallet();
    const realDomain = new URL(pages.url).host;
    const gateRequests: Record<string, string>[] = [];
    const onRequest = (request: { url(): string; headers(): Record<string, string> }) => {
      if (request.url().startsWith(stack.gateUrl)) gateRequests.push(request.headers());
    };
    phishingSite.on('request', onRequest);
    try {
      const attempt = await phishingSite.evaluate(
        async ({ gateUrl, secretKey, realDomain, realOrigin }) => {
          const w = window as any;
          const { wallet, log } = w.createTestWallet(Uint8Array.from(secretKey), ['solana:signIn', 'solana:signMessage', 'solana:signTransaction']);
          // The gate's offer and nonce, fetched as the real site would; then a message that claims to be the real site.
          const offer = await (await fetch(`${gateUrl}/x404_auth/blacklist?_t=${Date.now()}`)).json();
          const input = {
            domain: realDomain,
            address: wallet.accounts[0].address,
            uri: realOrigin,
            version: '1',
            chainId: offer.siws.chainId,
            nonce: offer.nonce,
            issuedAt: new Date().toISOString(),
            resources: offer.siws.resources,
          };
          const offeredDomains = offer.siws.domains;
          try {
            await wallet.features['solana:signIn'].signIn(input);
            return { refused: false, error: '', offeredDomains, log: JSON.parse(JSON.stringify(log)) };
          } catch (error: any) {
            return { refused: true, error: String(error?.message ?? error), offeredDomains, log: JSON.parse(JSON.stringify(log)) };
          }
        },
        { gateUrl: stack.gateUrl, secretKey: [...secret], realDomain, realOrigin: pages.url },
      );
      expect(attempt.offeredDomains).toEqual([realDomain]);
      expect(attempt.refused).toBe(true);
      expect(attempt.error).toContain(realDomain);
      expect(attempt.log).toEqual({ signIn: [], refused: [{ domain: realDomain, host: new URL(phishingUrl).host }], signMessage: 0, signTransaction: 0 });
      // Only the nonce request went out: no signature, no login.
      expect(gateRequests).toHaveLength(1);
      expect(gateRequests[0]).not.toHaveProperty('x-404-signature');
    } finally {
      phishingSite.off('request', onRequest);
    }
  });
});
