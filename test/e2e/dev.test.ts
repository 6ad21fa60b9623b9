import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { get } from '../helpers/client.js';

/**
 * `npm run dev` (packages/devpage/dist/dev.js) pointed at a provider URL that carries its API key in every place
 * providers put one (user, password, path, query): the key appears in no page, log line or
 * printed line, and the gate listens on 127.0.0.1 only unless HOST says otherwise.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECRETS = ['rpcuser', 'RPCPASSWORD', 'PATHKEY123', 'QUERYKEY456'];
let localnet: LocalnetHandle;
let dev: ChildProcess;
let output = '';
let base: string;
let rpcUrl: string;

beforeAll(async () => {
  // A provider URL with its keys, answered by the local chain (it serves JSON-RPC on any path).
  localnet = await startLocalnet({ port: 0 });
  rpcUrl = `http://rpcuser:RPCPASSWORD@127.0.0.1:${localnet.port}/v2/PATHKEY123?api-key=QUERYKEY456`;
  dev = spawn(process.execPath, [join(ROOT, 'packages/devpage/dist/dev.js')], {
    // No HOST: the default is what is tested.
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOCALNET_PORT: '0', LOG_LEVEL: 'info', WORKER_THREADS: '1', SOLANA_RPC_URL: rpcUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /open (http:\/\/[^ ]+:\d+)\/ in a browser/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    dev.stdout?.on('data', read);
    dev.stderr?.on('data', read);
    dev.once('exit', (code) => reject(new Error(`npm run dev exited with ${code}:\n${output}`)));
  });
}, 60_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev.once('exit', resolve));
    dev.kill('SIGKILL');
    await exited;
  }
  await localnet?.close();
});

const expectNoSecret = (text: string, where: string): void => {
  for (const secret of SECRETS) expect(text, where).not.toContain(secret);
};

describe('npm run dev with a keyed provider URL', () => {
  it('signed the demo wallet in through that provider, and printed only its host', () => {
    expect(output).toContain('→ HTTP 200');
    expect(output).toContain(`reading http://***@127.0.0.1:${localnet.port}/***?***`);
    expectNoSecret(output, 'printed output');
  });

  it('serves no credential on any page: the watch page, its demo catalogue, health, metrics, the API document', async () => {
    const demo = await get(`${base}/watch/demo.json`);
    expect(demo.status).toBe(200);
    expect(demo.body.rpcUrl).toBe(`http://***@127.0.0.1:${localnet.port}/***?***`);
    // The page calls a chain itself (the co-signed mint) only when it is the embedded one: never the provider's keyed URL.
    expect(demo.body.chainUrl).toBeUndefined();
    for (const path of ['/', '/watch/demo.json', '/watch/chain-reads?since=0', '/health', '/metrics', '/openapi.json', '/x404_policies']) {
      const page = await get(`${base}${path}`);
      expect(page.status, path).toBe(200);
      expectNoSecret(page.text ?? '', path);
    }
    expectNoSecret(output, 'logs');
  });

  it('listens on 127.0.0.1 only', async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(base).port);
    const external = Object.values(networkInterfaces()).flat().find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
    // From another interface of this machine the port is closed (on a machine without one, the printed address is the check).
    if (external !== undefined) {
      const refused = await new Promise<string>((resolve) => {
        const socket = connect({ host: external, port }, () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
    }
  });
});
