import bs58 from 'bs58';
import * as ed from '@noble/ed25519';
import { createHash } from 'node:crypto';

/**
 * A minimal client written from the spec (not from the gate's code): gets a nonce, builds the
 * challenge, signs it with @noble/ed25519 as a wallet would, and sends the login.
 */
ed.hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

export interface HttpResult {
  status: number;
  body: any;
  headers: Headers;
  /** The body as it came (what get() read; absent where a test builds a result itself). */
  text?: string;
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers, text };
}

export async function getNonce(gateUrl: string, feature: string): Promise<{ nonce: string; mechanism: string; result: HttpResult }> {
  const result = await get(`${gateUrl}/x404_auth/${feature}?_t=${Date.now()}`);
  if (result.status !== 200) throw new Error(`nonce request failed: ${result.status} ${JSON.stringify(result.body)}`);
  return { nonce: result.headers.get('x-404-nonce') as string, mechanism: result.headers.get('x-404-mechanism') as string, result };
}

export function challenge(nonce: string, feature: string, mechanism = 'SERVICE404'): string {
  return `CHALLENGE::${nonce}::/x404_auth/${feature}::${mechanism}_${feature.toUpperCase()}`;
}

export function publicKeyOf(secretKey: Uint8Array): string {
  return bs58.encode(secretKey.length === 64 ? secretKey.slice(32) : ed.getPublicKey(secretKey));
}

export function sign(secretKey: Uint8Array, message: string): string {
  return bs58.encode(ed.sign(new TextEncoder().encode(message), secretKey.slice(0, 32)));
}

/** Headers of a signed login for `nonce`. */
export function signedHeaders(secretKey: Uint8Array, nonce: string, feature: string, mechanism = 'SERVICE404'): Record<string, string> {
  return {
    'X-404-Nonce': nonce,
    'X-404-Signature': sign(secretKey, challenge(nonce, feature, mechanism)),
    'X-404-Addr': publicKeyOf(secretKey),
    'X-404-Feature': feature,
  };
}

/** Nonce → sign → login, with the feature's policy headers. */
export async function login(gateUrl: string, feature: string, secretKey: Uint8Array, headers: Record<string, string> = {}): Promise<HttpResult> {
  const { nonce, mechanism } = await getNonce(gateUrl, feature);
  return get(`${gateUrl}/x404_auth/${feature}`, { ...signedHeaders(secretKey, nonce, feature, mechanism), ...headers });
}

/** The blacklist policy headers, geolocation off unless given. */
export function blacklistPolicy(options: { excluded?: string[]; max?: Record<string, string>; geo?: boolean; locs?: string } = {}): Record<string, string> {
  return {
    excluded_mints: JSON.stringify(options.excluded ?? []),
    max_holdings: JSON.stringify(options.max ?? {}),
    geo_code: String(options.geo ?? false),
    geo_code_locs: options.locs ?? '',
  };
}

export function decodeJwt(token: string): Record<string, any> {
  const [, payload] = token.split('.');
  return JSON.parse(Buffer.from(payload as string, 'base64url').toString('utf8'));
}

/** A fresh wallet: 64-byte secret key (seed || public key), as Solana keypair files store it. */
export function newWallet(): Uint8Array {
  const seed = ed.utils.randomSecretKey();
  const secret = new Uint8Array(64);
  secret.set(seed);
  secret.set(ed.getPublicKey(seed), 32);
  return secret;
}
