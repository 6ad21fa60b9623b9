import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_COLLECTIONS, demoNft } from 'x404-localnet/collections/fixture.js';
import { metadataPda } from 'x404-localnet/collections/metaplex.js';
import { demoAddress, demoMint, demoWallet, type DemoWalletName } from 'x404-localnet/fixture.js';
import { MINT_LIST_KINDS, TAMPER_KINDS, type TamperKind, type TamperSpec } from 'x404-localnet/tamper.js';
import { blacklistPolicy, decodeJwt, get, getNonce, login, type HttpResult } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { rpcCall } from '../helpers/token-transactions.js';
import { expectRefusal, expectToken, newWallet } from './features-kit.js';

/**
 * Which token accounts count, and that only well-formed ones do (docs/features.md, "Which token
 * accounts count"; docs/solana-wire-format.md, "What the gate checks of each account"), against the
 * real gate and the local chain over HTTP:
 * - a deny condition (blacklist, a holdings leaf under `not`) sees every token account the wallet
 *   owns under both programs, by default; `scope: "ata"` opts out, and the bypass it allows is shown;
 * - a broken or tampering node (the local chain's tamper fault) gets a 503 — never a token — for a
 *   deny condition, a positive one and a rule, where `not` leaves the leaf unknown; an answer to a
 *   getTokenAccountsByOwner by mint whose account names another mint, another owner or the other
 *   token program is a tampered answer, never the holder's absence;
 * - lamports sent to an associated token address are no token account and no tampering.
 */
let dir: string;
let stack: Stack;
const secret = (name: DemoWalletName): Uint8Array => demoWallet(name).secretKey;
const address = (name: DemoWalletName): string => demoWallet(name).publicKey;
const units = (tokens: number, decimals = 6): string => (BigInt(tokens) * 10n ** BigInt(decimals)).toString();

const banned = demoMint('banned');
const bannedT22 = demoMint('banned-t22');
const usdc = demoMint('usdc');
const tier = demoMint('tier');
const denyBoth = blacklistPolicy({ excluded: [banned, bannedT22] });
/** tier-gold holds 12,000 `tier` in its ATA and 3,000 in another account. */
const tierAtLeast = (tokens: number) => ({ bronze: { mint: tier, amount: units(tokens) } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-holdings-'));
  const policiesFile = join(dir, 'policies.json');
  writeFileSync(
    policiesFile,
    JSON.stringify({
      blacklist: {
        strict: { excluded_mints: [banned, bannedT22], max_holdings: {} },
        fast: { excluded_mints: [banned, bannedT22], max_holdings: {}, scope: 'ata' },
      },
      rules: {
        'not-big-tier': { not: { feature: 'tier', tier_config: tierAtLeast(14_000) } },
        'not-big-tier-ata': { not: { feature: 'tier', tier_config: tierAtLeast(14_000), scope: 'ata' } },
        'no-banned-multitoken': { not: { feature: 'multitoken', required_tokens: [{ mint: banned, amount: '1' }] } },
        'not-not-big-tier': { not: { not: { feature: 'tier', tier_config: tierAtLeast(14_000) } } },
        'blacklist-leaf': { all: [{ feature: 'blacklist', policy: 'strict' }] },
        'not-collection': { not: { feature: 'collection', collections: [DEMO_COLLECTIONS.a] } },
      },
    }),
  );
  stack = await startStack({ env: { POLICIES_FILE: policiesFile } });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  stack.localnet.tamper.clear();
  stack.localnet.faults.clear();
});

const named = (policy: string) => ({ 'X-404-Policy': policy });

