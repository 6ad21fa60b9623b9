import { expect } from 'vitest';
import { demoWallet, type DemoWalletName } from 'x404-localnet/fixture.js';
import { decodeJwt, login, newWallet as newSecretKey, publicKeyOf, type HttpResult } from '../helpers/client.js';
import type { Stack } from '../helpers/gate.js';

/** Shared steps of the feature e2e files (test/e2e/features-*.test.ts). */

/** A fresh keypair (64-byte secret key) the local chain knows nothing about yet. */
export function newWallet(): { secretKey: Uint8Array; publicKey: string } {
  const secretKey = newSecretKey();
  return { secretKey, publicKey: publicKeyOf(secretKey) };
}

export const fixtureWallet = (name: DemoWalletName): Uint8Array => demoWallet(name).secretKey;

/** Paris (FR) and New York (US): for the geolocation rows. */
export const PARIS = { 'X-Lat': '48.8566', 'X-Long': '2.3522' };
export const NEW_YORK = { 'X-Lat': '40.7128', 'X-Long': '-74.0060' };
export const geoOnlyIn = (locs: string, where: Record<string, string>) => ({ geo_code: 'true', geo_code_locs: locs, ...where });

/**
 * One login and the RPC calls it cost the local chain (per method; batch members counted singly),
 * as a gate already serving this policy pays them: a first login of the same policy by a throwaway
 * wallet has taught the gate which token program owns each mint (src/chain/mint-programs.ts).
 */
export async function loginCounted(
  stack: Stack,
  feature: string,
  secretKey: Uint8Array,
  headers: Record<string, string>,
): Promise<HttpResult & { calls: Record<string, number> }> {
  await login(stack.gateUrl, feature, newSecretKey(), headers);
  stack.localnet.resetStats();
  const result = await login(stack.gateUrl, feature, secretKey, headers);
  return { ...result, calls: stack.localnet.stats().calls };
}

export const totalCalls = (calls: Record<string, number>): number => Object.values(calls).reduce((sum, n) => sum + n, 0);

/** A successful login: 200, a token for this wallet and feature carrying `claims`, which the body repeats. */
export function expectToken(result: HttpResult, feature: string, secretKey: Uint8Array, claims: Record<string, unknown> = {}): Record<string, any> {
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  expect(result.body).toMatchObject({ success: true, feature, publicKey: publicKeyOf(secretKey), ...claims });
  const token = decodeJwt(result.body.token);
  expect(token).toMatchObject({ sub: publicKeyOf(secretKey), feature, ...claims });
  return token;
}

/** A refused login: the status and error code, a message, and never a token. */
export function expectRefusal(result: HttpResult, status: number, error: string): Record<string, any> {
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  expect(result.body.error).toBe(error);
  expect(typeof result.body.message).toBe('string');
  expect(result.body.token).toBeUndefined();
  return result.body;
}

/** The geolocation row every feature shares: a location outside geo_code_locs → 401 locdeny, no token. */
export async function expectLocationDenied(stack: Stack, feature: string, secretKey: Uint8Array, policy: Record<string, string>): Promise<void> {
  const denied = await login(stack.gateUrl, feature, secretKey, { ...policy, ...geoOnlyIn('FR,DE', NEW_YORK) });
  expect(denied.status, JSON.stringify(denied.body)).toBe(401);
  expect(denied.body.status).toBe('locdeny');
  expect(denied.body.token).toBeUndefined();
  const allowed = await login(stack.gateUrl, feature, secretKey, { ...policy, ...geoOnlyIn('fr', PARIS) });
  expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
}

/** The upstream row every feature shares: the RPC node failing → 503 with Retry-After, no token. */
export async function expectUpstreamFailure(stack: Stack, feature: string, secretKey: Uint8Array, policy: Record<string, string>): Promise<void> {
  for (const mode of ['http500', 'rpc-error'] as const) {
    stack.localnet.faults.set({ mode });
    let result: HttpResult;
    try {
      result = await login(stack.gateUrl, feature, secretKey, policy);
    } finally {
      stack.localnet.faults.clear();
    }
    expect(result.status, `${mode}: ${JSON.stringify(result.body)}`).toBe(503);
    expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
    expect(result.body.token).toBeUndefined();
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(result.body.nonceSpent).toBe(false);
  }
}

/** Appends one line per measured login to the RPC cost log (read into the report). */
export function logCalls(feature: string, scenario: string, calls: Record<string, number>): void {
  console.log(`[rpc-cost] ${feature} ${scenario}: ${totalCalls(calls)} calls ${JSON.stringify(calls)}`);
}
