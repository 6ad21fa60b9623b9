/**
 * Provider profile settings (presets, validation, RPC_PROFILE) and the limits they drive, in
 * process with a clock the test moves: a rolling window frees calls only when they leave it, a
 * refused call uses none of the budget, Retry-After is the wait rounded up to whole seconds, and a
 * token scan uses the owner/mint index only in agave's filter shapes.
 */
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { buildDemoState, demoWallet } from 'x404-localnet/fixture.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from 'x404-localnet/programs.js';
import { ProviderLimits, tokenScanUsesIndex, type ProfiledCall } from 'x404-localnet/provider-limits.js';
import { applyProfileChange, PRESETS, presetSettings, profileFromEnv } from 'x404-localnet/provider-profile.js';
import { ProviderCounters } from 'x404-localnet/provider-stats.js';
import { RollingWindow } from 'x404-localnet/rolling-window.js';

describe('presets', () => {
  it('none changes nothing; each named preset sets the limits docs/local-chain.md describes', () => {
    expect(Object.keys(PRESETS)).toEqual(['none', 'public-mainnet', 'batches-off', 'history-batch-10', 'per-call-budget']);
    expect(presetSettings('none')).toMatchObject({ batch: 'ok', batchCaps: {}, budget: { calls: 0 }, getProgramAccounts: 'ok', das: 'ok', unindexedTokenScan: 'ok', gzip: false });
    expect(presetSettings('public-mainnet')).toMatchObject({ budget: { calls: 100, windowMs: 10_000, perMethod: 40 }, retryAfter: 'none', getProgramAccounts: 'disabled', das: 'absent' });
    expect(presetSettings('batches-off')).toMatchObject({ batch: 'refuse', batchRefusal: 'http-400' });
    expect(presetSettings('history-batch-10')).toMatchObject({ batch: 'ok', batchCaps: { history: 10 } });
    expect(presetSettings('per-call-budget')).toMatchObject({ budget: { calls: 150, windowMs: 1000, perMethod: 0 }, budgetOverflow: 'member-errors', retryAfter: 'window' });
  });

  it('hands out copies: changing one does not change the preset', () => {
    const settings = presetSettings('history-batch-10');
    settings.batchCaps.history = 1;
    expect(presetSettings('history-batch-10').batchCaps.history).toBe(10);
  });
});

describe('applyProfileChange', () => {
  const none = presetSettings('none');

  it('applies fields over the settings in force, or over a preset, and marks the result custom', () => {
    const changed = applyProfileChange(presetSettings('batches-off'), { gzip: false });
    expect(changed).toMatchObject({ preset: 'custom', batch: 'refuse', gzip: false });
    expect(applyProfileChange(changed, { preset: 'per-call-budget', callsPerSecond: 40 })).toMatchObject({ preset: 'custom', batch: 'ok', budget: { calls: 40, windowMs: 1000 } });
    expect(applyProfileChange(changed, { preset: 'none' })).toEqual(presetSettings('none'));
    expect(applyProfileChange(none, { budget: { perMethod: 3 } }).budget).toEqual({ calls: 0, windowMs: 1000, perMethod: 3 });
    expect(applyProfileChange(none, { rateLimitError: 'code-32005' }).rateLimitError).toEqual({ code: -32005, message: 'Rate limit exceeded' });
  });

  it('names the preset the settings equal, whatever way they were reached, and takes back what it reported', () => {
    expect(applyProfileChange(presetSettings('batches-off'), { batch: 'ok', gzip: false }).preset).toBe('none');
    expect(applyProfileChange(none, { batchCaps: { history: 10 }, gzip: true }).preset).toBe('history-batch-10');
    const custom = applyProfileChange(presetSettings('public-mainnet'), { retryAfter: 3 });
    expect(custom.preset).toBe('custom');
    expect(applyProfileChange(none, custom)).toEqual(custom);
    expect(applyProfileChange(custom, presetSettings('per-call-budget'))).toEqual(presetSettings('per-call-budget'));
  });

  it('refuses unknown presets, fields and values', () => {
    for (const change of [
      'unlimited',
      42,
      ['batches-off'],
      { preset: 'fast' },
      { batches: 'refuse' },
      { batch: true },
      { batchCaps: { history: -1 } },
      { batchCaps: { 'get slot': 1 } },
      { callsPerSecond: 1.5 },
      { budget: { windowMs: 0 } },
      { budget: { burst: 1 } },
      { retryAfter: 'soon' },
      { rateLimitError: { code: 'x', message: 'y' } },
      { getProgramAccounts: 'sometimes' },
      { unindexedScanMs: 0 },
      { gzip: 'yes' },
    ]) {
      expect(() => applyProfileChange(none, change), JSON.stringify(change)).toThrow();
    }
  });
});