describe('a deny condition sees every token account the wallet owns (default scope)', () => {
  it('a banned mint kept in a non-associated Token account → 500 HOLDS_BANNED_TOKEN', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'blacklist', secret('banned-nonata'), denyBoth), 500, 'HOLDS_BANNED_TOKEN');
    expect(body).toMatchObject({ mint: banned, balance: units(5_000) });
  });

  it('a banned Token-2022 mint kept in two non-associated accounts (165 and 170 bytes) → 500, summed', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'blacklist', secret('banned-nonata-t22'), denyBoth), 500, 'HOLDS_BANNED_TOKEN');
    expect(body).toMatchObject({ mint: bannedT22, balance: units(7, 9) });
  });

  it('an excess over max_holdings split between the ATA and another account → 403 EXCEEDS_MAX_HOLDING, with the sum', async () => {
    // whale: 5,000,000 USDC in its ATA, 1,000,000 in another account; each part is under 5,500,000.
    const policy = blacklistPolicy({ max: { [usdc]: units(5_500_000) } });
    const body = expectRefusal(await login(stack.gateUrl, 'blacklist', secret('whale'), policy), 403, 'EXCEEDS_MAX_HOLDING');
    expect(body).toMatchObject({ mint: usdc, balance: units(6_000_000), maximum: units(5_500_000) });
    // A cap above the sum passes.
    expectToken(await login(stack.gateUrl, 'blacklist', secret('whale'), blacklistPolicy({ max: { [usdc]: units(6_000_000) } })), 'blacklist', secret('whale'));
  });

  it('the good paths still pass: a clean wallet, and empty token accounts of a banned mint', async () => {
    expectToken(await login(stack.gateUrl, 'blacklist', secret('clean'), denyBoth), 'blacklist', secret('clean'));
    expectToken(await login(stack.gateUrl, 'blacklist', secret('zero-balance'), denyBoth), 'blacklist', secret('zero-balance'));
  });

  it('a named policy without a scope is as strict', async () => {
    expectRefusal(await login(stack.gateUrl, 'blacklist', secret('banned-nonata-t22'), named('strict')), 500, 'HOLDS_BANNED_TOKEN');
  });

  it('reads every account by mint, one getTokenAccountsByOwner per excluded mint, only after the signature verified', async () => {
    // A cold gate would also look up the mints' programs; this one has seen them.
    await login(stack.gateUrl, 'blacklist', secret('clean'), denyBoth);
    stack.localnet.resetStats();
    expectToken(await login(stack.gateUrl, 'blacklist', secret('clean'), denyBoth), 'blacklist', secret('clean'));
    expect(stack.localnet.stats().calls).toEqual({ getTokenAccountsByOwner: 2 });

    // A wrong signature: 401, and nothing was read about the wallet (no list, no ATA).
    stack.localnet.resetStats();
    const { nonce } = await getNonce(stack.gateUrl, 'blacklist');
    const forged = await get(`${stack.gateUrl}/x404_auth/blacklist`, {
      'X-404-Nonce': nonce,
      'X-404-Signature': '1'.repeat(64),
      'X-404-Addr': address('banned-nonata'),
      'X-404-Feature': 'blacklist',
      ...denyBoth,
    });
    expect(forged.status).toBe(401);
    expect(stack.localnet.stats().calls).toEqual({});
  });
});

describe('`scope: "ata"`: faster, and bypassable (the documented trade-off)', () => {
  it('as a policy header: the banned mint outside the ATA is not seen → 200, and the token’s pol says so', async () => {
    const strict = await login(stack.gateUrl, 'blacklist', secret('clean'), denyBoth);
    const fast = await login(stack.gateUrl, 'blacklist', secret('banned-nonata'), { ...denyBoth, scope: 'ata' });
    expectToken(fast, 'blacklist', secret('banned-nonata'));
    // A relying party checking pol against its policy refuses this token: the scope is part of the policy.
    expect(decodeJwt(fast.body.token).pol).not.toBe(decodeJwt(strict.body.token).pol);
    // Held in the ATA it is still seen.
    expectRefusal(await login(stack.gateUrl, 'blacklist', secret('banned-holder'), { ...denyBoth, scope: 'ata' }), 500, 'HOLDS_BANNED_TOKEN');
  });

  it('as an operator policy field', async () => {
    const fast = await login(stack.gateUrl, 'blacklist', secret('banned-nonata-t22'), named('fast'));
    expect(expectToken(fast, 'blacklist', secret('banned-nonata-t22')).pnm).toBe('fast');
  });

  it('reads the ATAs (one getMultipleAccounts), no list', async () => {
    await login(stack.gateUrl, 'blacklist', secret('clean'), { ...denyBoth, scope: 'ata' });
    stack.localnet.resetStats();
    expectToken(await login(stack.gateUrl, 'blacklist', secret('clean'), { ...denyBoth, scope: 'ata' }), 'blacklist', secret('clean'));
    expect(stack.localnet.stats().calls).toEqual({ getMultipleAccounts: 1 });
  });

  it('a caller cannot weaken an operator’s policy or rule with it: 401 POLICY_MISMATCH', async () => {
    expectRefusal(await login(stack.gateUrl, 'blacklist', secret('banned-nonata'), { ...named('strict'), scope: 'ata' }), 401, 'POLICY_MISMATCH');
    expectRefusal(await login(stack.gateUrl, 'not-big-tier', secret('tier-gold'), { scope: 'ata' }), 401, 'POLICY_MISMATCH');
  });

  it('an unknown scope → 400 INVALID_HEADER', async () => {
    expectRefusal(await login(stack.gateUrl, 'blacklist', secret('clean'), { ...denyBoth, scope: 'some' }), 400, 'INVALID_HEADER');
  });
});

