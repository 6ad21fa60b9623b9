import { createHash } from 'node:crypto';
import type { RedisClient } from './client.js';

/**
 * A Lua script run by its SHA-1 (EVALSHA), sent whole (EVAL) only when the server does not have it
 * yet (NOSCRIPT: after a restart, a failover or SCRIPT FLUSH). A NOSCRIPT reply means nothing ran,
 * so sending it again cannot apply it twice. Works the same on a Cluster client: the command goes
 * to the node of its first key.
 */
export class RedisScript {
  readonly sha1: string;

  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha1, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
