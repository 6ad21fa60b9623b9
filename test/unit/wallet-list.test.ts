import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeAddress } from '../../src/chain/address.js';
import { readListsOffThread } from '../../src/rules/read-lists.js';
import { loadWalletList, MAX_WALLET_LIST_ADDRESSES, MAX_WALLET_LIST_BYTES, WalletListError } from '../../src/rules/wallet-list.js';
import { prng, Seeded } from '../helpers/seeded.js';

const dir = mkdtempSync(join(tmpdir(), 'x404-wallet-list-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function listFile(content: string | Buffer, name = `list-${++files}.txt`): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The error loading `content` throws. */
function loadError(content: string): { path: string; error: WalletListError } {
  const path = listFile(content);
  try {
    loadWalletList(path);
  } catch (error) {
    expect(error).toBeInstanceOf(WalletListError);
    return { path, error: error as WalletListError };
  }
  throw new Error('loaded');
}

/** A second implementation of the digest: sort the distinct keys with Buffer.compare, hash them. */
function expectedDigest(keys: readonly Uint8Array[]): string {
  const distinct = [...new Map(keys.map((key) => [Buffer.from(key).toString('hex'), Buffer.from(key)])).values()];
  distinct.sort(Buffer.compare);
  return createHash('sha256').update(Buffer.concat(distinct)).digest('base64url');
}

const random = new Seeded(prng(20261124));
const keys = Array.from({ length: 200 }, () => random.bytes(32));
const addresses = keys.map(encodeAddress);
/** Edge keys: all zeros ('1' × 32, the system program), all ones, a single low byte. */
const edges = [new Uint8Array(32), new Uint8Array(32).fill(255), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0))];

/** Keys that differ from `key` in one byte only, the later bytes first: they share long prefixes with it. */
function neighbours(key: Uint8Array): Uint8Array[] {
  return [31, 30, 16, 2, 1, 0].map((at) => {
    const near = Uint8Array.from(key);
    near[at] = near[at]! ^ (1 << (at % 8));
    return near;
  });
}

describe('loading a wallet list', () => {
  it('reads addresses around comments, blank lines, CRLF, whitespace, repeats and a byte-order mark', () => {
    const lines = [
      '\uFEFF# launch allow list',
      ...addresses.slice(0, 100).map((address, i) => (i % 3 === 0 ? `  ${address}\t` : address)),
      '',
      '   ',
      '#' + addresses[150]!, // commented out: not listed
      ...addresses.slice(100, 150),
      addresses[0]!,
      ...edges.map(encodeAddress),
      `\t${addresses[5]!}  `,
    ];
    const path = listFile(lines.join('\r\n'));
    const list = loadWalletList(path);
    expect(list.source).toBe(path);
    expect(list.size).toBe(150 + edges.length);
    for (const key of [...keys.slice(0, 150), ...edges]) expect(list.has(key)).toBe(true);
    for (const address of addresses.slice(0, 150)) expect(list.hasAddress(address)).toBe(true);
    for (const key of keys.slice(150)) expect(list.has(key)).toBe(false);
    for (const address of addresses.slice(150)) expect(list.hasAddress(address)).toBe(false);
    for (const key of keys.slice(0, 150).flatMap(neighbours)) expect(list.has(key)).toBe(false);
    expect(list.digest).toBe(expectedDigest([...keys.slice(0, 150), ...edges]));
  });

  it('accepts a file without a final newline, and Buffers as well as Uint8Arrays', () => {
    const list = loadWalletList(listFile(addresses.slice(0, 3).join('\n')));
    expect(list.size).toBe(3);
    expect(list.has(Buffer.from(keys[2]!))).toBe(true);
  });

  it('says no to anything that is not 32 bytes or not an address, without throwing', () => {
    const list = loadWalletList(listFile(addresses.join('\n')));
    for (const key of [new Uint8Array(0), keys[0]!.subarray(0, 31), Uint8Array.from([...keys[0]!, 0])]) expect(list.has(key)).toBe(false);
    for (const text of ['', 'not an address', addresses[0]!.slice(1), `${addresses[0]!}1`, `${addresses[0]!} `]) expect(list.hasAddress(text)).toBe(false);
  });

  it('allows an empty list: no addresses, nothing listed, the digest of nothing', () => {
    for (const content of ['', '\n\n', '# nobody yet\r\n  \r\n']) {
      const list = loadWalletList(listFile(content));
      expect(list.size).toBe(0);
      expect(list.has(keys[0]!)).toBe(false);
      expect(list.has(new Uint8Array(32))).toBe(false);
      expect(list.digest).toBe(createHash('sha256').digest('base64url'));
    }
  });

  it('agrees with a Set on thousands of keys, crowded buckets included, and with a second digest', () => {
    const seeded = new Seeded(prng(7));
    const listed: Uint8Array[] = [];
    for (let i = 0; i < 4000; i++) {
      const key = seeded.bytes(32);
      // A third share their first bytes with others: a bucket of hundreds (the Array#sort path),
      // runs equal up to byte 20, and neighbours of listed keys.
      if (i % 3 === 0) key.set([0x42, 0x17]);
      if (i % 9 === 0) key.set(listed[Math.floor(i / 2)]?.subarray(0, 20) ?? [], 0);
      if (i % 11 === 0 && listed.length > 0) listed.push(neighbours(seeded.pick(listed))[seeded.int(6)]!);
      listed.push(key);
    }
    const lines = listed.map(encodeAddress);
    for (let i = 0; i < 500; i++) lines.push(seeded.pick(lines)); // repeats
    const list = loadWalletList(listFile(lines.join('\n')));
    const set = new Set(listed.map((key) => Buffer.from(key).toString('hex')));
    expect(list.size).toBe(set.size);
    expect(list.digest).toBe(expectedDigest(listed));

    const queries = [...listed, ...listed.flatMap(neighbours), ...Array.from({ length: 5000 }, () => seeded.bytes(32))];
    for (let i = 0; i < 2000; i++) queries.push(Uint8Array.from([0x42, 0x17, ...seeded.bytes(30)]));
    for (const query of queries) expect(list.has(query)).toBe(set.has(Buffer.from(query).toString('hex')));
  });

  it('takes the bucket size from the list: one address, a few hundred, one in every 16-bit prefix', () => {
    for (const count of [1, 2, 300, 70_000]) {
      const seeded = new Seeded(prng(count));
      const listed = Array.from({ length: count }, () => seeded.bytes(32));
      const list = loadWalletList(listFile(listed.map(encodeAddress).join('\n')));
      expect(list.size).toBe(count);
      for (const key of listed.slice(0, 2000)) expect(list.has(key)).toBe(true);
      for (const key of listed.slice(0, 500).flatMap(neighbours)) expect(list.has(key)).toBe(false);
    }
  });
});

