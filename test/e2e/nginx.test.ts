import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from 'x404-localnet/fixture.js';
import { authenticate } from '../../src/sdk/index.js';
import { verifyGateToken } from '../../src/verifier/index.js';
import { decodeJwt, get, getNonce, signedHeaders } from '../helpers/client.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';
import { eventually, generateKeyFile, launchPolicies } from '../helpers/launch.js';
import { startNginx, type NginxProcess } from '../helpers/nginx.js';

/**
 * A real proxy in front of a real mint API: Debian's nginx with auth_request calling the gate's
 * /x404_verify (pinned `launch` policy, EdDSA tokens). Only a wallet signed in under `launch`
 * reaches the upstream; every refusal is a 401 from nginx and the upstream never sees the request
 * (it counts what it is sent). Then the signing key rotates under load of old tokens.
 */
let dir: string;
let stack: Stack;
let gate: GateProcess;
let nginx: NginxProcess;
let upstream: Server;
const upstreamSeen: { method: string; url: string; wallet: string | undefined; policy: string | undefined }[] = [];
let keysFile: string;
let oldKeyFile: string;
let newKeyFile: string;
const ISSUER = 'https://launch.example';
const clean = demoWallet('clean');

/**
 * Auth routes with the mistakes a hand-typed nginx configuration makes, each guarding /typo/<name>/
 * of the same mint API: the gate must refuse them all (401, which nginx passes on), never let a
 * token through on a requirement it dropped, never answer a status nginx turns into a 500.
 */
const TYPOED_ROUTES: Record<string, string> = {
  'trailing-slash': '/x404_verify/?feature=blacklist&policy=launch',
  misspelt: '/x404_verify?feature=blacklist&polcy=launch',
  'upper-case': '/x404_verify?FEATURE=blacklist&POLICY=launch',
  'no-feature': '/x404_verify?policy=launch',
  repeated: '/x404_verify?feature=blacklist&policy=launch&policy=launch',
  'path-case': '/X404_Verify?feature=blacklist&policy=launch',
};

function serverBlock(gatePort: number, upstreamPort: number) {
  const typoed = Object.entries(TYPOED_ROUTES)
    .map(
      ([name, route]) => `
    location = /_x404_verify_${name} {
      internal;
      proxy_pass http://127.0.0.1:${gatePort}${route};
      proxy_http_version 1.1;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
    }
    location /typo/${name}/ {
      auth_request /_x404_verify_${name};
      proxy_pass http://127.0.0.1:${upstreamPort};
    }`,
    )
    .join('');
  return (port: number): string => `
  server {
    listen 127.0.0.1:${port};
    underscores_in_headers on;

    location /x404_auth/ {
      proxy_pass http://127.0.0.1:${gatePort};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
    location = /.well-known/jwks.json {
      proxy_pass http://127.0.0.1:${gatePort};
      proxy_http_version 1.1;
    }
    location = /_x404_verify {
      internal;
      proxy_pass http://127.0.0.1:${gatePort}/x404_verify?feature=blacklist&policy=launch;
      proxy_http_version 1.1;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
    }
    location /api/ {
      auth_request /_x404_verify;
      auth_request_set $x404_wallet $upstream_http_x_404_wallet;
      auth_request_set $x404_policy $upstream_http_x_404_policy;
      proxy_set_header X-Wallet $x404_wallet;
      proxy_set_header X-Policy $x404_policy;
      proxy_pass http://127.0.0.1:${upstreamPort};
    }${typoed}
  }`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-nginx-'));
  keysFile = join(dir, 'jwt-keys.pem');
  oldKeyFile = join(dir, 'old.pem');
  newKeyFile = join(dir, 'new.pem');
  await generateKeyFile(oldKeyFile);
  writeFileSync(keysFile, readFileSync(oldKeyFile));
  writeFileSync(join(dir, 'policies.json'), JSON.stringify(launchPolicies()));

  upstream = createServer((request, response) => {
    upstreamSeen.push({ method: request.method ?? '', url: request.url ?? '', wallet: request.headers['x-wallet'] as string | undefined, policy: request.headers['x-policy'] as string | undefined });
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ minted: true, wallet: request.headers['x-wallet'] ?? null }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));

  stack = await startStack({
    env: {
      JWT_ALG: 'EdDSA',
      JWT_PRIVATE_KEYS_FILE: keysFile,
      JWT_ISSUER: ISSUER,
      POLICIES_FILE: join(dir, 'policies.json'),
      POLICY_MODE: 'pinned',
      X404_SET_COOKIE: 'true',
      TRUST_PROXY: '1',
    },
  });
  gate = stack.gate;
  nginx = await startNginx(dir, serverBlock(gate.port, (upstream.address() as { port: number }).port));
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await stack?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Signs in through nginx. */
async function signIn(secretKey: Uint8Array, policyName: string, baseUrl = nginx.url): Promise<string> {
  const result = await authenticate({ baseUrl, feature: 'blacklist', policyName, signer: { secretKey }, storage: false });
  return result.token;
}

