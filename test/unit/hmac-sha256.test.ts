import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HmacSha256 } from '../../src/lib/hmac-sha256.js';

describe('HmacSha256', () => {
  it('matches RFC 4231 test case 2 (short key, text message)', () => {
    const mac = new HmacSha256('Jefe').digest('what do ya want for nothing?');
    expect(mac.toString('hex')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('matches RFC 4231 test case 6 (a 131-byte key, hashed first)', () => {
    const mac = new HmacSha256(Buffer.alloc(131, 0xaa)).digest('Test Using Larger Than Block-Size Key - Hash Key First');
    expect(mac.toString('hex')).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54');
  });

  it('gives createHmac’s bytes for keys and messages of every length, reusing its buffers between calls', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      const hmac = new HmacSha256(key);
      const earlier: Buffer[] = [];
      for (const length of [0, 1, 55, 56, 64, 119, 300, 1000, 40]) {
        const bytes = randomBytes(length);
        const text = `é${bytes.toString('base64url')}€`;
        const fromBytes = hmac.digest(bytes);
        expect(fromBytes.equals(createHmac('sha256', key).update(bytes).digest())).toBe(true);
        expect(hmac.digest(text).equals(createHmac('sha256', key).update(text, 'utf8').digest())).toBe(true);
        earlier.push(fromBytes);
      }
      // A digest is the caller's: later calls do not overwrite it.
      expect(earlier[0]!.equals(createHmac('sha256', key).update(Buffer.alloc(0)).digest())).toBe(true);
    }
  });
});