describe('holdings under a rule’s `not` are a deny condition', () => {
  it('`not` over tier counts every account: 12,000 in the ATA + 3,000 elsewhere meets 14,000 → refused', async () => {
    const refused = expectRefusal(await login(stack.gateUrl, 'not-big-tier', secret('tier-gold')), 403, 'RULE_NOT_MET');
    expect(refused.token).toBeUndefined();
    // A wallet below it passes.
    expectToken(await login(stack.gateUrl, 'not-big-tier', secret('tier-silver')), 'not-big-tier', secret('tier-silver'));
  });

  it('`not` over multitoken: a banned mint held outside the ATA → refused', async () => {
    expectRefusal(await login(stack.gateUrl, 'no-banned-multitoken', secret('banned-nonata')), 403, 'RULE_NOT_MET');
    expectToken(await login(stack.gateUrl, 'no-banned-multitoken', secret('clean')), 'no-banned-multitoken', secret('clean'));
  });

  it('with `scope: "ata"` on the leaf only the ATA counts: the same wallet passes (the bypass the operator chose)', async () => {
    expectToken(await login(stack.gateUrl, 'not-big-tier-ata', secret('tier-gold')), 'not-big-tier-ata', secret('tier-gold'));
  });

  it('two `not`s make a positive condition again, read from the ATA: 12,000 does not meet 14,000 → refused, as tier alone would be', async () => {
    expectRefusal(await login(stack.gateUrl, 'not-not-big-tier', secret('tier-gold')), 403, 'RULE_NOT_MET');
    expectRefusal(await login(stack.gateUrl, 'tier', secret('tier-gold'), { tier_config: JSON.stringify(tierAtLeast(14_000)) }), 500, 'INSUFFICIENT_TOKENS');
  });
});

/** A login's outcome with the tamper fault on, then the same login without it (the good path). */
async function tampered(kind: TamperKind, target: Omit<TamperSpec, 'kind'>, attempt: () => Promise<HttpResult>): Promise<{ during: HttpResult; after: HttpResult }> {
  stack.localnet.tamper.set({ kind, ...target });
  let during: HttpResult;
  try {
    during = await attempt();
  } finally {
    stack.localnet.tamper.clear();
  }
  return { during, after: await attempt() };
}

function expectUnavailable(result: HttpResult, kind: string): void {
  expect(result.status, `${kind}: ${JSON.stringify(result.body)}`).toBe(503);
  expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
  expect(result.body.token).toBeUndefined();
}

/**
 * Every kind that changes an account's bytes or owner in the ATA reads (getMultipleAccounts):
 * `duplicate` only shows in lists, the swaps only in lists by mint.
 */
const REWRITES = TAMPER_KINDS.filter((kind) => kind !== 'duplicate' && !MINT_LIST_KINDS.includes(kind));

