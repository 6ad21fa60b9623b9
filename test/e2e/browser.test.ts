import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { bundleSdkForBrowser, launchBrowser, SDK_PAGE, servePages, type Browser, type PageServer } from './browser-harness.js';

/**
 * A real browser: a page on http://localhost:<port> signs in to the gate on http://127.0.0.1:<port>
 * (another origin) with the bundled SDK and an in-page keypair signer. Proves CORS on every answer,
 * the preflight for the gate's custom headers, and that X-404-Nonce / X-404-Mechanism are readable.
 */
let stack: Stack;
let pages: PageServer;
let browser: Browser;
let page: Page;

const policy = { excluded_mints: [demoMint('banned')], max_holdings: { [demoMint('usdc')]: '1000000000000' } };

beforeAll(async () => {
  const [started, sdk] = await Promise.all([startStack(), bundleSdkForBrowser()]);
  stack = started;
  pages = await servePages({ '/': ['text/html; charset=utf-8', SDK_PAGE], '/sdk.js': ['text/javascript; charset=utf-8', sdk] });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(pages.url);
  await page.waitForFunction(() => (window as any).x404 !== undefined);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await stack?.stop();
});

/** Runs authenticate in the page with a keypair signer; resolves the result or the error's fields. */
function signInFromPage(walletName: string): Promise<any> {
  return page.evaluate(
    async ({ gateUrl, secretKey, policy }) => {
      const { authenticate } = (window as any).x404;
      try {
        const result = await authenticate({ baseUrl: gateUrl, feature: 'blacklist', policy, signer: { secretKey: new Uint8Array(secretKey) } });
        return { ok: true, token: result.token, publicKey: result.publicKey, alreadyAuthenticated: result.alreadyAuthenticated, origin: location.origin };
      } catch (error: any) {
        return { ok: false, name: error.name, code: error.code, status: error.status, body: error.body };
      }
    },
    { gateUrl: stack.gateUrl, secretKey: [...demoWallet(walletName).secretKey], policy },
  );
}

describe('the SDK in chromium, cross-origin', () => {
  it('signs in to the gate from another origin and keeps the token in localStorage', async () => {
    const first = await signInFromPage('clean');
    expect(first).toMatchObject({ ok: true, publicKey: demoWallet('clean').publicKey, alreadyAuthenticated: false });
    expect(first.origin).not.toBe(new URL(stack.gateUrl).origin);

    const stored = await page.evaluate(() => Object.entries(localStorage).filter(([key]) => key.startsWith('x404:')));
    expect(stored).toEqual([[`x404:${stack.gateUrl}:blacklist:${demoWallet('clean').publicKey}`, first.token]]);

    // Re-authentication sends x-jwt: a preflighted request the gate must allow.
    const second = await signInFromPage('clean');
    expect(second).toMatchObject({ ok: true, alreadyAuthenticated: true, token: first.token });
  });

  it('can read the exposed X-404-Nonce and X-404-Mechanism headers', async () => {
    const headers = await page.evaluate(async (gateUrl) => {
      const response = await fetch(`${gateUrl}/x404_auth/blacklist?_t=${Date.now()}`);
      const body = await response.json();
      return { nonce: response.headers.get('X-404-Nonce'), mechanism: response.headers.get('X-404-Mechanism'), bodyNonce: body.nonce };
    }, stack.gateUrl);
    expect(headers.nonce).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(headers.nonce).toBe(headers.bodyNonce);
    expect(headers.mechanism).toBe('SERVICE404');
  });

  it('reads the gate\'s error body cross-origin and throws its code', async () => {
    const refused = await signInFromPage('banned-holder');
    expect(refused).toMatchObject({ ok: false, name: 'X404Error', code: 'HOLDS_BANNED_TOKEN', status: 500, body: { mint: demoMint('banned') } });
  });
});
