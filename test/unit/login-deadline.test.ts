/**
 * The login deadline on its own (src/gate/login-deadline.ts): whatever a login waits for, it is
 * answered by LOGIN_TIMEOUT_MS, and the 503 says truthfully whether its nonce is spent.
 */
import { describe, expect, it } from 'vitest';
import { GateError, upstreamUnavailable } from '../../src/errors.js';
import { answerReserveMs, boundLogin, type LoginRun } from '../../src/gate/login-deadline.js';
import type { GateResponse } from '../../src/gate/pipeline.js';

const LOGIN_TIMEOUT_MS = 500;
const never = new Promise<never>(() => {});

function store(behaviour: 'ok' | 'fails' | 'hangs' = 'ok') {
  const released: string[] = [];
  return {
    released,
    consumedNonces: {
      release: (id: string): Promise<void> => {
        released.push(id);
        return behaviour === 'ok' ? Promise.resolve() : behaviour === 'fails' ? Promise.reject(new Error('redis down')) : never;
      },
    },
  };
}

async function answered(promise: Promise<GateResponse>): Promise<{ error: GateError; elapsedMs: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GateError);
  return { error: error as GateError, elapsedMs: performance.now() - started };
}

const spend = (run: LoginRun, id = 'nonce-1'): void => {
  run.nonce = 'spent';
  run.nonceId = id;
};

describe('login deadline', () => {
  it('keeps a tenth of the bound for the answer, between 50 and 250 ms', () => {
    expect([500, 1500, 8000, 60_000].map(answerReserveMs)).toEqual([50, 150, 250, 250]);
  });

  it('answers a login stuck before its nonce is spent (e.g. a stalled verify pool) with 503, nonceSpent false, by the bound', async () => {
    const { consumedNonces, released } = store();
    const { error, elapsedMs } = await answered(boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, () => never));
    expect(error.httpStatus).toBe(503);
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.options.headers?.['Retry-After']).toBe('2');
    expect(error.body()).toMatchObject({ nonceSpent: false });
    expect(error.message).toContain('LOGIN_TIMEOUT_MS');
    expect(elapsedMs).toBeGreaterThanOrEqual(LOGIN_TIMEOUT_MS - answerReserveMs(LOGIN_TIMEOUT_MS) - 5);
    expect(elapsedMs).toBeLessThan(LOGIN_TIMEOUT_MS + 400);
    expect(released).toEqual([]);
  });

  it('counts from when the request was read, not from when the pipeline got it', async () => {
    const { consumedNonces } = store();
    const { elapsedMs } = await answered(boundLogin(performance.now() - 300, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, () => never));
    expect(elapsedMs).toBeLessThan(LOGIN_TIMEOUT_MS - 200);
  });

  it('gives a spent nonce back before answering: nonceSpent false', async () => {
    const { consumedNonces, released } = store();
    const { error } = await answered(
      boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, (run) => {
        spend(run);
        return never;
      }),
    );
    expect(released).toEqual(['nonce-1']);
    expect(error.body()).toMatchObject({ nonceSpent: false });
  });

  it('says nonceSpent true when the release fails, or does not finish by the bound', async () => {
    for (const behaviour of ['fails', 'hangs'] as const) {
      const { consumedNonces } = store(behaviour);
      const { error, elapsedMs } = await answered(
        boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, (run) => {
          spend(run);
          return never;
        }),
      );
      expect(error.body()).toMatchObject({ nonceSpent: true });
      expect(elapsedMs).toBeLessThan(LOGIN_TIMEOUT_MS + 400);
    }
  });

  it('says nonceSpent true while the nonce is being marked, and gives it back if the mark lands after the answer', async () => {
    const { consumedNonces, released } = store();
    let marked!: () => void;
    const login = boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, async (run) => {
      run.nonce = 'spending';
      await new Promise<void>((resolve) => (marked = resolve));
      spend(run);
      run.stillWanted();
      throw new Error('unreachable: the login was answered');
    });
    const { error } = await answered(login);
    expect(error.body()).toMatchObject({ nonceSpent: true });
    expect(released).toEqual([]);
    marked();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(released).toEqual(['nonce-1']);
  });

  it('a 503 of the chain before the deadline also releases the nonce and carries nonceSpent, keeping its Retry-After', async () => {
    const { consumedNonces, released } = store();
    const { error, elapsedMs } = await answered(
      boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, async (run) => {
        spend(run, 'n2');
        throw upstreamUnavailable('getMultipleAccounts: HTTP 500', 7);
      }),
    );
    expect(elapsedMs).toBeLessThan(200);
    expect(released).toEqual(['n2']);
    expect(error.body()).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', nonceSpent: false });
    expect(error.message).toContain('HTTP 500');
    expect(error.options.headers?.['Retry-After']).toBe('7');
  });

  it('passes other answers through untouched, and never releases a nonce after them', async () => {
    const { consumedNonces, released } = store();
    const ok: GateResponse = { status: 200, body: { success: true } };
    await expect(boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, async (run) => (spend(run), ok))).resolves.toBe(ok);
    const refused = new GateError(500, 'HOLDS_BANNED_TOKEN', 'holds it');
    await expect(
      boundLogin(undefined, { config: { loginTimeoutMs: LOGIN_TIMEOUT_MS }, consumedNonces }, async (run) => {
        spend(run);
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(released).toEqual([]);
  });
});
