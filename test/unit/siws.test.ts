import { generateKeyPairSync, sign } from 'node:crypto';
import type { SolanaSignInInput, SolanaSignInOutput } from '@solana/wallet-standard-features';
import {
  createSignInMessage,
  createSignInMessageText,
  parseSignInMessageText,
  verifySignIn,
  type SolanaSignInInputWithRequiredFields,
} from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { MessageRejected } from '../../src/sign-modes/message-rejected.js';
import {
  checkSiwsMessage,
  MAX_SIWS_MESSAGE_CHARS,
  isSiwsStatement,
  parseSiwsMessage,
  siwsResource,
  type SiwsExpectation,
  type SiwsMessage,
} from '../../src/sign-modes/siws.js';

function newWallet() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  return {
    publicKey: raw,
    address: bs58.encode(raw),
    sign: (bytes: Uint8Array) => new Uint8Array(sign(null, bytes, privateKey)),
  };
}

const wallet = newWallet();
const otherWallet = newWallet();
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();
/** The gate's nonce in its base32 text form: 61 characters of a–z, 2–7. */
const NONCE = 'mfrggzdfmztwq2lknnwg23tpobyxe43uov3ho6dzpjqwey3emvtgo2djnjvwy3l';
const DOMAINS = ['gate.example.com', 'localhost:3000'];

/** What the SDK asks the wallet for: every field the gate wants, plus the optional ones. */
const fullInput = (address = wallet.address): SolanaSignInInputWithRequiredFields => ({
  domain: 'gate.example.com',
  address,
  statement: 'Sign in to the x404 gate: tier. This proves you hold this wallet; it costs nothing.',
  uri: 'https://gate.example.com/x404/tier?from=app#top',
  version: '1',
  chainId: 'mainnet',
  nonce: NONCE,
  issuedAt: iso(NOW - 2_000),
  expirationTime: iso(NOW + 5 * 60_000),
  notBefore: iso(NOW - 2_000),
  requestId: 'req-7f3a%20b:c@d',
  resources: [siwsResource('tier'), 'https://gate.example.com/terms'],
});

const expectation = (overrides: Partial<SiwsExpectation> = {}): SiwsExpectation => ({
  address: wallet.address,
  nonce: NONCE,
  feature: 'tier',
  domains: DOMAINS,
  chainId: 'mainnet',
  nonceIssuedAtMs: NOW - 5_000,
  nonceExpiresAtMs: NOW + 115_000,
  nowMs: NOW,
  ...overrides,
});

function rejection(run: () => unknown): MessageRejected {
  try {
    run();
  } catch (error) {
    if (error instanceof MessageRejected) return error;
    throw error;
  }
  throw new Error('expected a MessageRejected');
}

/** The wallet's output for `input`, as a wallet-standard wallet returns it. */
function signIn(input: SolanaSignInInputWithRequiredFields): SolanaSignInOutput {
  const signedMessage = createSignInMessage(input);
  return {
    account: { address: wallet.address, publicKey: wallet.publicKey, chains: ['solana:mainnet'], features: ['solana:signIn'] },
    signedMessage,
    signature: wallet.sign(signedMessage),
  };
}

const OPTIONAL_FIELDS = [
  'statement',
  'uri',
  'version',
  'chainId',
  'nonce',
  'issuedAt',
  'expirationTime',
  'notBefore',
  'requestId',
  'resources',
] as const;

