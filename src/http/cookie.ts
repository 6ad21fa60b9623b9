import type { Config } from '../config.js';
import type { HeaderBag } from '../lib/header-values.js';

/**
 * The session cookie (X404_COOKIE) that forward auth reads and X404_SET_COOKIE sets on a sign-in.
 * HttpOnly, so page scripts cannot read it; SameSite=Lax, so other sites' pages cannot send it
 * with their requests (top-level navigations aside); Secure unless the browser reached the gate
 * as plain http://localhost, where browsers (Safari, curl's cookie jar) would otherwise drop it.
 */
export function sessionCookie(token: string, headers: HeaderBag, config: Pick<Config, 'cookieName' | 'jwtExpirySeconds'>): string {
  const secure = isPlainLocalhost(headers) ? '' : '; Secure';
  return `${config.cookieName}=${token}; Path=/; Max-Age=${config.jwtExpirySeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** "Plain HTTP from localhost": Host is localhost or a loopback address, and no proxy says https. */
function isPlainLocalhost(headers: HeaderBag): boolean {
  if (headers.get('x-forwarded-proto')?.trim().toLowerCase() === 'https') return false;
  const host = headers.get('host') ?? '';
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname ?? '');
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (cookieHeader === undefined) return undefined;
  // Repeated Cookie headers were folded with ", " (src/http/server.ts); split on both.
  for (const pair of cookieHeader.split(/[;,]/)) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}
