import { describe, expect, it } from 'vitest';
import { readCookie, sessionCookie } from '../../src/http/cookie.js';

const CONFIG = { cookieName: 'x404_token', jwtExpirySeconds: 86_400 };
const cookieFor = (headers: Record<string, string>): string => sessionCookie('t.o.k', new Map(Object.entries(headers)), CONFIG);

describe('the session cookie (X404_SET_COOKIE)', () => {
  it('is HttpOnly, SameSite=Lax, lives as long as the token, and Secure behind https', () => {
    expect(cookieFor({ host: 'gate.example.com' })).toBe('x404_token=t.o.k; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax; Secure');
    expect(cookieFor({ host: '127.0.0.1:3000', 'x-forwarded-proto': 'https' })).toMatch(/; Secure$/);
  });

  it.each(['localhost', 'localhost:3000', '127.0.0.1:8080', '[::1]:3000'])('drops Secure for plain HTTP to %s', (host) => {
    expect(cookieFor({ host })).not.toContain('Secure');
  });
});

describe('reading a cookie', () => {
  it('finds the named cookie among others, also in folded headers and quoted', () => {
    expect(readCookie('a=1; x404_token=abc.def.ghi; b=2', 'x404_token')).toBe('abc.def.ghi');
    expect(readCookie('a=1, x404_token="q.u.o"', 'x404_token')).toBe('q.u.o');
    expect(readCookie('x404_token_old=1; other=2', 'x404_token')).toBeUndefined();
    expect(readCookie(undefined, 'x404_token')).toBeUndefined();
  });
});
