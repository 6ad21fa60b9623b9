import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';

/**
 * Starts the real gate (`node dist/src/main.js`, built by `npm test`) as a child process on a
 * random port, and the project's local chain in this process. Tests talk HTTP to both.
 */
export interface GateProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the gate printed (JSON log lines on stdout, anything on stderr). */
  output(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const MAIN = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));

export function testSecret(): string {
  return randomBytes(32).toString('base64url');
}

export async function startGate(options: { rpcUrl: string; env?: Record<string, string> }): Promise<GateProcess> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    JWT_SECRET: testSecret(),
    SOLANA_RPC_URL: options.rpcUrl,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'info',
    WORKER_THREADS: '1',
    RPC_TIMEOUT_MS: '1000',
    RPC_RETRIES: '1',
    ...options.env,
  };
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (output += chunk));

  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gate did not start in time:\n${output}`));
    }, 20_000);
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`gate exited with code ${code} before listening:\n${output}`));
    });
  });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Exit code and output of a gate that is expected to refuse to start. */
export async function runGateExpectingExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

export interface Stack {
  gateUrl: string;
  gate: GateProcess;
  localnet: LocalnetHandle;
  jwtSecret: string;
  stop(): Promise<void>;
}

/** The local chain plus one gate pointed at it. */
export async function startStack(options: { env?: Record<string, string> } = {}): Promise<Stack> {
  const localnet = await startLocalnet({ port: 0 });
  const jwtSecret = options.env?.JWT_SECRET ?? testSecret();
  try {
    const gate = await startGate({ rpcUrl: localnet.url, env: { ...options.env, JWT_SECRET: jwtSecret } });
    return {
      gateUrl: gate.url,
      gate,
      localnet,
      jwtSecret,
      async stop() {
        await gate.stop('SIGKILL');
        await localnet.close();
      },
    };
  } catch (error) {
    await localnet.close();
    throw error;
  }
}
