import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { redactUrl, redactUrlsIn } from '../../src/metrics/redact.js';

/** Provider URLs carry API keys in the user, password, path or query: none of it is ever shown. */
describe('redactUrl', () => {
  it.each([
    ['https://mainnet.helius-rpc.com/?api-key=0123-SECRET', 'https://mainnet.helius-rpc.com/?***'],
    ['https://solana-mainnet.g.alchemy.com/v2/SECRETKEY', 'https://solana-mainnet.g.alchemy.com/***'],
    ['https://young-wild-tree.solana-mainnet.quiknode.pro/SECRETTOKEN/', 'https://young-wild-tree.solana-mainnet.quiknode.pro/***'],
    ['https://user:SECRET@rpc.example.com:8443/', 'https://***@rpc.example.com:8443'],
    ['https://rpc.example.com/#SECRET', 'https://rpc.example.com/#***'],
    ['redis://:SECRET@10.0.0.5:6379/0', 'redis://***@10.0.0.5:6379/***'],
    ['http://[2001:db8::1]:8899', 'http://[2001:db8::1]:8899'],
    ['http://127.0.0.1:8899', 'http://127.0.0.1:8899'],
    [' https://api.mainnet-beta.solana.com ', 'https://api.mainnet-beta.solana.com'],
    ['not a url SECRET', '[not a URL]'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('redacts every URL inside a text, leaving the rest', () => {
    expect(redactUrlsIn('fetch https://u:SECRET@a.example/v2/KEY failed; retried http://b.example?k=SECRET2.')).toBe('fetch https://***@a.example/*** failed; retried http://b.example/?***');
  });
});

describe('URLs in logs and configuration errors', () => {
  it('a logged error or URL setting never carries the key', () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.error({ err: new Error('request to https://rpc.example.com/v2/KEY1 failed') }, 'unexpected failure');
    logger.warn({ err: 'connect https://user:KEY2@rpc.example.com' }, 'redis connection problem');
    logger.info({ rpcUrls: ['https://rpc.example.com/?api-key=KEY3'], config: { dasUrl: 'https://das.example.com/KEY4', redisUrl: 'redis://:KEY5@r:6379' } }, 'settings');
    for (const key of ['KEY1', 'KEY2', 'KEY3', 'KEY4', 'KEY5']) expect(output).not.toContain(key);
    expect(output).toContain('request to https://rpc.example.com/*** failed');
  });

  it.each([
    [{ SOLANA_RPC_URL: 'ftp://user:KEY1@rpc.example.com/KEY2?k=KEY3' }, 'SOLANA_RPC_URL must use http or https, got "ftp://***@rpc.example.com/***?***"'],
    [{ SOLANA_RPC_URL: 'https://ok.example, https//KEY1@broken' }, 'SOLANA_RPC_URL contains an entry that is not a URL (entry 2 of 2)'],
    [{ REDIS_URL: 'http://:KEY1@redis.example:6379' }, 'REDIS_URL must be a redis:// or rediss:// URL, got "http://***@redis.example:6379"'],
  ])('a configuration error names the setting without its key: %j', (env, message) => {
    expect(() => loadConfig({ JWT_SECRET: 'x'.repeat(32), SOLANA_RPC_URL: 'http://127.0.0.1:1', ...env })).toThrow(`Invalid configuration: ${message}`);
  });
});
