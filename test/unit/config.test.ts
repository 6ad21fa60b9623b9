import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const BASE = { JWT_SECRET: 'x'.repeat(32), SOLANA_RPC_URL: 'http://127.0.0.1:8899' };

function variableOf(env: Record<string, string>): string | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    return error instanceof ConfigError ? error.variable : 'not a ConfigError';
  }
}

describe('configuration', () => {
  it('applies the contract defaults', () => {
    const config = loadConfig(BASE);
    expect(config).toMatchObject({
      port: 3000,
      jwtExpirySeconds: 30 * 86_400,
      mechanism: 'SERVICE404',
      nonceTtlSeconds: 300,
      holdingsScope: 'all',
      redisUrl: undefined,
      trustProxy: 0,
      rateLimitPerMinute: 600,
      corsOrigins: ['*'],
    });
  });

  it('bounds a login by LOGIN_TIMEOUT_MS (default 8 s) and hedges reads after RPC_HEDGE_MS (default 300 ms; 0 = off)', () => {
    expect(loadConfig(BASE)).toMatchObject({ loginTimeoutMs: 8000, rpcHedgeMs: 300 });
    expect(loadConfig({ ...BASE, LOGIN_TIMEOUT_MS: '1500', RPC_HEDGE_MS: '0' })).toMatchObject({ loginTimeoutMs: 1500, rpcHedgeMs: 0 });
  });

  it("providers' limits: arrays on, no caps or budgets, refusals remembered 5 min, 64 MiB answers, 1 s rest after a bare 429", () => {
    expect(loadConfig(BASE)).toMatchObject({
      rpcBatch: true,
      rpcBatchCaps: {},
      rpcCallsPerSecond: 0,
      rpcScansPerSecond: 0,
      rpcReprobeMs: 300_000,
      rpcMaxResponseBytes: 64 * 1024 * 1024,
      rpcMinRetryAfterMs: 1000,
    });
    expect(
      loadConfig({ ...BASE, RPC_BATCH: 'off', RPC_BATCH_CAPS: 'history:10, getTransaction:5', RPC_CALLS_PER_SECOND: '150', RPC_SCANS_PER_SECOND: '5', RPC_MIN_RETRY_AFTER_MS: '10000' }),
    ).toMatchObject({ rpcBatch: false, rpcBatchCaps: { history: 10, getTransaction: 5 }, rpcCallsPerSecond: 150, rpcScansPerSecond: 5, rpcMinRetryAfterMs: 10_000 });
  });

  it('collection bounds: COLLECTION_MAX_NFTS 500 and DAS_MAX_PAGES 5 by default, no DAS_URL; a bad DAS_URL is refused without echoing it', () => {
    expect(loadConfig(BASE)).toMatchObject({ collectionMaxNfts: 500, dasMaxPages: 5, dasUrl: undefined });
    expect(loadConfig({ ...BASE, COLLECTION_MAX_NFTS: '20', DAS_MAX_PAGES: '2', DAS_URL: 'https://das.example/?api-key=k' })).toMatchObject({ collectionMaxNfts: 20, dasMaxPages: 2, dasUrl: 'https://das.example/?api-key=k' });
    expect(variableOf({ ...BASE, COLLECTION_MAX_NFTS: '0' })).toBe('COLLECTION_MAX_NFTS');
    expect(variableOf({ ...BASE, DAS_MAX_PAGES: '101' })).toBe('DAS_MAX_PAGES');
    expect(variableOf({ ...BASE, DAS_URL: 'ftp://secret-key@das' })).toBe('DAS_URL');
    expect(() => loadConfig({ ...BASE, DAS_URL: 'not a url secret-key' })).toThrow(/^(?!.*secret-key)/);
  });

  it('bounds the adaptive RPC concurrency (8 to start, 2..64) and the batch window (2..20 ms)', () => {
    expect(loadConfig(BASE)).toMatchObject({ rpcConcurrency: 8, rpcConcurrencyMin: 2, rpcConcurrencyMax: 64, rpcBatchWindowMs: 2, rpcBatchWindowMaxMs: 20 });
    // A start outside the default bounds widens them; bounds that exclude an explicit start are refused.
    expect(loadConfig({ ...BASE, RPC_CONCURRENCY: '100' })).toMatchObject({ rpcConcurrencyMin: 2, rpcConcurrencyMax: 100 });
    expect(loadConfig({ ...BASE, RPC_CONCURRENCY: '1' })).toMatchObject({ rpcConcurrencyMin: 1, rpcConcurrencyMax: 64 });
    expect(variableOf({ ...BASE, RPC_CONCURRENCY: '16', RPC_CONCURRENCY_MAX: '8' })).toBe('RPC_CONCURRENCY_MAX');
    expect(variableOf({ ...BASE, RPC_CONCURRENCY: '4', RPC_CONCURRENCY_MIN: '8' })).toBe('RPC_CONCURRENCY_MIN');
    expect(variableOf({ ...BASE, RPC_BATCH_WINDOW_MS: '30', RPC_BATCH_WINDOW_MAX_MS: '10' })).toBe('RPC_BATCH_WINDOW_MAX_MS');
    expect(loadConfig({ ...BASE, RPC_BATCH_WINDOW_MS: '30' }).rpcBatchWindowMaxMs).toBe(30);
  });

  it('reads a comma-separated RPC list as failover order', () => {
    expect(loadConfig({ ...BASE, SOLANA_RPC_URL: 'http://a:1, https://b/rpc' }).rpcUrls).toEqual(['http://a:1', 'https://b/rpc']);
  });

  it('parses ms-style expiries', () => {
    expect(loadConfig({ ...BASE, JWT_EXPIRY: '12h' }).jwtExpirySeconds).toBe(43_200);
    expect(loadConfig({ ...BASE, JWT_EXPIRY: '900s' }).jwtExpirySeconds).toBe(900);
  });

  it.each([
    [{ JWT_SECRET: '' }, 'JWT_SECRET'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ SOLANA_RPC_URL: '' }, 'SOLANA_RPC_URL'],
    [{ SOLANA_RPC_URL: 'ftp://x' }, 'SOLANA_RPC_URL'],
    [{ SOLANA_RPC_URL: 'not a url' }, 'SOLANA_RPC_URL'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: 'abc' }, 'PORT'],
    [{ JWT_EXPIRY: 'forever' }, 'JWT_EXPIRY'],
    [{ HOLDINGS_SCOPE: 'some' }, 'HOLDINGS_SCOPE'],
    [{ NONCE_TTL_SECONDS: '0' }, 'NONCE_TTL_SECONDS'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ TRUST_PROXY: '-1' }, 'TRUST_PROXY'],
    [{ RATE_LIMIT_PER_MINUTE: '1.5' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ X404_MECHANISM: 'has space' }, 'X404_MECHANISM'],
    [{ POLICY_MODE: 'strict' }, 'POLICY_MODE'],
    [{ POLICY_MODE: 'pinned' }, 'POLICY_MODE'],
    [{ JWT_ALG: 'RS256' }, 'JWT_ALG'],
    [{ JWT_ALG: 'none' }, 'JWT_ALG'],
    [{ JWT_ALG: 'EdDSA', JWT_ISSUER: 'https://gate.example' }, 'JWT_PRIVATE_KEYS_FILE'],
    [{ JWT_ALG: 'ES256', JWT_PRIVATE_KEYS_FILE: './keys.pem' }, 'JWT_ISSUER'],
    [{ JWT_PRIVATE_KEYS_FILE: './keys.pem' }, 'JWT_PRIVATE_KEYS_FILE'],
    [{ JWT_ISSUER: 'has space' }, 'JWT_ISSUER'],
    [{ JWT_AUDIENCE: 'say "hi"' }, 'JWT_AUDIENCE'],
    [{ X404_COOKIE: 'no;semicolons' }, 'X404_COOKIE'],
    [{ X404_SET_COOKIE: 'yes' }, 'X404_SET_COOKIE'],
    [{ LOGIN_TIMEOUT_MS: '499' }, 'LOGIN_TIMEOUT_MS'],
    [{ LOGIN_TIMEOUT_MS: '60001' }, 'LOGIN_TIMEOUT_MS'],
    [{ LOGIN_TIMEOUT_MS: '8s' }, 'LOGIN_TIMEOUT_MS'],
    [{ RPC_HEDGE_MS: '-1' }, 'RPC_HEDGE_MS'],
    [{ RPC_HEDGE_MS: '0.5' }, 'RPC_HEDGE_MS'],
    [{ RPC_BATCH: 'no' }, 'RPC_BATCH'],
    [{ RPC_BATCH_CAPS: 'history=10' }, 'RPC_BATCH_CAPS'],
    [{ RPC_BATCH_CAPS: 'history:0' }, 'RPC_BATCH_CAPS'],
    [{ RPC_BATCH_CAPS: 'history:101' }, 'RPC_BATCH_CAPS'],
    [{ RPC_CALLS_PER_SECOND: '-5' }, 'RPC_CALLS_PER_SECOND'],
    [{ RPC_REPROBE_MS: '999' }, 'RPC_REPROBE_MS'],
    [{ RPC_MAX_RESPONSE_BYTES: '1000' }, 'RPC_MAX_RESPONSE_BYTES'],
    [{ RPC_MIN_RETRY_AFTER_MS: '60001' }, 'RPC_MIN_RETRY_AFTER_MS'],
  ])('names the variable when %o is invalid', (override, variable) => {
    expect(variableOf({ ...BASE, ...override })).toBe(variable);
  });

  it('defaults to HS256 tokens, open policies and the x404_token cookie, set by nobody', () => {
    expect(loadConfig(BASE)).toMatchObject({
      jwtAlg: 'HS256',
      jwtPrivateKeysFile: undefined,
      jwtIssuer: undefined,
      jwtAudience: undefined,
      policiesFile: undefined,
      policyMode: 'open',
      cookieName: 'x404_token',
      setCookie: false,
    });
  });

  it('reads asymmetric tokens, operator policies and the cookie settings', () => {
    const config = loadConfig({
      ...BASE,
      JWT_ALG: 'eddsa',
      JWT_PRIVATE_KEYS_FILE: './keys.pem',
      JWT_ISSUER: 'https://gate.example.com',
      JWT_AUDIENCE: 'mint-api',
      POLICIES_FILE: './policies.json',
      POLICY_MODE: 'pinned',
      X404_COOKIE: '__Host-x404',
      X404_SET_COOKIE: 'true',
    });
    expect(config).toMatchObject({
      jwtAlg: 'EdDSA',
      jwtPrivateKeysFile: './keys.pem',
      jwtIssuer: 'https://gate.example.com',
      jwtAudience: 'mint-api',
      policiesFile: './policies.json',
      policyMode: 'pinned',
      cookieName: '__Host-x404',
      setCookie: true,
    });
    // HS256 may carry an issuer too; it then goes in every token.
    expect(loadConfig({ ...BASE, JWT_ISSUER: 'https://gate.example.com' }).jwtIssuer).toBe('https://gate.example.com');
  });
});