describe('RPC_PROFILE', () => {
  it('is a preset with optional name=value settings; unset is none', () => {
    expect(profileFromEnv({})).toEqual(presetSettings('none'));
    expect(profileFromEnv({ RPC_PROFILE: 'batches-off' })).toEqual(presetSettings('batches-off'));
    expect(profileFromEnv({ RPC_PROFILE: 'per-call-budget, callsPerSecond=300, retryAfter=none, gzip=false' })).toMatchObject({
      preset: 'custom',
      budget: { calls: 300, windowMs: 1000 },
      retryAfter: 'none',
      gzip: false,
    });
    expect(profileFromEnv({ RPC_PROFILE: 'history-batch-10,batchCaps.history=5,batchCaps.getProgramAccounts=0' }).batchCaps).toEqual({ history: 5, getProgramAccounts: 0 });
    expect(profileFromEnv({ RPC_PROFILE: 'none,budget.calls=100,budget.windowMs=10000' }).budget).toEqual({ calls: 100, windowMs: 10_000, perMethod: 0 });
  });

  it('names the variable in what it refuses', () => {
    expect(() => profileFromEnv({ RPC_PROFILE: 'generous' })).toThrow(/RPC_PROFILE: unknown provider profile/);
    expect(() => profileFromEnv({ RPC_PROFILE: 'none,callsPerSecond' })).toThrow(/RPC_PROFILE: expected name=value/);
    expect(() => profileFromEnv({ RPC_PROFILE: 'none,batch=maybe' })).toThrow(/RPC_PROFILE: batch must be one of/);
  });
});

describe('RollingWindow', () => {
  it('admits `limit` in any window and frees each admission when it leaves the window', () => {
    const window = new RollingWindow(3, 1000);
    expect(window.waitFor(3, 0)).toBe(0);
    window.take(0);
    window.take(100);
    window.take(200);
    expect(window.waitFor(1, 500)).toBe(500); // the admission at 0 leaves at 1000
    expect(window.waitFor(2, 500)).toBe(600); // the one at 100 at 1100
    expect(window.waitFor(1, 1000)).toBe(0);
    expect(window.waitFor(4, 5000)).toBe(Infinity); // never fits
  });
});