describe('parseSiwsMessage on messages as wallets build them', () => {
  it('returns the fields given, for every combination of optional fields, and verifySignIn agrees', () => {
    const full = fullInput();
    for (let mask = 0; mask < 1 << OPTIONAL_FIELDS.length; mask++) {
      const input: Record<string, unknown> = { domain: full.domain, address: full.address };
      OPTIONAL_FIELDS.forEach((field, bit) => {
        if (mask & (1 << bit)) input[field] = full[field];
      });
      const walletInput = input as unknown as SolanaSignInInputWithRequiredFields;
      const output = signIn(walletInput);
      const text = new TextDecoder().decode(output.signedMessage);
      expect(text).toBe(createSignInMessageText(walletInput));

      const parsed = parseSiwsMessage(text);
      expect(parsed).toEqual(input);
      // The wallet-standard verifier accepts the signature for the fields we parsed: they are
      // exactly the input the wallet signed.
      expect(verifySignIn(parsed as SolanaSignInInput, output)).toBe(true);
      // And the lax parser reads the same fields from it.
      expect(parseSignInMessageText(text)).toEqual({ ...input, resources: input.resources });
    }
  });

  it('returns an empty resource list for a bare "Resources:" line', () => {
    const input = { ...fullInput(), resources: [] };
    expect(parseSiwsMessage(createSignInMessageText(input)).resources).toEqual([]);
  });

  it('verifySignIn refuses a signature by another key, so the check above is not vacuous', () => {
    const input = fullInput();
    const output = signIn(input);
    const forged = { ...output, signature: otherWallet.sign(output.signedMessage) };
    expect(verifySignIn(parseSiwsMessage(createSignInMessageText(input)) as SolanaSignInInput, forged)).toBe(false);
  });

  it('reads a lone single-line block starting with a field label as fields, like the wallet-standard parser', () => {
    const text = createSignInMessageText({ domain: 'gate.example.com', address: wallet.address, statement: 'Nonce: abcdefgh1' });
    expect(parseSiwsMessage(text)).toEqual({ domain: 'gate.example.com', address: wallet.address, nonce: 'abcdefgh1' });
    expect(createSignInMessageText(parseSiwsMessage(text))).toBe(text);
  });

  it('accepts real calendar edge dates, offsets and fractions of any length', () => {
    for (const issuedAt of ['2024-02-29T23:59:59Z', '2000-02-29T00:00:00.123456789+05:30', '2026-12-31T23:59:59-00:00', '0099-01-01T00:00:00Z']) {
      const text = createSignInMessageText({ domain: 'localhost:3000', address: wallet.address, issuedAt });
      expect(parseSiwsMessage(text).issuedAt).toBe(issuedAt);
    }
  });
});

