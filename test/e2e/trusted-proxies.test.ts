import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { get } from '../helpers/client.js';
import { runGateExpectingExit, startGate, testSecret, type GateProcess } from '../helpers/gate.js';

/**
 * TRUST_PROXY reads X-Forwarded-For only from TRUSTED_PROXIES (loopback by default): a client that
 * reaches the gate's port directly cannot pick its rate-limit key by writing the header, while a
 * proxy on a trusted address still names its clients. Rate limit 5 a minute; each client asks for
 * nonces until it is refused.
 */
const LIMIT = 5;
let localnet: LocalnetHandle;
const gates: GateProcess[] = [];

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
});
afterAll(async () => {
  await Promise.all(gates.map((gate) => gate.stop('SIGKILL')));
  await localnet?.close();
});

async function gateWith(env: Record<string, string>): Promise<GateProcess> {
  const gate = await startGate({ rpcUrl: localnet.url, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: '1', ...env } });
  gates.push(gate);
  return gate;
}

let nextClient = 1;
/** Statuses of `count` nonce requests to `base`, each claiming another X-Forwarded-For address (or `fixed`). */
async function statuses(base: string, count: number, fixed?: string): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < count; i++) {
    const forwardedFor = fixed ?? `203.0.113.${nextClient++ % 250}, 198.51.100.${nextClient++ % 250}`;
    answers.push((await get(`${base}/x404_auth/blacklist`, { 'X-Forwarded-For': forwardedFor })).status);
  }
  return answers;
}

const limited = [...Array<number>(LIMIT).fill(200), 429, 429];

describe('X-Forwarded-For from a peer that is not a trusted proxy', () => {
  it('is ignored: a direct client writing a new address each time is still one client, and is rate limited', async () => {
    // The test runs on 127.0.0.1, which this gate does not count as a proxy.
    const gate = await gateWith({ TRUSTED_PROXIES: '10.0.0.0/8, fd00:1234::/32' });
    expect(await statuses(gate.url, LIMIT + 2)).toEqual(limited);
  });

  const external = Object.values(networkInterfaces()).flat().find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
  it.skipIf(external === undefined)('is ignored under the defaults from a non-loopback address, with the gate listening on every interface', async () => {
    const gate = await gateWith({ HOST: '0.0.0.0' });
    expect(await statuses(`http://${external}:${gate.port}`, LIMIT + 2)).toEqual(limited);
  });
});

describe('X-Forwarded-For from a trusted proxy (loopback, by default)', () => {
  it('names the client: other addresses are other clients, one address is limited', async () => {
    const gate = await gateWith({});
    expect(await statuses(gate.url, LIMIT + 2)).toEqual(Array<number>(LIMIT + 2).fill(200));
    expect(await statuses(gate.url, LIMIT + 2, '192.0.2.77')).toEqual(limited);
  });
});

describe('start-up', () => {
  it('warns when every address is a trusted proxy on a port others can reach', async () => {
    const gate = await gateWith({ HOST: '0.0.0.0', TRUSTED_PROXIES: '0.0.0.0/0,::/0' });
    expect(gate.output()).toMatch(/"level":40[^\n]*TRUST_PROXY=1 with TRUSTED_PROXIES 0\.0\.0\.0\/0, ::\/0 \(every address\) while listening on 0\.0\.0\.0: any client that reaches this port directly chooses its own rate-limit key/);
    const quiet = await gateWith({});
    expect(quiet.output()).not.toContain('chooses its own rate-limit key');
  });

  it('stops on a TRUSTED_PROXIES entry that is not an address or range, naming it (exit 1)', async () => {
    const run = await runGateExpectingExit({ JWT_SECRET: testSecret(), SOLANA_RPC_URL: localnet.url, PORT: '0', TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' });
    expect(run.code).toBe(1);
    expect(run.output).toContain('TRUSTED_PROXIES must list IPv4 or IPv6 addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8, got "proxy.internal"');
  });
});
