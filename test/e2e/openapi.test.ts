import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi.js';
import { demoMint, demoWallet } from '../../src/localnet/fixture.js';
import { blacklistPolicy, get, getNonce, login, signedHeaders, type HttpResult } from '../helpers/client.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';

/**
 * Real answers of every route, and of every error the contract names, validated against the
 * OpenAPI document the gate serves. Finally, every code the document lists for blacklist must have
 * been seen here, so the document cannot drift from the gate in either direction.
 */
const doc = openApiDocument as any;
const FEATURES = ['blacklist', 'timelock', 'multitoken', 'activity', 'tier', 'nodebt', 'age'];
// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, 'openapi');
const validators = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validatorFor(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${ref}` });
    validators.set(ref, validate);
  }
  return validate;
}

function resolve(node: any): any {
  if (node && typeof node.$ref === 'string') {
    return node.$ref
      .slice(2)
      .split('/')
      .reduce((at: any, part: string) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return node;
}

const seen = new Set<string>();

/** Asserts `result` is a documented answer of `method path` and matches its schemas. */
function conforms(path: string, method: string, result: HttpResult, responseRef?: string): void {
  const base = responseRef ?? pointer('paths', path, method, 'responses', String(result.status));
  const response = resolve({ $ref: `#/${base}` });
  expect(response, `${method.toUpperCase()} ${path} → ${result.status} is not documented`).toBeDefined();

  const contentType = result.headers.get('content-type')?.split(';')[0]?.trim();
  if (response.content) {
    expect(contentType && response.content[contentType], `${path} ${result.status}: content type ${contentType}`).toBeTruthy();
    const validate = validatorFor(`${base}/${pointer('content', contentType as string, 'schema')}`);
    if (!validate(result.body)) {
      throw new Error(`${method.toUpperCase()} ${path} → ${result.status} does not match the document:\n${ajv.errorsText(validate.errors)}\n${JSON.stringify(result.body)}`);
    }
  }
  for (const [name, declared] of Object.entries<any>(response.headers ?? {})) {
    const header = resolve(declared);
    const value = result.headers.get(name);
    if (header.required) expect(value, `${path} ${result.status}: header ${name}`).not.toBeNull();
    if (value !== null && header.schema) {
      const validate = ajv.compile(header.schema);
      expect(validate(value), `${path} ${result.status}: header ${name}=${value}`).toBe(true);
    }
  }
  if (path.startsWith('/x404_auth/blacklist') && result.status >= 400) seen.add(`${result.status} ${result.body.error}`);
}

let stack: Stack;
let limited: GateProcess;
const policy = blacklistPolicy({ excluded: [demoMint('banned')], max: { [demoMint('usdc')]: '1000000000' } });
const clean = demoWallet('clean');
const blacklistUrl = (): string => `${stack.gateUrl}/x404_auth/blacklist`;

beforeAll(async () => {
  stack = await startStack();
  limited = await startGate({ rpcUrl: stack.localnet.url, env: { RATE_LIMIT_PER_MINUTE: '3', NONCE_TTL_SECONDS: '1' } });
});
afterAll(async () => {
  await limited?.stop('SIGKILL');
  await stack?.stop();
});

describe('the OpenAPI document', () => {
  it('is served at /openapi.json exactly as exported', async () => {
    const result = await get(`${stack.gateUrl}/openapi.json`);
    conforms('/openapi.json', 'get', result);
    expect(result.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
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
