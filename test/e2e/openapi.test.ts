import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_NAMES } from '../../src/contract/features.js';
import { buildOpenApiDocument, openApiDocument } from '../../src/openapi/document.js';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { blacklistPolicy, decodeJwt, get, getNonce, login, newWallet, publicKeyOf, signedHeaders, type HttpResult } from '../helpers/client.js';
import { generateKeyFile, launchPolicies } from '../helpers/launch.js';
import { memoTransaction, memoTxHeaders, siwsFields, siwsHeaders } from '../helpers/sign-modes.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';
import { documentCheck, pointer } from '../helpers/openapi-conformance.js';

/**
 * Real answers of every route, and of every error the contract names, validated against the
 * OpenAPI document the gate serves. Finally, every code the document lists for blacklist must have
 * been seen here, so the document cannot drift from the gate in either direction.
 */
const doc = openApiDocument as any;
const FEATURES = FEATURE_NAMES;
const check = documentCheck(doc);
const resolve = check.resolve;

const seen = new Set<string>();

/** Asserts `result` is a documented answer of `method path`, and records which errors were seen. */
function conforms(path: string, method: string, result: HttpResult, responseRef?: string): void {
  check.conforms(path, method, result, responseRef);
  if (path.startsWith('/x404_auth/blacklist') && result.status >= 400) seen.add(`${result.status} ${result.body.error}`);
  if (path === '/x404_verify' && result.status >= 400) seenForwardAuth.add(`${result.status} ${result.body.error}`);
}
const seenForwardAuth = new Set<string>();

let stack: Stack;
let limited: GateProcess;
/** TOKEN_ACCOUNTS_MAX=2: a wallet owning three accounts of a mint is over the bound. */
let bounded: GateProcess;
/** EdDSA tokens, pinned operator policies, the session cookie: the other shape of the document. */
let launch: GateProcess;
let launchDir: string;
let launchKeys: string;
const policy = blacklistPolicy({ excluded: [demoMint('banned')], max: { [demoMint('usdc')]: '1000000000' } });
const clean = demoWallet('clean');
const blacklistUrl = (): string => `${stack.gateUrl}/x404_auth/blacklist`;

beforeAll(async () => {
  stack = await startStack();
  limited = await startGate({ rpcUrl: stack.localnet.url, env: { RATE_LIMIT_PER_MINUTE: '3', NONCE_TTL_SECONDS: '1' } });
  bounded = await startGate({ rpcUrl: stack.localnet.url, env: { TOKEN_ACCOUNTS_MAX: '2' } });
  launchDir = mkdtempSync(join(tmpdir(), 'x404-openapi-'));
  launchKeys = join(launchDir, 'keys.pem');
  await generateKeyFile(launchKeys);
  writeFileSync(join(launchDir, 'policies.json'), JSON.stringify(launchPolicies()));
  launch = await startGate({
    rpcUrl: stack.localnet.url,
    env: {
      JWT_ALG: 'EdDSA',
      JWT_PRIVATE_KEYS_FILE: launchKeys,
      JWT_ISSUER: 'https://gate.example',
      POLICIES_FILE: join(launchDir, 'policies.json'),
      POLICY_MODE: 'pinned',
      X404_SET_COOKIE: 'true',
      X404_COOKIE: 'session',
      SIWS_DOMAINS: 'app.example.com',
    },
  });
});
afterAll(async () => {
  await launch?.stop('SIGKILL');
  await limited?.stop('SIGKILL');
  await bounded?.stop('SIGKILL');
  await stack?.stop();
  if (launchDir) rmSync(launchDir, { recursive: true, force: true });
});