describe('the digest', () => {
  const digestOf = (lines: string[]): string => loadWalletList(listFile(lines.join('\n'))).digest;
  const base = digestOf(addresses);

  it('is the same for the same set, whatever the order, repeats, comments and line endings', () => {
    const shuffled = [...addresses].reverse();
    shuffled.splice(50, 0, '# moved things around', '', addresses[7]!, addresses[7]!);
    expect(digestOf(shuffled)).toBe(base);
    expect(loadWalletList(listFile(addresses.join('\r\n') + '\r\n')).digest).toBe(base);
  });

  it('changes when one address changes, goes or comes', () => {
    const changed = [...addresses];
    changed[99] = encodeAddress(neighbours(keys[99]!)[0]!);
    expect(digestOf(changed)).not.toBe(base);
    expect(digestOf(addresses.slice(1))).not.toBe(base);
    expect(digestOf([...addresses, encodeAddress(edges[0]!)])).not.toBe(base);
  });
});

describe('a bad wallet list stops the load, naming the file and the line', () => {
  const good = addresses.slice(0, 4);
  const cases: [string, string, RegExp][] = [
    ['0 (zero) is not base58', `${addresses[9]!.slice(0, 10)}0${addresses[9]!.slice(11)}`, /"0" is not a base58 character/],
    ['O', `O${addresses[9]!.slice(1)}`, /"O" is not a base58 character/],
    ['I', `${addresses[9]!.slice(0, -1)}I`, /"I" is not a base58 character/],
    ['l', `l${addresses[9]!.slice(1)}`, /"l" is not a base58 character/],
    ['a trailing comment', `${addresses[9]!} # team`, /" " is not a base58 character/],
    ['two addresses on a line', `${addresses[9]!},${addresses[10]!}`, /"," is not a base58 character/],
    ['a control character', `${addresses[9]!}\u0000`, /"\\u0000" is not a base58 character/],
    ['a non-ASCII letter', `é${addresses[9]!.slice(1)}`, /"é" is not a base58 character/],
    ['an invisible space (not whitespace to trim)', `\u200b${addresses[9]!}`, /"\u200b" is not a base58 character/],
    ['a truncated address (31 bytes)', bs58.encode(keys[9]!.subarray(0, 31)), /decodes to 31 bytes/],
    ['33 bytes', bs58.encode(Uint8Array.from([...keys[9]!, 1])), /decodes to 33 bytes/],
    ['one character', '2', /decodes to 1 byte$/],
    ['a signature (64 bytes)', bs58.encode(new Uint8Array(64).fill(9)), /decodes to 64 bytes/],
    ['a very long line', '2'.repeat(5000), /it has 5000 characters, an address has 32 to 44/],
    ['a hex key', Buffer.from(keys[9]!).toString('hex'), /"0" is not a base58 character|decodes to \d+ bytes/],
  ];

  it.each(cases)('%s', (_name, bad, why) => {
    const { path, error } = loadError(['# allow list', ...good, '', bad, ...good].join('\r\n'));
    expect(error.file).toBe(path);
    expect(error.line).toBe(7);
    expect(error.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 7: ".*" is not a base58 Solana address \\(32 bytes\\): `));
    expect(error.message).toMatch(why);
    expect(error.message.length).toBeLessThan(path.length + 200); // the line is shown cut short
  });

  it('shows the offending text, trimmed, cut at 60 characters', () => {
    const bad = `${addresses[3]!}${addresses[4]!}`;
    const { error } = loadError(`   ${bad}   \n`);
    expect(error.line).toBe(1);
    expect(error.message).toContain(`"${bad.slice(0, 60)}…"`);
  });

  it('names the first bad line when there are several', () => {
    const { error } = loadError([...good, 'bad0', 'bad1'].join('\n'));
    expect(error.line).toBe(5);
    expect(error.message).toContain('"bad0"');
  });

  it('refuses a missing file, a directory and a file over 64 MiB (before reading it)', () => {
    const missing = join(dir, 'no-such-list.txt');
    expect(() => loadWalletList(missing)).toThrow(new WalletListError(missing, undefined, 'cannot be read (ENOENT)'));
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    expect(() => loadWalletList(folder)).toThrow(`${folder}: is not a regular file`);
    const huge = listFile('');
    truncateSync(huge, MAX_WALLET_LIST_BYTES + 1); // sparse: nothing written
    expect(() => loadWalletList(huge)).toThrow(`${huge}: is ${MAX_WALLET_LIST_BYTES + 1} bytes; a wallet list may be at most ${MAX_WALLET_LIST_BYTES} (64 MiB)`);
  });

  it(`holds ${MAX_WALLET_LIST_ADDRESSES.toLocaleString('en-US')} distinct addresses (repeats counted once), not one more`, () => {
    const bytes = randomBytes(32 * MAX_WALLET_LIST_ADDRESSES);
    const lines = Array.from({ length: MAX_WALLET_LIST_ADDRESSES }, (_, i) => encodeAddress(bytes.subarray(32 * i, 32 * i + 32)));
    const path = listFile(lines.join('\n') + `\n${lines[0]!}\n${lines[1]!}\n`);
    lines.length = 0;
    expect(loadWalletList(path).size).toBe(MAX_WALLET_LIST_ADDRESSES);
    appendFileSync(path, `${encodeAddress(neighbours(bytes.subarray(0, 32))[0]!)}\n`);
    expect(() => loadWalletList(path)).toThrow(`${path}: has 1,000,001 distinct addresses; a wallet list may hold at most 1,000,000`);
  });
});

describe('lists read in a worker thread (SIGHUP)', () => {
  it('gives the lists the event loop would have read, leaves out the ones it could not read, and nothing for a file that does not parse', async () => {
    const folder = mkdtempSync(join(dir, 'policies-'));
    writeFileSync(join(folder, 'big.txt'), addresses.join('\n'));
    writeFileSync(join(folder, 'small.txt'), `${addresses[3]}\n`);
    writeFileSync(join(folder, 'bad.txt'), 'not an address\n');
    const policies = join(folder, 'policies.json');
    writeFileSync(policies, JSON.stringify({ rules: { r: { any: [{ wallets: 'big.txt' }, { not: { wallets: 'small.txt' } }, { wallets: 'bad.txt' }, { wallets: 'missing.txt' }] } } }));

    const lists = await readListsOffThread(policies);
    expect([...lists.keys()].sort()).toEqual([join(folder, 'big.txt'), join(folder, 'small.txt')]);
    for (const name of ['big.txt', 'small.txt']) {
      const path = join(folder, name);
      const fromWorker = lists.get(path)!;
      const fromLoop = loadWalletList(path);
      expect([fromWorker.size, fromWorker.digest]).toEqual([fromLoop.size, fromLoop.digest]);
      for (const key of [...keys, ...edges]) expect(fromWorker.has(key)).toBe(fromLoop.has(key));
    }

    writeFileSync(policies, '{ not json');
    expect((await readListsOffThread(policies)).size).toBe(0);
  });
});