describe('only well-formed data counts: a tampering node gets 503, never a token', () => {
  it.each(TAMPER_KINDS)('blacklist (every account, by mint), tampered %s → 503; untampered → 200', async (kind) => {
    // zero-balance keeps empty ATAs of both banned mints: the lists carry them.
    const { during, after } = await tampered(kind, { wallet: address('zero-balance') }, () => login(stack.gateUrl, 'blacklist', secret('zero-balance'), denyBoth));
    expectUnavailable(during, kind);
    expectToken(after, 'blacklist', secret('zero-balance'));
  });

  it.each(REWRITES)('blacklist with scope ata (the ATAs), tampered %s → 503; untampered → 200', async (kind) => {
    const policy = { ...denyBoth, scope: 'ata' };
    const { during, after } = await tampered(kind, { wallet: address('zero-balance') }, () => login(stack.gateUrl, 'blacklist', secret('zero-balance'), policy));
    expectUnavailable(during, kind);
    expectToken(after, 'blacklist', secret('zero-balance'));
  });

  it.each(REWRITES)('tier (a positive condition, its ATA), tampered %s → 503; untampered → 200 bronze', async (kind) => {
    const policy = { tier_config: JSON.stringify(tierAtLeast(100)) };
    const { during, after } = await tampered(kind, { wallet: address('tier-bronze') }, () => login(stack.gateUrl, 'tier', secret('tier-bronze'), policy));
    expectUnavailable(during, kind);
    expectToken(after, 'tier', secret('tier-bronze'), { tier: 'bronze' });
  });

  it.each(TAMPER_KINDS)('multitoken with scope all (a positive condition over every account), tampered %s → 503', async (kind) => {
    const policy = { required_tokens: JSON.stringify([{ mint: usdc, amount: '1' }]), scope: 'all' };
    const { during, after } = await tampered(kind, { wallet: address('portfolio') }, () => login(stack.gateUrl, 'multitoken', secret('portfolio'), policy));
    expectUnavailable(during, kind);
    expectToken(after, 'multitoken', secret('portfolio'));
  });

  it.each(TAMPER_KINDS)('a rule: `not` over tier, tampered %s → the leaf is unknown → 503, no token; untampered → 200', async (kind) => {
    // tier-silver meets the rule (1,500 < 14,000); a tampered read must not make it a pass or a refusal.
    const { during, after } = await tampered(kind, { wallet: address('tier-silver') }, () => login(stack.gateUrl, 'not-big-tier', secret('tier-silver')));
    expectUnavailable(during, kind);
    expectToken(after, 'not-big-tier', secret('tier-silver'));
  });

  it.each(TAMPER_KINDS)('a rule with a blacklist leaf, tampered %s → 503', async (kind) => {
    const { during, after } = await tampered(kind, { wallet: address('zero-balance') }, () => login(stack.gateUrl, 'blacklist-leaf', secret('zero-balance')));
    expectUnavailable(during, kind);
    expectToken(after, 'blacklist-leaf', secret('zero-balance'));
  });

  it('one tampered account among honest ones (by address) is enough', async () => {
    const { during } = await tampered('owner', { addresses: [demoAddress('banned-nonata-t22:extended')] }, () =>
      login(stack.gateUrl, 'blacklist', secret('banned-nonata-t22'), denyBoth),
    );
    expectUnavailable(during, 'owner');
  });

  it.each(['truncate', 'owner-program', 'mint', 'space'] as const)('collection: a Token Metadata account tampered %s → 503, and `not` over collection → 503', async (kind) => {
    const metadata = metadataPda(demoNft('nft-holder'));
    const policy = { collections: JSON.stringify([DEMO_COLLECTIONS.a]) };
    const feature = await tampered(kind, { addresses: [metadata] }, () => login(stack.gateUrl, 'collection', secret('nft-holder'), policy));
    expectUnavailable(feature.during, kind);
    expectToken(feature.after, 'collection', secret('nft-holder'));
    const rule = await tampered(kind, { addresses: [metadata] }, () => login(stack.gateUrl, 'not-collection', secret('nft-holder')));
    expectUnavailable(rule.during, kind);
    expectRefusal(rule.after, 403, 'RULE_NOT_MET');
  });
});

/**
 * Issue 33: a node asked getTokenAccountsByOwner with a `mint` filter for a banned mint answered the
 * holder's account with another (harmless, real) mint in its bytes. Each swap below is shown only in
 * the answers by mint — every other read of the same node is honest — and each account of the
 * answer must name that mint, that owner and that program.
 */
const SWAPS: readonly [TamperKind, Omit<TamperSpec, 'kind' | 'wallet'>][] = [
  ['mint-swap', { to: usdc }],
  ['owner-swap', { to: address('clean') }],
  ['program-swap', {}],
];
/** Holders of a banned mint: in the ATA or another account, under Token or Token-2022. */
const HOLDERS: readonly DemoWalletName[] = ['banned-holder', 'banned-nonata', 'banned-t22', 'banned-nonata-t22'];

