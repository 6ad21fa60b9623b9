import type { Config } from '../config.js';
import { GateError } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ConsumedNonceStore } from '../nonce/store.js';

/**
 * LOGIN_TIMEOUT_MS: a signed login is answered at most LOGIN_TIMEOUT_MS after it was read, whatever
 * it waits for — the verify pool's queue, the consumed-nonce store, RPC calls, their retries and
 * backoff.
 *
 * Two layers. The login's own work is given a deadline answerReserveMs() before that bound: the
 * chain reader it uses (ChainReader.withDeadline) stops retrying and aborts requests in flight by
 * then. And one timer per login answers 503 at that deadline whatever is still pending (a stuck
 * worker, a slow Redis, a read shared with a later login); the work still under way is then only
 * allowed to finish quietly: after each await the pipeline asks stillWanted(), so an answered login
 * never spends its nonce afterwards, and never signs a token.
 *
 * Every 503 of a login says whether its nonce is spent (`nonceSpent`). A nonce spent by a login that
 * then could not read the chain is released again (ConsumedNonceStore.release) before the answer,
 * so `nonceSpent: false` is the common case and the client may send the same signed request again
 * (the SDK does, once, after Retry-After). `true` means spent or not known to be free: sign a new
 * nonce. A nonce still yields at most one token: it is released only by the login that spent it,
 * once that login is certain to issue none.
 */

/**
 * Time kept between the work's deadline and the bound: to release the nonce, write the 503 and get
 * it onto the wire even when the machine is busy (a timer or a write can be late by tens of ms on
 * loaded cores). A tenth of LOGIN_TIMEOUT_MS, between 50 and 250 ms.
 */
export function answerReserveMs(loginTimeoutMs: number): number {
  return Math.min(250, Math.max(50, Math.round(loginTimeoutMs / 10)));
}

/**
 * What the login has done to its nonce. `unknown`: the store failed after the command may have
 * landed; `releasing`: given back, not (yet) confirmed.
 */
export type NonceState = 'unspent' | 'spending' | 'spent' | 'releasing' | 'unknown';

/** Thrown by stillWanted(): the login was already answered; nothing is sent for it. */
const ANSWERED = Symbol('login already answered');

export class LoginRun {
  /** Set when the login was answered before its work finished (the deadline passed). */
  abandoned = false;
  nonce: NonceState = 'unspent';
  nonceId = '';

  /** performance.now() ms by which the login's work must end. */
  constructor(readonly workDeadline: number) {}

  /** Called after every await of the login: a login already answered goes no further. */
  stillWanted(): void {
    if (this.abandoned) throw ANSWERED;
  }
}

export interface DeadlineDependencies {
  config: Pick<Config, 'loginTimeoutMs'>;
  consumedNonces: Pick<ConsumedNonceStore, 'release'>;
  metrics?: Pick<Metrics, 'countNonceStoreOp'>;
}

/**
 * Runs `work` under the login deadline (`receivedAtMs`: when the request was read, performance.now()
 * ms; undefined: now). Resolves with its answer, or rejects with its error; every 503 carries
 * `nonceSpent`. Costs ~0.3 µs per login: a promise and one timer (logins share Node's timer list of one duration).
 */
export function boundLogin<Answer>(
  receivedAtMs: number | undefined,
  deps: DeadlineDependencies,
  work: (run: LoginRun) => Promise<Answer>,
): Promise<Answer> {
  const now = performance.now();
  const { loginTimeoutMs } = deps.config;
  const answerBy = (receivedAtMs ?? now) + loginTimeoutMs;
  const reserveMs = answerReserveMs(loginTimeoutMs);
  const run = new LoginRun(answerBy - reserveMs);
  const delayMs = receivedAtMs === undefined ? loginTimeoutMs - reserveMs : Math.max(0, run.workDeadline - now);
  return new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(() => {
      run.abandoned = true;
      void unavailable(run, timedOut(loginTimeoutMs), answerBy, deps).then(reject);
    }, delayMs);
    work(run).then(
      (response) => {
        clearTimeout(timer);
        // stillWanted() runs right before the token is signed, so an answered login cannot get here;
        // if it ever did, its nonce stays spent (a token was signed, even if never sent).
        if (!run.abandoned) resolve(response);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (run.abandoned) return letGo(run, deps);
        if (error instanceof GateError && error.httpStatus === 503) {
          run.abandoned = true;
          void unavailable(run, error, answerBy, deps).then(reject);
        } else {
          reject(error);
        }
      },
    );
  });
}

/** The 503 to answer, with `nonceSpent`: a nonce this login spent is released first if it can be by `answerBy`. */
async function unavailable(run: LoginRun, error: GateError, answerBy: number, deps: DeadlineDependencies): Promise<GateError> {
  let nonceSpent: boolean;
  switch (run.nonce) {
    case 'unspent':
      nonceSpent = false;
      break;
    case 'spent':
      nonceSpent = !(await release(run, deps, answerBy));
      break;
    default:
      // Being marked, or the store failed after the command may have landed: cannot tell.
      nonceSpent = true;
  }
  return new GateError(error.httpStatus, error.code, error.message, {
    ...error.options,
    extra: { ...error.options.extra, nonceSpent },
  });
}

/** The work of a login already answered has ended: a nonce it went on to spend is given back. */
function letGo(run: LoginRun, deps: DeadlineDependencies): void {
  if (run.nonce === 'spent') void release(run, deps, Infinity);
}

/** True when the store confirmed the release by `answerBy`. */
function release(run: LoginRun, deps: DeadlineDependencies, answerBy: number): Promise<boolean> {
  run.nonce = 'releasing';
  const released = deps.consumedNonces.release(run.nonceId).then(
    () => {
      run.nonce = 'unspent';
      deps.metrics?.countNonceStoreOp('release', 'ok');
      return true;
    },
    () => {
      deps.metrics?.countNonceStoreOp('release', 'error');
      return false;
    },
  );
  if (answerBy === Infinity) return released;
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, answerBy - performance.now()));
    void released.then((ok) => {
      clearTimeout(timer);
      resolve(ok);
    });
  });
}

function timedOut(loginTimeoutMs: number): GateError {
  return new GateError(
    503,
    'UPSTREAM_UNAVAILABLE',
    `The login could not be completed within ${loginTimeoutMs} ms (LOGIN_TIMEOUT_MS): the chain or the nonce store did not answer in time; no token was issued. Retry shortly.`,
    { headers: { 'Retry-After': '2' } },
  );
}