describe('the OpenAPI document', () => {
  it('is served at /openapi.json exactly as exported', async () => {
    const result = await get(`${stack.gateUrl}/openapi.json`);
    conforms('/openapi.json', 'get', result);
    expect(result.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('names the operator policies, mode, algorithm and cookie of the gate serving it', async () => {
    const served = (await get(`${launch.url}/openapi.json`)).body;
    const expected = buildOpenApiDocument({
      policyNames: { blacklist: ['free', 'launch'], tier: ['vip'], timelock: [], multitoken: [], activity: [], nodebt: [], age: [] },
      policyMode: 'pinned',
      jwtAlg: 'EdDSA',
      cookieName: 'session',
    });
    expect(served).toEqual(JSON.parse(JSON.stringify(expected)));
    const selector = served.paths['/x404_auth/blacklist'].get.parameters.find((parameter: any) => parameter.name === 'X-404-Policy');
    expect(selector.schema.enum).toEqual(['free', 'launch']);
    expect(selector.description).toContain('pinned');
    expect(served.paths['/x404_verify'].get.parameters.some((parameter: any) => parameter.in === 'cookie' && parameter.name === 'session')).toBe(true);
  });

  it('has only $refs that resolve, and describes every feature with GET and OPTIONS', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(resolve({ $ref: ref.slice(8, -1) }), ref).toBeDefined();
    for (const feature of FEATURES) expect(Object.keys(doc.paths[`/x404_auth/${feature}`]).sort()).toEqual(['get', 'options']);
  });

  it('names every header the gate allows in a preflight', async () => {
    const preflight = await fetch(blacklistUrl(), { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
    expect(preflight.status).toBe(204);
    conforms('/x404_auth/blacklist', 'options', { status: 204, body: undefined, headers: preflight.headers });
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    const documented = new Set<string>();
    for (const feature of FEATURES) {
      for (const parameter of doc.paths[`/x404_auth/${feature}`].get.parameters) {
        const resolved = resolve(parameter);
        if (resolved.in === 'header') documented.add(resolved.name.toLowerCase());
      }
    }
    const undocumented = allowed.filter((name) => !documented.has(name) && name !== 'content-type' && name !== 'authorization');
    expect(undocumented).toEqual([]);
  });
});

describe('operations routes', () => {
  it('/health, /metrics', async () => {
    conforms('/health', 'get', await get(`${stack.gateUrl}/health`));
    const metrics = await get(`${stack.gateUrl}/metrics`);
    expect(metrics.status).toBe(200);
    conforms('/metrics', 'get', metrics);
    expect(metrics.body).toMatch(/^x404_http_requests_total\{/m);
    const post = await fetch(`${stack.gateUrl}/health`, { method: 'POST' });
    conforms('/health', 'post', { status: post.status, headers: post.headers, body: await post.json() }, pointer('paths', '/health', 'get', 'responses', '405'));
  });

  it('unknown paths answer the documented 404', async () => {
    conforms('/nope', 'get', await get(`${stack.gateUrl}/nope`), pointer('components', 'responses', 'NotFound'));
  });

  it('/x404_policies and /.well-known/jwks.json, on an HS256 gate without policies and on a launch gate', async () => {
    for (const url of [stack.gateUrl, launch.url]) conforms('/x404_policies', 'get', await get(`${url}/x404_policies`));
    const listing = await get(`${launch.url}/x404_policies`);
    expect(Object.keys(listing.body.policies.blacklist)).toEqual(['free', 'launch']);
    const none = await get(`${stack.gateUrl}/.well-known/jwks.json`);
    expect(none.status).toBe(404);
    conforms('/.well-known/jwks.json', 'get', none);
    const jwks = await get(`${launch.url}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    conforms('/.well-known/jwks.json', 'get', jwks);
    const post = await fetch(`${launch.url}/x404_policies`, { method: 'POST' });
    conforms('/x404_policies', 'post', { status: post.status, headers: post.headers, body: await post.json() }, pointer('paths', '/x404_policies', 'get', 'responses', '405'));
  });
});

describe('sign modes', () => {
  it('a Sign In With Solana login, its forward-auth answer and a refused memo transaction answer as documented', async () => {
    const { nonce, result } = await getNonce(launch.url, 'blacklist');
    conforms('/x404_auth/blacklist', 'get', result);
    expect(result.body.siws).toMatchObject({ domain: 'app.example.com', resources: ['x404:blacklist'] });
    const siws = await get(`${launch.url}/x404_auth/blacklist?policy=launch`, siwsHeaders(clean.secretKey, nonce, 'blacklist', siwsFields(clean.secretKey, nonce, 'blacklist')));
    expect([siws.status, decodeJwt(siws.body.token).sgm]).toEqual([200, 'siws']);
    conforms('/x404_auth/blacklist', 'get', siws);
    const verified = await get(`${launch.url}/x404_verify?feature=blacklist`, { Authorization: `Bearer ${siws.body.token}` });
    expect(verified.headers.get('x-404-sign-mode')).toBe('siws');
    conforms('/x404_verify', 'get', verified);

    const next = await getNonce(launch.url, 'blacklist');
    const { wire, signature } = memoTransaction(clean.secretKey, next.nonce, 'blacklist', { blockhash: demoWallet('other').publicKey });
    const refused = await get(`${launch.url}/x404_auth/blacklist?policy=launch`, memoTxHeaders(wire, signature, clean.secretKey, next.nonce, 'blacklist'));
    expect([refused.status, refused.body.error, refused.body.field]).toEqual([401, 'INVALID_SIGNATURE', 'recentBlockhash']);
    conforms('/x404_auth/blacklist', 'get', refused);
  });
});

describe('forward auth (/x404_verify)', () => {
  it('answers 200 with the documented headers and claims, and every documented refusal', async () => {
    const clean = demoWallet('clean');
    const { nonce } = await getNonce(launch.url, 'blacklist');
    const signedIn = await get(`${launch.url}/x404_auth/blacklist?policy=launch`, signedHeaders(clean.secretKey, nonce, 'blacklist'));
    expect(signedIn.headers.get('set-cookie')).toMatch(/^session=/);
    conforms('/x404_auth/blacklist', 'get', signedIn);
    const nonceWithPolicies = await getNonce(launch.url, 'blacklist');
    expect(nonceWithPolicies.result.body.policies).toEqual(['free', 'launch']);
    conforms('/x404_auth/blacklist', 'get', nonceWithPolicies.result);
    const token = signedIn.body.token as string;
    const bearer = { Authorization: `Bearer ${token}` };

    const passed = await get(`${launch.url}/x404_verify?feature=blacklist&policy=launch`, bearer);
    expect([passed.status, passed.headers.get('x-404-policy')]).toEqual([200, 'launch']);
    conforms('/x404_verify', 'get', passed);
    const hs256Token = (await login(stack.gateUrl, 'blacklist', clean.secretKey, policy)).body.token as string;
    conforms('/x404_verify', 'get', await get(`${stack.gateUrl}/x404_verify?feature=blacklist`, { Authorization: `Bearer ${hs256Token}` }));

    const [header] = token.split('.');
    const now = Math.floor(Date.now() / 1000);
    const expiredInput = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(token), iat: now - 100, exp: now - 10 })).toString('base64url')}`;
    const expired = `${expiredInput}.${sign(null, Buffer.from(expiredInput), createPrivateKey(readFileSync(launchKeys))).toString('base64url')}`;
    const refusals: [string, Record<string, string>, number, string][] = [
      ['', {}, 401, 'MISSING_TOKEN'],
      ['', { Authorization: `Bearer ${hs256Token}` }, 401, 'INVALID_TOKEN'],
      ['', { Authorization: `Bearer ${expired}` }, 401, 'TOKEN_EXPIRED'],
      ['?feature=tier', bearer, 401, 'FEATURE_MISMATCH'],
      ['?feature=blacklist&policy=free', bearer, 401, 'POLICY_MISMATCH'],
      ['?feature=blacklist&policy=nope', bearer, 401, 'POLICY_MISMATCH'],
      ['?feature=blacklist&polcy=launch', bearer, 401, 'INVALID_REQUIREMENT'],
      ['', { ...bearer, 'x-padding': 'p'.repeat(40_000) }, 431, 'HEADERS_TOO_LARGE'],
    ];
    for (const [query, headers, status, code] of refusals) {
      const result = await get(`${launch.url}/x404_verify${query}`, headers);
      expect([result.status, result.body.error], `${query} ${code}`).toEqual([status, code]);
      conforms('/x404_verify', 'get', result);
    }
  });

  it('every error the document lists for /x404_verify was answered by the gate', () => {
    const documented = new Set<string>();
    for (const [status, response] of Object.entries<any>(doc.paths['/x404_verify'].get.responses)) {
      if (Number(status) < 400) continue;
      for (const code of response.content['application/json'].schema.allOf[1].properties.error.enum) documented.add(`${status} ${code}`);
    }
    expect([...seenForwardAuth].sort()).toEqual([...documented].sort());
  });
});

describe('feature endpoints', () => {
  it('issue nonces and answer preflights for every feature', async () => {
    for (const feature of FEATURES) {
      const { result } = await getNonce(stack.gateUrl, feature);
      conforms(`/x404_auth/${feature}`, 'get', result);
      expect(result.body.status).toBe('nonce_ready');
      const preflight = await fetch(`${stack.gateUrl}/x404_auth/${feature}`, { method: 'OPTIONS' });
      conforms(`/x404_auth/${feature}`, 'options', { status: preflight.status, body: undefined, headers: preflight.headers });
    }
  });

  it('sign-in, re-authentication and their refusals (blacklist)', async () => {
    const path = '/x404_auth/blacklist';
    const signedIn = await login(stack.gateUrl, 'blacklist', clean.secretKey, policy);
    expect(signedIn.status).toBe(200);
    conforms(path, 'get', signedIn);
    const token = signedIn.body.token as string;

    const reauth = await get(blacklistUrl(), { 'x-jwt': token, 'X-404-Feature': 'blacklist', ...policy });
    expect(reauth.body.alreadyAuthenticated).toBe(true);
    conforms(path, 'get', reauth);

    const expectCode = async (result: HttpResult, status: number, code: string): Promise<void> => {
      expect([result.status, result.body.error]).toEqual([status, code]);
      conforms(path, 'get', result);
    };
    await expectCode(await get(blacklistUrl(), { 'x-jwt': 'not.a.token' }), 401, 'INVALID_TOKEN');
    await expectCode(await get(blacklistUrl(), { 'x-jwt': token, ...policy, max_holdings: '{}' }), 401, 'POLICY_MISMATCH');

    let { nonce } = await getNonce(stack.gateUrl, 'blacklist');
    await expectCode(await get(blacklistUrl(), { 'X-404-Nonce': nonce }), 400, 'MISSING_HEADER');
    await expectCode(await get(blacklistUrl(), { ...signedHeaders(clean.secretKey, nonce, 'blacklist'), ...policy, excluded_mints: '[oops' }), 400, 'INVALID_HEADER');
    await expectCode(await get(blacklistUrl(), { ...signedHeaders(clean.secretKey, nonce, 'blacklist'), ...policy, 'X-404-Feature': 'tier' }), 400, 'FEATURE_MISMATCH');
    await expectCode(await get(blacklistUrl(), { ...signedHeaders(clean.secretKey, 'forged-nonce', 'blacklist'), ...policy }), 401, 'INVALID_NONCE');
    await expectCode(
      await get(blacklistUrl(), { ...signedHeaders(demoWallet('other').secretKey, nonce, 'blacklist'), 'X-404-Addr': clean.publicKey, ...policy }),
      401,
      'INVALID_SIGNATURE',
    );
    const once = { ...signedHeaders(clean.secretKey, nonce, 'blacklist'), ...policy };
    expect((await get(blacklistUrl(), once)).status).toBe(200);
    await expectCode(await get(blacklistUrl(), once), 401, 'NONCE_REUSED');

    await expectCode(await login(stack.gateUrl, 'blacklist', demoWallet('banned-holder').secretKey, policy), 500, 'HOLDS_BANNED_TOKEN');
    await expectCode(await login(stack.gateUrl, 'blacklist', demoWallet('whale').secretKey, policy), 403, 'EXCEEDS_MAX_HOLDING');

    const geo = blacklistPolicy({ geo: true, locs: 'DE' });
    const denied = await login(stack.gateUrl, 'blacklist', clean.secretKey, { ...geo, 'X-Lat': '48.8566', 'X-Long': '2.3522' });
    await expectCode(denied, 401, 'LOCATION_DENIED');
    expect(denied.body.status).toBe('locdeny');
    const unlocatable = await login(stack.gateUrl, 'blacklist', clean.secretKey, { ...geo, 'X-Lat': 'north' });
    await expectCode(unlocatable, 500, 'LOCATION_ERROR');
    expect(unlocatable.body.status).toBe('locerror');

    ({ nonce } = await getNonce(stack.gateUrl, 'blacklist'));
    await expectCode(await get(blacklistUrl(), { ...signedHeaders(clean.secretKey, nonce, 'blacklist'), ...policy, 'x-padding': 'p'.repeat(40_000) }), 431, 'HEADERS_TOO_LARGE');
  });

  it('collection: a sign-in with its results and a MISSING_COLLECTION_NFT refusal answer as documented', async () => {
    const path = '/x404_auth/collection';
    const collectionPolicy = { collections: JSON.stringify([DEMO_COLLECTIONS.a]) };
    const signedIn = await login(stack.gateUrl, 'collection', demoWallet('nft-holder').secretKey, collectionPolicy);
    expect([signedIn.status, signedIn.body.collectionNfts, signedIn.body.standardsChecked]).toEqual([200, 1, ['token-metadata', 'token-2022']]);
    conforms(path, 'get', signedIn);
    const refused = await login(stack.gateUrl, 'collection', demoWallet('nft-unverified').secretKey, collectionPolicy);
    expect([refused.status, refused.body.error, refused.body.required, refused.body.found]).toEqual([500, 'MISSING_COLLECTION_NFT', 1, 0]);
    conforms(path, 'get', refused);
  });

  it('503 when the chain cannot be read, with Retry-After', async () => {
    stack.localnet.faults.set({ mode: 'http500' });
    try {
      // A wallet no earlier test read, so no cached balance can answer.
      const result = await login(stack.gateUrl, 'blacklist', demoWallet('portfolio').secretKey, policy);
      expect([result.status, result.body.error]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      conforms('/x404_auth/blacklist', 'get', result);
    } finally {
      stack.localnet.faults.clear();
    }
  });

  it('401 NONCE_EXPIRED and 429 RATE_LIMITED', async () => {
    const { nonce } = await getNonce(limited.url, 'blacklist');
    await sleep(2_100); // NONCE_TTL_SECONDS=1 on this gate
    const expired = await get(`${limited.url}/x404_auth/blacklist`, { ...signedHeaders(clean.secretKey, nonce, 'blacklist'), ...policy });
    expect([expired.status, expired.body.error]).toEqual([401, 'NONCE_EXPIRED']);
    conforms('/x404_auth/blacklist', 'get', expired);

    let limitedResult: HttpResult | undefined;
    for (let attempt = 0; attempt < 5 && !limitedResult; attempt++) {
      const result = await get(`${limited.url}/x404_auth/blacklist`);
      if (result.status === 429) limitedResult = result;
    }
    expect(limitedResult?.body.error).toBe('RATE_LIMITED');
    conforms('/x404_auth/blacklist', 'get', limitedResult as HttpResult);
  });

  it('500 HOLDINGS_LIMIT for a wallet owning more token accounts than TOKEN_ACCOUNTS_MAX', async () => {
    const wallet = newWallet();
    for (let i = 0; i < 3; i++) stack.localnet.state.addTokenAccount({ owner: publicKeyOf(wallet), mint: demoMint('bonk'), amount: 1n, program: 'token', address: stack.localnet.state.nextAddress('bonk-account') });
    const result = await login(bounded.url, 'blacklist', wallet, blacklistPolicy({ excluded: [demoMint('bonk')] }));
    expect([result.status, result.body.error, result.body.setting, result.body.bound, result.body.found]).toEqual([500, 'HOLDINGS_LIMIT', 'TOKEN_ACCOUNTS_MAX', 2, 3]);
    conforms('/x404_auth/blacklist', 'get', result);
  });

  it('every error the document lists for blacklist was answered by the gate', () => {
    const documented = new Set<string>();
    for (const [status, response] of Object.entries<any>(doc.paths['/x404_auth/blacklist'].get.responses)) {
      if (Number(status) < 400) continue;
      const schema = response.content['application/json'].schema;
      for (const code of schema.allOf[1].properties.error.enum) documented.add(`${status} ${code}`);
    }
    documented.delete('500 INTERNAL_ERROR'); // documented, but no request can cause it on purpose
    expect([...seen].sort()).toEqual([...documented].sort());
  });
});