describe('an answer by mint must carry that mint, that owner and that program (issue 33)', () => {
  it('the local chain shows the swap in the answer by mint only', async () => {
    const listed = async (filter: Record<string, string>) =>
      (await rpcCall(stack.localnet.url, 'getTokenAccountsByOwner', [address('banned-holder'), filter, { encoding: 'base64' }])).result as any;
    stack.localnet.tamper.set({ kind: 'mint-swap', wallet: address('banned-holder'), to: usdc });
    try {
      const [byMint] = (await listed({ mint: banned })).value;
      expect(Buffer.from(byMint.account.data[0], 'base64').subarray(0, 32)).toEqual(Buffer.from(bs58.decode(usdc)));
      const [byProgram] = (await listed({ programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' })).value;
      expect(Buffer.from(byProgram.account.data[0], 'base64').subarray(0, 32)).toEqual(Buffer.from(bs58.decode(banned)));
    } finally {
      stack.localnet.tamper.clear();
    }
  });

  const holderCases = HOLDERS.flatMap((holder) => SWAPS.map(([kind, spec]) => [holder, kind, spec] as const));
  it.each(holderCases)('blacklist (default scope: by mint): %s answered %s → 503, never 200; honest → 500 HOLDS_BANNED_TOKEN', async (holder, kind, spec) => {
    const { during, after } = await tampered(kind, { wallet: address(holder), ...spec }, () => login(stack.gateUrl, 'blacklist', secret(holder), denyBoth));
    expectUnavailable(during, kind);
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expectRefusal(after, 500, 'HOLDS_BANNED_TOKEN');
  });

  it.each(SWAPS)('a named policy and a rule with a blacklist leaf, %s → 503; honest → refused', async (kind, spec) => {
    const target = { wallet: address('banned-nonata'), ...spec };
    const named = await tampered(kind, target, () => login(stack.gateUrl, 'blacklist', secret('banned-nonata'), { 'X-404-Policy': 'strict' }));
    expectUnavailable(named.during, kind);
    expectRefusal(named.after, 500, 'HOLDS_BANNED_TOKEN');
    const rule = await tampered(kind, target, () => login(stack.gateUrl, 'blacklist-leaf', secret('banned-nonata')));
    expectUnavailable(rule.during, kind);
    expectRefusal(rule.after, 500, 'HOLDS_BANNED_TOKEN');
  });

  it.each(SWAPS)('`not` over multitoken and over tier (deny conditions, by mint), %s → 503; honest → 403', async (kind, spec) => {
    const multitoken = await tampered(kind, { wallet: address('banned-nonata'), ...spec }, () => login(stack.gateUrl, 'no-banned-multitoken', secret('banned-nonata')));
    expectUnavailable(multitoken.during, kind);
    expectRefusal(multitoken.after, 403, 'RULE_NOT_MET');
    // tier-gold: 12,000 + 3,000 `tier` ≥ 14,000, so `not` refuses it; a swap would make it 0 and a pass.
    const tierSpec = kind === 'mint-swap' ? { to: usdc } : spec;
    const notTier = await tampered(kind, { wallet: address('tier-gold'), ...tierSpec }, () => login(stack.gateUrl, 'not-big-tier', secret('tier-gold')));
    expectUnavailable(notTier.during, kind);
    expectRefusal(notTier.after, 403, 'RULE_NOT_MET');
  });

  it('an honest answer about another wallet is untouched: the clean wallet passes while a holder is tampered', async () => {
    stack.localnet.tamper.set({ kind: 'mint-swap', wallet: address('banned-holder'), to: usdc });
    try {
      expectToken(await login(stack.gateUrl, 'blacklist', secret('clean'), denyBoth), 'blacklist', secret('clean'));
    } finally {
      stack.localnet.tamper.clear();
    }
  });
});

describe('lamports at an associated token address are no token account', () => {
  it('a System Program account without data at the ATA → holds nothing (200), under both scopes', async () => {
    const wallet = newWallet();
    stack.localnet.state.setLamports(wallet.publicKey, 1_000_000_000);
    for (const mint of [banned, bannedT22]) {
      for (const program of ['token', 'token2022'] as const) stack.localnet.state.setLamports(stack.localnet.state.ataAddress(wallet.publicKey, mint, program), 890_880);
    }
    expectToken(await login(stack.gateUrl, 'blacklist', wallet.secretKey, denyBoth), 'blacklist', wallet.secretKey);
    expectToken(await login(stack.gateUrl, 'blacklist', wallet.secretKey, { ...denyBoth, scope: 'ata' }), 'blacklist', wallet.secretKey);
  });

  it('lamports at an NFT’s metadata address: no metadata, so the NFT does not count (500, not 503)', async () => {
    const holder = newWallet();
    const mint = stack.localnet.state.addMint({ decimals: 0, supply: 1, program: 'token' });
    stack.localnet.state.addTokenAccount({ owner: holder.publicKey, mint, amount: 1, program: 'token' });
    stack.localnet.state.setLamports(metadataPda(mint), 1_000_000);
    expectRefusal(await login(stack.gateUrl, 'collection', holder.secretKey, { collections: JSON.stringify([DEMO_COLLECTIONS.a]) }), 500, 'MISSING_COLLECTION_NFT');
  });
});
