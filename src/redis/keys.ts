/** Default REDIS_KEY_PREFIX: every key the gate writes starts with it, so one Redis can serve other apps. */
export const DEFAULT_KEY_PREFIX = 'x404:';

/**
 * Why a REDIS_KEY_PREFIX is unusable, or undefined when it is fine. Braces are refused because they
 * would change which part of the key Redis Cluster hashes.
 */
export function keyPrefixProblem(prefix: string): string | undefined {
  if (prefix.length > 64) return 'must be at most 64 characters';
  if (!/^[\x21-\x7e]*$/.test(prefix)) return 'must be printable ASCII without spaces';
  if (/[{}]/.test(prefix)) return 'must not contain { or } (they select the Redis Cluster hash slot)';
  return undefined;
}

/**
 * `<prefix><kind>:{<id>}`. The braces are a Redis Cluster hash tag: everything about one id hashes to
 * one slot, so a per-id script or transaction stays on one node however the cluster is sharded.
 */
export function redisKey(prefix: string, kind: string, id: string): string {
  return `${prefix}${kind}:{${id}}`;
}
