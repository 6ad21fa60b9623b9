import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics/metrics.js';
import { REDACT_PATHS } from '../../src/metrics/redact.js';

/** The value of one sample line `name{labels} value` in the exposition text. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Metrics', () => {
  it('renders every instrument the operator dashboards read, with the values recorded', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.countRequest('/x404_auth/blacklist', 200);
    metrics.countRequest('/x404_auth/blacklist', 200);
    metrics.onResponse('/health', 200, process.hrtime.bigint());
    metrics.observeLogin('blacklist', 'success', 0.02);
    metrics.observeLogin('blacklist', 'NONCE_REUSED', 0.002);
    metrics.observeLogin('timelock', 'success', 0.002);
    metrics.startLoginTimer('tier')('INSUFFICIENT_TOKENS');
    metrics.countRpcCall('getMultipleAccounts');
    metrics.setRpcCallBudget(150);
    metrics.countRpcError('getMultipleAccounts', 'timeout');
    metrics.observeMultipleAccountsBatch(37);
    metrics.countNonceStoreOp('consume', 'reused');
    metrics.countNonceStoreOp('release', 'ok');
    metrics.countNonceStoreOp('consume', 'first');
    metrics.countNonceStoreOp('consume', 'first');
    metrics.countRpcHedge('won');
    metrics.countRpcHedge('won');
    let waiting = 5;
    metrics.setQueueDepthSource(() => waiting);

    const text = await metrics.render();
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'x404_http_requests_total', 'route="/x404_auth/blacklist",status="200"')).toBe(2);
    expect(sample(text, 'x404_http_requests_total', 'route="/health",status="200"')).toBe(1);
    expect(sample(text, 'x404_http_request_duration_seconds_count', 'route="/health"')).toBe(1);
    expect(sample(text, 'x404_login_duration_seconds_count', 'feature="blacklist",outcome="success"')).toBe(1);
    expect(sample(text, 'x404_login_duration_seconds_bucket', 'le="0.01",feature="blacklist",outcome="success"')).toBe(0);
    expect(sample(text, 'x404_login_duration_seconds_bucket', 'le="0.025",feature="blacklist",outcome="success"')).toBe(1);
    expect(sample(text, 'x404_login_duration_seconds_count', 'feature="tier",outcome="INSUFFICIENT_TOKENS"')).toBe(1);
    expect(sample(text, 'x404_rpc_calls_total', 'method="getMultipleAccounts"')).toBe(1);
    expect(sample(text, 'x404_rpc_errors_total', 'method="getMultipleAccounts",kind="timeout"')).toBe(1);
    expect(sample(text, 'x404_rpc_get_multiple_accounts_batch_size_sum')).toBe(37);
    expect(sample(text, 'x404_nonce_store_operations_total', 'op="consume",result="reused"')).toBe(1);
    expect(sample(text, 'x404_nonce_store_operations_total', 'op="release",result="ok"')).toBe(1);
    expect(sample(text, 'x404_nonce_store_operations_total', 'op="consume",result="first"')).toBe(2);
    // Each label set keeps its own child: a cached one never counts for another.
    expect(sample(text, 'x404_login_duration_seconds_count', 'feature="blacklist",outcome="NONCE_REUSED"')).toBe(1);
    expect(sample(text, 'x404_login_duration_seconds_count', 'feature="timelock",outcome="success"')).toBe(1);
    expect(sample(text, 'x404_rpc_hedges_total', 'outcome="won"')).toBe(2);
    expect(sample(text, 'x404_worker_pool_queue_depth')).toBe(5);
    expect(sample(text, 'x404_rpc_call_budget')).toBe(150);

    waiting = 0;
    expect(sample(await metrics.render(), 'x404_worker_pool_queue_depth')).toBe(0);
  });

  it('keeps instances apart and includes process metrics by default', async () => {
    const first = new Metrics();
    const second = new Metrics();
    first.countRequest('/health', 200);
    expect(sample(await second.render(), 'x404_http_requests_total', 'route="/health",status="200"')).toBeUndefined();
    expect(await first.render()).toMatch(/^x404_process_cpu_user_seconds_total /m);
  });
});

describe('REDACT_PATHS', () => {
  it('keeps tokens, signatures, nonces and secrets out of pino log lines', () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    const logger = pino({ redact: { paths: [...REDACT_PATHS], censor: '[redacted]' } }, sink);
    const token = 'eyJhbGciOiJIUzI1NiJ9.payload.sig';
    logger.info(
      {
        req: { headers: { 'x-jwt': token, 'x-404-signature': 'SIGNATURE58', 'x-404-nonce': 'NONCE1', 'x-404-addr': 'WALLET1' } },
        body: { token, publicKey: 'WALLET1' },
        config: { jwtSecret: 'SUPERSECRET', port: 1 },
      },
      'request',
    );
    for (const secret of [token, 'SIGNATURE58', 'NONCE1', 'SUPERSECRET']) expect(output).not.toContain(secret);
    expect(output).toContain('WALLET1');
  });
});