describe('ProviderLimits (clock moved by the test)', () => {
  const state = buildDemoState({ now: Date.UTC(2026, 0, 1) });
  const slot = (id: number): ProfiledCall => ({ id, method: 'getSlot', params: [] });

  function limitsAt(change: unknown): { limits: ProviderLimits; clock: { ms: number } } {
    const clock = { ms: 0 };
    const limits = new ProviderLimits(state, applyProfileChange(presetSettings('none'), change), () => clock.ms);
    return { limits, clock };
  }

  it('refuses the members over the budget and admits them again once earlier calls leave the window', () => {
    const { limits, clock } = limitsAt({ callsPerSecond: 3 });
    const first = limits.admit(true, [slot(1), slot(2), slot(3), slot(4)]);
    expect(first.kind === 'serve' && first.refusals.map((r) => r?.reason ?? null)).toEqual([null, null, null, 'budget']);
    clock.ms = 400;
    const second = limits.admit(false, [slot(5)]);
    expect(second).toMatchObject({ kind: 'refuse-request', status: 429, headers: { 'retry-after': '1' }, reason: 'budget' });
    clock.ms = 1000;
    expect(limits.admit(false, [slot(6)])).toEqual({ kind: 'serve', refusals: [null], delayMs: 0 });
  });

  it('Retry-After is the wait to the window rounded up to whole seconds', () => {
    const { limits, clock } = limitsAt({ budget: { calls: 1, windowMs: 10_000 } });
    limits.admit(false, [slot(1)]);
    clock.ms = 2500;
    expect(limits.admit(false, [slot(2)])).toMatchObject({ status: 429, headers: { 'retry-after': '8' } });
  });

  it('applies settings given directly, whatever their preset label says', () => {
    const limits = new ProviderLimits(state, { ...presetSettings('none'), batch: 'refuse' });
    expect(limits.inactive).toBe(false);
    expect(limits.admit(true, [slot(1)])).toMatchObject({ kind: 'refuse-request', status: 400, reason: 'batch-refused' });
    limits.set(presetSettings('none'));
    expect(limits.inactive).toBe(true);
  });

  it('invalid members neither count nor get refused; a disabled scan alone is HTTP 410', () => {
    const { limits } = limitsAt({ callsPerSecond: 1, getProgramAccounts: 'disabled' });
    expect(limits.admit(true, [null, slot(1), null])).toEqual({ kind: 'serve', refusals: [null, null, null], delayMs: 0 });
    const { limits: scans } = limitsAt({ getProgramAccounts: 'disabled' });
    expect(scans.admit(false, [{ id: 3, method: 'getProgramAccounts', params: [TOKEN_PROGRAM] }])).toEqual({
      kind: 'refuse-request',
      status: 410,
      body: '{"jsonrpc":"2.0","error":{"code":410,"message":"The RPC call or parameters have been disabled."},"id":3}',
      headers: {},
      reason: 'gpa-disabled',
    });
  });
});

describe("tokenScanUsesIndex (agave's get_spl_token_owner_filter / get_spl_token_mint_filter)", () => {
  const owner = demoWallet('portfolio').publicKey;
  const params = (filters: unknown[]) => [TOKEN_2022_PROGRAM, { filters }];
  const ownerAt32 = { memcmp: { offset: 32, bytes: owner } };
  const typeByte = { memcmp: { offset: 165, bytes: bs58.encode([2]) } };

  it('needs the account shape and a 32-byte owner or mint memcmp', () => {
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params([ownerAt32]))).toBe(false);
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params([typeByte]))).toBe(false);
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params([typeByte, ownerAt32]))).toBe(true);
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params([{ memcmp: { offset: 165, bytes: 'Ag==', encoding: 'base64' } }, ownerAt32]))).toBe(true);
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params([{ dataSize: 165 }, { memcmp: { offset: 0, bytes: owner } }]))).toBe(true);
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params(['tokenAccountState', ownerAt32]))).toBe(true);
    // A short owner prefix is not a key the index can look up.
    expect(tokenScanUsesIndex(TOKEN_2022_PROGRAM, params([typeByte, { memcmp: { offset: 32, bytes: bs58.encode(bs58.decode(owner).subarray(0, 8)) } }]))).toBe(false);
    // The type byte at 165 is Token-2022's; SPL Token accounts are 165 bytes long.
    expect(tokenScanUsesIndex(TOKEN_PROGRAM, params([typeByte, ownerAt32]))).toBe(false);
    expect(tokenScanUsesIndex(TOKEN_PROGRAM, params([{ dataSize: 165 }, ownerAt32]))).toBe(true);
    expect(tokenScanUsesIndex(TOKEN_PROGRAM, params([{ dataSize: 82 }, ownerAt32]))).toBe(false);
  });
});

describe('the provider counters per second', () => {
  it('count calls and refusals in the second they arrive, zeros for quiet seconds, from the last reset', () => {
    let now = 1_000_000;
    const counters = new ProviderCounters(() => now);
    counters.countRequest(3);
    counters.countRefusedCall('getBalance', 'budget');
    now += 2500;
    counters.countRequest(2);
    expect(counters.snapshot().perSecond).toEqual({ startedAt: 1_000_000, seconds: [{ calls: 3, refused: 1 }, { calls: 0, refused: 0 }, { calls: 2, refused: 0 }] });
    now += 100;
    counters.reset();
    counters.countRequest(1);
    expect(counters.snapshot().perSecond).toEqual({ startedAt: 1_002_600, seconds: [{ calls: 1, refused: 0 }] });
  });
});