/** A request to the mint API through nginx, and whether the upstream saw it. */
async function mint(headers: Record<string, string> = {}, options: { method?: string; path?: string } = {}): Promise<{ status: number; reachedUpstream: boolean; body: string }> {
  const before = upstreamSeen.length;
  const response = await fetch(`${nginx.url}${options.path ?? '/api/mint'}`, { method: options.method ?? 'GET', headers, ...(options.method === 'POST' ? { body: '{"amount":1}' } : {}) });
  const body = await response.text();
  return { status: response.status, reachedUpstream: upstreamSeen.length > before, body };
}
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

describe('nginx auth_request in front of a mint API', () => {
  it('lets a wallet signed in under the pinned launch policy through, with its wallet', async () => {
    const token = await signIn(clean.secretKey, 'launch');
    expect(decodeJwt(token)).toMatchObject({ sub: clean.publicKey, pnm: 'launch', iss: ISSUER });
    const passed = await mint(bearer(token));
    expect(passed, nginx.log()).toMatchObject({ status: 200, reachedUpstream: true });
    expect(JSON.parse(passed.body)).toEqual({ minted: true, wallet: clean.publicKey });
    expect(upstreamSeen.at(-1)).toMatchObject({ wallet: clean.publicKey, policy: 'launch' });
    // POST: nginx asks with the method of the guarded request; the answer is the same.
    expect(await mint(bearer(token), { method: 'POST' })).toMatchObject({ status: 200, reachedUpstream: true });
    expect(upstreamSeen.at(-1)?.method).toBe('POST');
  });

  it('takes the token from the cookie the sign-in set', async () => {
    const { nonce } = await getNonce(nginx.url, 'blacklist');
    const login = await fetch(`${nginx.url}/x404_auth/blacklist?policy=launch`, { headers: signedHeaders(clean.secretKey, nonce, 'blacklist') });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie') ?? '';
    // Reached as http://127.0.0.1: plain HTTP from localhost, so no Secure attribute.
    expect(cookie).toMatch(/^x404_token=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
    expect(await mint({ Cookie: `theme=dark; ${cookie.split(';')[0]}` })).toMatchObject({ status: 200, reachedUpstream: true });
  });

  it('refuses without a token, with a malformed one, and for a wallet the launch policy keeps out', async () => {
    expect(await mint()).toMatchObject({ status: 401, reachedUpstream: false });
    expect(await mint({ Authorization: 'Bearer not.a.token' })).toMatchObject({ status: 401, reachedUpstream: false });
    expect(await mint({ Authorization: 'Basic dXNlcjpwYXNz' })).toMatchObject({ status: 401, reachedUpstream: false });
    expect(await mint({}, { method: 'POST' })).toMatchObject({ status: 401, reachedUpstream: false });
    // The banned-token holder cannot get a launch token at all: the policy is the operator's.
    await expect(signIn(demoWallet('banned-holder').secretKey, 'launch')).rejects.toMatchObject({ code: 'HOLDS_BANNED_TOKEN' });
  });

  it('refuses a token of another policy, however the client asks', async () => {
    const free = await signIn(demoWallet('banned-holder').secretKey, 'free');
    expect(decodeJwt(free).pnm).toBe('free');
    expect(await mint(bearer(free))).toMatchObject({ status: 401, reachedUpstream: false });
    // Asking for the laxer policy in the query or a header does not override the route's.
    expect(await mint(bearer(free), { path: '/api/mint?policy=free' })).toMatchObject({ status: 401, reachedUpstream: false });
    expect(await mint({ ...bearer(free), 'X-404-Policy': 'free' })).toMatchObject({ status: 401, reachedUpstream: false });
    // Laxer policy headers beside ?policy=launch do not sign anyone in either (POLICY_MISMATCH), and spend nothing.
    const { nonce } = await getNonce(nginx.url, 'blacklist');
    const headers = signedHeaders(demoWallet('banned-holder').secretKey, nonce, 'blacklist');
    const lax = await get(`${nginx.url}/x404_auth/blacklist?policy=launch`, { ...headers, excluded_mints: '[]', max_holdings: '{}' });
    expect([lax.status, lax.body.error]).toEqual([401, 'POLICY_MISMATCH']);
  });

  it('refuses an expired token', async () => {
    // A second gate with the same keys and policies but 1-second tokens.
    const shortLived = await startGate({
      rpcUrl: stack.localnet.url,
      env: { JWT_ALG: 'EdDSA', JWT_PRIVATE_KEYS_FILE: keysFile, JWT_ISSUER: ISSUER, POLICIES_FILE: join(dir, 'policies.json'), POLICY_MODE: 'pinned', JWT_EXPIRY: '1s' },
    });
    try {
      const token = await signIn(clean.secretKey, 'launch', shortLived.url);
      await eventually('the token to expire', async () => (await get(`${gate.url}/x404_verify`, bearer(token))).body.error === 'TOKEN_EXPIRED');
      expect(await mint(bearer(token))).toMatchObject({ status: 401, reachedUpstream: false });
    } finally {
      await shortLived.stop('SIGKILL');
    }
  });

  it('refuses a token signed by another key, also one that claims our kid', async () => {
    const strangerKeys = join(dir, 'stranger.pem');
    await generateKeyFile(strangerKeys);
    const stranger = await startGate({
      rpcUrl: stack.localnet.url,
      env: { JWT_ALG: 'EdDSA', JWT_PRIVATE_KEYS_FILE: strangerKeys, JWT_ISSUER: ISSUER, POLICIES_FILE: join(dir, 'policies.json'), POLICY_MODE: 'pinned' },
    });
    try {
      const foreign = await signIn(clean.secretKey, 'launch', stranger.url);
      expect(await mint(bearer(foreign))).toMatchObject({ status: 401, reachedUpstream: false });
      const ours = await signIn(clean.secretKey, 'launch');
      const [ourHeader] = ours.split('.');
      const [, payload, signature] = foreign.split('.');
      expect(await mint(bearer(`${ourHeader}.${payload}.${signature}`))).toMatchObject({ status: 401, reachedUpstream: false });
    } finally {
      await stranger.stop('SIGKILL');
    }
  });
});

describe('a mistyped auth route behind nginx', () => {
  it('answers the user 401 for every mistake, with a token the correct route lets through; the API never sees the request', async () => {
    const token = await signIn(clean.secretKey, 'launch');
    expect(await mint(bearer(token))).toMatchObject({ status: 200, reachedUpstream: true });
    for (const name of Object.keys(TYPOED_ROUTES)) {
      for (const headers of [bearer(token), {}]) {
        const answer = await mint(headers, { path: `/typo/${name}/mint` });
        expect(answer, `${name}\n${nginx.log()}`).toMatchObject({ status: 401, reachedUpstream: false });
      }
    }
    // What the gate told nginx, asked directly: the reason, naming the mistake.
    const direct = await get(`${gate.url}/x404_verify?feature=blacklist&polcy=launch`, bearer(token));
    expect([direct.status, direct.body.error]).toEqual([401, 'INVALID_REQUIREMENT']);
    expect(direct.body.message).toContain('unknown parameter "polcy"');
  });
});

describe('key rotation behind nginx', () => {
  it('old tokens keep working while the new key signs; retiring the old key ends them', async () => {
    const oldToken = await signIn(clean.secretKey, 'launch');
    const oldKid = decodeJwt(oldToken).kid ?? JSON.parse(Buffer.from(oldToken.split('.')[0]!, 'base64url').toString()).kid;
    const newKid = await generateKeyFile(newKeyFile);
    const jwksKids = async (): Promise<string[]> => ((await get(`${nginx.url}/.well-known/jwks.json`)).body.keys as { kid: string }[]).map((key) => key.kid);

    // 1. Publish the new key (second: it verifies, it does not sign yet).
    writeFileSync(keysFile, `${readFileSync(oldKeyFile, 'utf8')}${readFileSync(newKeyFile, 'utf8')}`);
    gate.child.kill('SIGHUP');
    await eventually('the new key in the JWKS', async () => (await jwksKids()).includes(newKid));
    expect(await jwksKids()).toEqual([oldKid, newKid]);

    // 2. The new key signs; tokens of the old one still pass.
    writeFileSync(keysFile, `${readFileSync(newKeyFile, 'utf8')}${readFileSync(oldKeyFile, 'utf8')}`);
    gate.child.kill('SIGHUP');
    await eventually('the new key to sign', async () => (await jwksKids())[0] === newKid);
    const newToken = await signIn(clean.secretKey, 'launch');
    expect(JSON.parse(Buffer.from(newToken.split('.')[0]!, 'base64url').toString()).kid).toBe(newKid);
    expect(await mint(bearer(oldToken))).toMatchObject({ status: 200, reachedUpstream: true });
    expect(await mint(bearer(newToken))).toMatchObject({ status: 200, reachedUpstream: true });
    // A relying party reading the JWKS through the proxy accepts both as well.
    const jwks = `${nginx.url}/.well-known/jwks.json`;
    for (const token of [oldToken, newToken]) {
      expect(await verifyGateToken(token, { jwks, issuer: ISSUER, feature: 'blacklist', policyName: 'launch' })).toMatchObject({ sub: clean.publicKey });
    }

    // 3. Retire the old key: its tokens are refused (unknown kid), the new ones pass.
    writeFileSync(keysFile, readFileSync(newKeyFile));
    gate.child.kill('SIGHUP');
    await eventually('the old key to leave the JWKS', async () => !(await jwksKids()).includes(oldKid));
    expect(await mint(bearer(oldToken))).toMatchObject({ status: 401, reachedUpstream: false });
    expect(await mint(bearer(newToken))).toMatchObject({ status: 200, reachedUpstream: true });
    expect(gate.output()).toContain('"msg":"token keys reloaded"');
  });
});