describe('parseSiwsMessage rejects what is not exactly the grammar', () => {
  const valid = createSignInMessageText(fullInput());
  const header = 'gate.example.com wants you to sign in with your Solana account:';
  const withLine = (prefix: string, line: string) => valid.replace(new RegExp(`^${prefix}.*$`, 'm'), line);
  const lineOf = (prefix: string) => valid.split('\n').find((line) => line.startsWith(prefix))!;
  const headerWithDomain = (domain: string) => valid.replace(/^.* wants/, `${domain} wants`);

  const cases: [string, string, string][] = [
    ['empty input', '', 'message'],
    ['wrong header wording', valid.replace('sign in with your Solana account', 'sign in with your account'), 'message'],
    ['Ethereum wording', valid.replace('Solana account', 'Ethereum account'), 'message'],
    ['header only', header, 'address'],
    ['no address line before the fields', `${header}\n\nURI: https://gate.example.com/`, 'address'],
    ['an Ethereum address', withLine(wallet.address, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'), 'address'],
    ['an address outside base58', withLine(wallet.address, wallet.address.slice(0, -1) + '0'), 'address'],
    ['an address of 31 bytes', withLine(wallet.address, bs58.encode(new Uint8Array(31).fill(7))), 'address'],
    ['an address of 33 bytes', withLine(wallet.address, bs58.encode(new Uint8Array(33).fill(7))), 'address'],
    ['no blank line after the address', valid.replace(`${wallet.address}\n\n`, `${wallet.address}\n`), 'message'],
    ['CRLF line ends', valid.replaceAll('\n', '\r\n'), 'message'],
    ['a trailing newline', `${valid}\n`, 'message'],
    ['a doubled blank line', valid.replace('\n\nURI', '\n\n\nURI'), 'message'],
    ['a blank line inside the fields', valid.replace('\nNonce', '\n\nNonce'), 'message'],
    ['a two-line statement', valid.replace('Sign in to', 'Sign in\nto'), 'statement'],
    ['a statement with non-ASCII text', valid.replace('gate: tier', 'gate — tier'), 'statement'],
    ['a statement with a quote', valid.replace('gate: tier', 'gate "tier"'), 'statement'],
    ['fields out of order', valid.replace('Version: 1\n', '').replace(lineOf('Nonce'), `${lineOf('Nonce')}\nVersion: 1`), 'Version'],
    ['Resources before a field', valid.replace(`${lineOf('Request ID')}\n`, '') + `\n${lineOf('Request ID')}`, 'Request ID'],
    ['a duplicated field', valid.replace(lineOf('Nonce'), `${lineOf('Nonce')}\n${lineOf('Nonce')}`), 'Nonce'],
    ['a field repeated later', valid.replace(lineOf('Not Before'), `${lineOf('Not Before')}\n${lineOf('Nonce')}`), 'Nonce'],
    ['an unknown field', valid.replace('Version: 1', 'Version: 1\nAudience: gate'), 'message'],
    ['a label without its space', valid.replace('Nonce: ', 'Nonce:'), 'message'],
    ['a lower-case label', valid.replace('Nonce: ', 'nonce: '), 'message'],
    ['a nonce with a hyphen', withLine('Nonce: ', 'Nonce: abc-defgh12'), 'Nonce'],
    ['a nonce of 7 characters', withLine('Nonce: ', 'Nonce: abc1234'), 'Nonce'],
    ['an empty Request ID', withLine('Request ID: ', 'Request ID: '), 'Request ID'],
    ['a Request ID with a slash', withLine('Request ID: ', 'Request ID: a/b'), 'Request ID'],
    ['30 February', withLine('Issued At: ', 'Issued At: 2026-02-30T12:00:00Z'), 'Issued At'],
    ['29 February of a common year', withLine('Issued At: ', 'Issued At: 2025-02-29T12:00:00Z'), 'Issued At'],
    ['month 13', withLine('Issued At: ', 'Issued At: 2026-13-01T12:00:00Z'), 'Issued At'],
    ['hour 24', withLine('Expiration Time: ', 'Expiration Time: 2026-03-01T24:00:00Z'), 'Expiration Time'],
    ['a leap second', withLine('Expiration Time: ', 'Expiration Time: 2026-06-30T23:59:60Z'), 'Expiration Time'],
    ['no time zone', withLine('Not Before: ', 'Not Before: 2026-03-01T12:00:00'), 'Not Before'],
    ['a lower-case t', withLine('Not Before: ', 'Not Before: 2026-03-01t12:00:00Z'), 'Not Before'],
    ['a date without time', withLine('Not Before: ', 'Not Before: 2026-03-01'), 'Not Before'],
    ['an offset without colon', withLine('Not Before: ', 'Not Before: 2026-03-01T12:00:00+0100'), 'Not Before'],
    ['a URI without scheme', withLine('URI: ', 'URI: gate.example.com/x404/tier'), 'URI'],
    ['a scheme-relative URI', withLine('URI: ', 'URI: //gate.example.com/x404/tier'), 'URI'],
    ['a URI with a space', withLine('URI: ', 'URI: https://gate.example.com/a b'), 'URI'],
    ['a URI with a bad escape', withLine('URI: ', 'URI: https://gate.example.com/%zz'), 'URI'],
    ['a URI with two fragments', withLine('URI: ', 'URI: https://gate.example.com/#a#b'), 'URI'],
    ['Version 2', withLine('Version: ', 'Version: 2'), 'Version'],
    ['a Chain ID with a space', withLine('Chain ID: ', 'Chain ID: main net'), 'Chain ID'],
    ['a Chain ID in another namespace', withLine('Chain ID: ', 'Chain ID: eip155:1'), 'Chain ID'],
    ['a resource that is not a URI', valid.replace('- x404:tier', '- not a uri'), 'Resources'],
    ['a resource on the Resources line', valid.replace('Resources:\n- x404:tier', 'Resources: x404:tier'), 'Resources'],
    ['a resource line before Resources', valid.replace('Version: 1', 'Version: 1\n- x404:tier'), 'message'],
    ['a domain with a path', headerWithDomain('gate.example.com/login'), 'domain'],
    ['a domain with a scheme', headerWithDomain('https://gate.example.com'), 'domain'],
    ['a domain with user info', headerWithDomain('user@gate.example.com'), 'domain'],
    ['a domain with port 65536', headerWithDomain('gate.example.com:65536'), 'domain'],
    ['a domain with an empty port', headerWithDomain('gate.example.com:'), 'domain'],
    ['a domain ending in a dot', headerWithDomain('gate.example.com.'), 'domain'],
    ['a domain label starting with a hyphen', headerWithDomain('-gate.example.com'), 'domain'],
    ['an empty domain', valid.replace(/^.* wants/, ' wants'), 'domain'],
    ['an over-long message', valid.replace('gate: tier', 'a'.repeat(MAX_SIWS_MESSAGE_CHARS)), 'message'],
  ];

  it.each(cases)('%s', (_name, text, field) => {
    expect(rejection(() => parseSiwsMessage(text))).toMatchObject({ kind: 'malformed', field });
  });

  it('says what it found in a short excerpt only', () => {
    const error = rejection(() => parseSiwsMessage(withLine('Nonce: ', `Nonce: ${'x'.repeat(2000)}!`)));
    expect(error.message).toMatch(/^must be at least 8 letters and digits, found "x{48}…"$/);
  });

  it('finishes on inputs built to make naive regexes backtrack', () => {
    // Nested-quantifier domain patterns such as ^([a-z0-9]+\.?)+$ take exponential time on
    // these; the lax wallet-standard regex is quadratic on runs of lines. No timing asserted:
    // the test finishing is the point.
    const near = MAX_SIWS_MESSAGE_CHARS - 200;
    const hostile = [
      `${'a.'.repeat(near / 2)}! wants you to sign in with your Solana account:\n${wallet.address}`,
      `${'a'.repeat(near)}- wants you to sign in with your Solana account:\n${wallet.address}`,
      `${header}\n${wallet.address}\n\nURI: https://${'a'.repeat(near)}%`,
      `${header}\n${wallet.address}\n\nRequest ID: ${'%41'.repeat(near / 3)}%4`,
      `${header}\n${wallet.address}\n\nIssued At: 2026-03-01T12:00:00.${'0'.repeat(near)}`,
      `${header}\n${wallet.address}\n${'\n'.repeat(near)}x`,
      `${header}\n${wallet.address}\n\nResources:${'\n- a:'.repeat(near / 5)}\n-`,
      `${header}\n${wallet.address}${'\n\nx'.repeat(near / 3)}`,
    ];
    for (const text of hostile) {
      expect(text.length).toBeLessThanOrEqual(MAX_SIWS_MESSAGE_CHARS);
      expect(rejection(() => parseSiwsMessage(text)).kind).toBe('malformed');
    }
  });

  it('rejects messages the lax wallet-standard parser accepts', () => {
    const outOfOrder = `${header}\n${wallet.address}\n\nURI: https://gate.example.com/\nNonce: ${NONCE}\nVersion: 1`;
    // The lax parser turns the out-of-order fields into a three-line statement and finds no nonce.
    expect(parseSignInMessageText(outOfOrder)).toMatchObject({ statement: outOfOrder.split('\n\n')[1], nonce: undefined });
    expect(rejection(() => parseSiwsMessage(outOfOrder)).field).toBe('Version');

    const lax = [
      `${valid}\n\n\n`,
      headerWithDomain('https://evil.example/path'),
      withLine('Nonce: ', 'Nonce: x'),
      withLine('Issued At: ', 'Issued At: yesterday'),
      withLine(wallet.address, 'not-an-address'),
    ];
    for (const text of lax) {
      expect(parseSignInMessageText(text)).not.toBeNull();
      expect(rejection(() => parseSiwsMessage(text)).kind).toBe('malformed');
    }
  });
});

describe('checkSiwsMessage', () => {
  const parsedWith = (overrides: Partial<SolanaSignInInputWithRequiredFields>): SiwsMessage => {
    const input = { ...fullInput(), ...overrides };
    for (const key of Object.keys(overrides) as (keyof typeof input)[]) if (input[key] === undefined) delete input[key];
    return parseSiwsMessage(createSignInMessageText(input));
  };

  it('accepts a correct message', () => {
    expect(() => checkSiwsMessage(parsedWith({}), expectation())).not.toThrow();
  });

  it('accepts the minimal message the gate needs, on a dev origin over http', () => {
    const message = parseSiwsMessage(
      createSignInMessageText({
        domain: 'localhost:3000',
        address: wallet.address,
        uri: 'http://localhost:3000',
        chainId: 'localnet',
        nonce: NONCE,
        issuedAt: iso(NOW),
        resources: ['x404:tier'],
      }),
    );
    expect(() => checkSiwsMessage(message, expectation({ chainId: 'solana:localnet' }))).not.toThrow();
  });

  it('accepts both spellings of a chain, a host in other case, and times within the skew', () => {
    const accepted: [Partial<SolanaSignInInputWithRequiredFields>, Partial<SiwsExpectation>][] = [
      [{ chainId: 'solana:mainnet' }, {}],
      [{ chainId: 'mainnet' }, { chainId: 'solana:mainnet' }],
      [{ domain: 'Gate.Example.COM', uri: 'https://GATE.example.com/' }, {}],
      [{ issuedAt: iso(NOW + 59_000) }, {}],
      [{ issuedAt: iso(NOW - 5_000 - 59_000) }, {}],
      [{ issuedAt: iso(NOW + 10_000) }, { skewMs: 10_000 }],
      [{ notBefore: iso(NOW + 59_000) }, {}],
      [{ version: undefined, statement: undefined, requestId: undefined, expirationTime: undefined, notBefore: undefined }, {}],
      [{ resources: ['https://gate.example.com/terms', 'x404:tier', 'x404:tier'] }, {}],
      [{ issuedAt: '2026-03-01T13:59:58+02:00' }, {}],
    ];
    for (const [overrides, expected] of accepted) {
      expect(() => checkSiwsMessage(parsedWith(overrides), expectation(expected))).not.toThrow();
    }
  });

  const cases: [string, Partial<SolanaSignInInputWithRequiredFields>, Partial<SiwsExpectation>, string][] = [
    ['another domain', { domain: 'evil.example.com' }, {}, 'domain'],
    ['a subdomain', { domain: 'www.gate.example.com' }, {}, 'domain'],
    ['another port', { domain: 'gate.example.com:8443' }, {}, 'domain'],
    ['an explicit default port', { domain: 'gate.example.com:443' }, {}, 'domain'],
    ['another port on localhost', { domain: 'localhost:3001' }, {}, 'domain'],
    ['another address', { address: otherWallet.address }, {}, 'address'],
    ['a URI on another domain', { uri: 'https://evil.example.com/x404/tier' }, {}, 'URI'],
    ['a URI on a look-alike domain', { uri: 'https://gate.example.com.evil.example/' }, {}, 'URI'],
    ['a URI with user info', { uri: 'https://gate.example.com@evil.example/' }, {}, 'URI'],
    ['a URI on another port', { uri: 'https://gate.example.com:8443/' }, {}, 'URI'],
    ['a URI with another scheme', { uri: 'ftp://gate.example.com/' }, {}, 'URI'],
    ['a URI without authority', { uri: 'https:gate.example.com' }, {}, 'URI'],
    ['no URI', { uri: undefined }, {}, 'URI'],
    ['another chain', { chainId: 'devnet' }, {}, 'Chain ID'],
    ['another prefixed chain', { chainId: 'solana:devnet' }, { chainId: 'mainnet' }, 'Chain ID'],
    ['no chain', { chainId: undefined }, {}, 'Chain ID'],
    ['another nonce', { nonce: 'abcdefgh12345678' }, {}, 'Nonce'],
    ['no nonce', { nonce: undefined }, {}, 'Nonce'],
    ['no Issued At', { issuedAt: undefined }, {}, 'Issued At'],
    ['issued before the nonce', { issuedAt: iso(NOW - 5_000 - 61_000) }, {}, 'Issued At'],
    ['issued in the future beyond the skew', { issuedAt: iso(NOW + 61_000) }, {}, 'Issued At'],
    ['issued after the nonce expired', { issuedAt: iso(NOW - 2_000) }, { nonceIssuedAtMs: NOW - 130_000, nonceExpiresAtMs: NOW - 10_000 }, 'Issued At'],
    ['expired', { expirationTime: iso(NOW - 1) }, {}, 'Expiration Time'],
    ['expiring now', { expirationTime: iso(NOW) }, {}, 'Expiration Time'],
    ['expiring before it was issued', { issuedAt: iso(NOW + 30_000), expirationTime: iso(NOW + 20_000) }, {}, 'Expiration Time'],
    ['not yet valid', { notBefore: iso(NOW + 61_000) }, {}, 'Not Before'],
    ['another feature\'s resource too', { resources: ['x404:tier', 'x404:blacklist'] }, {}, 'Resources'],
    ['another feature\'s resource in upper case', { resources: ['X404:age', 'x404:tier'] }, {}, 'Resources'],
    ['only another feature\'s resource', { resources: ['x404:age'] }, {}, 'Resources'],
    ['no x404 resource', { resources: ['https://gate.example.com/terms'] }, {}, 'Resources'],
    ['no resources', { resources: undefined }, {}, 'Resources'],
    ['an empty resource list', { resources: [] }, {}, 'Resources'],
  ];

  it.each(cases)('rejects %s', (_name, overrides, expected, field) => {
    expect(rejection(() => checkSiwsMessage(parsedWith(overrides), expectation(expected)))).toMatchObject({ kind: 'mismatch', field });
  });

  it('rejects a Version other than 1 in a message built by hand', () => {
    const message = { ...parsedWith({}), version: '2' };
    expect(rejection(() => checkSiwsMessage(message, expectation()))).toMatchObject({ kind: 'mismatch', field: 'Version' });
  });

  it('says what it expected and what it found', () => {
    expect(rejection(() => checkSiwsMessage(parsedWith({ chainId: 'devnet' }), expectation())).message).toBe(
      'expected "mainnet", found "devnet"',
    );
    expect(rejection(() => checkSiwsMessage(parsedWith({ domain: 'evil.example.com' }), expectation())).message).toBe(
      'expected "gate.example.com or localhost:3000", found "evil.example.com"',
    );
    const long = rejection(() => checkSiwsMessage(parsedWith({ uri: `https://evil.example/${'a'.repeat(1000)}` }), expectation()));
    expect(long.message.length).toBeLessThan(200);
  });
});

describe('isSiwsStatement', () => {
  it('takes URI characters and spaces only', () => {
    expect(isSiwsStatement("Sign in to Acme's gate: tier (free) & more, see https://acme.example/terms?x=1#y!")).toBe(true);
    for (const text of ['', 'say "hi"', '50% off', 'a <b>', 'a\\b', 'x^y', '`x`', '{x}', 'a|b', 'tab\there', 'line\nbreak', 'café']) {
      expect(isSiwsStatement(text)).toBe(false);
    }
  });
});

describe('siwsResource', () => {
  it('is the x404 URI of the feature', () => {
    expect(siwsResource('tier')).toBe('x404:tier');
  });
});
