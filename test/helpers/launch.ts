import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { demoMint } from 'x404-localnet/fixture.js';

/** What a launch operator sets up: key files made by the CLI, and a policy file. */
const CLI = fileURLToPath(new URL('../../dist/src/cli/x404.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `x404` command. */
export function x404(args: string[], options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'], ...(options.cwd ? { cwd: options.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.stdin ?? '');
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `x404 keys generate`: a new private key file; resolves its kid. */
export async function generateKeyFile(path: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<string> {
  const run = await x404(['keys', 'generate', '--alg', alg, '--out', path, '--force']);
  if (run.code !== 0) throw new Error(`x404 keys generate failed (${run.code}): ${run.stderr}`);
  return (JSON.parse(run.stdout) as { kid: string }).kid;
}

/**
 * The policies of the launch tests: `launch` keeps out holders of the banned mint and whales above
 * 1,000 USDC; `free` lets anyone in; tier `vip` needs gold.
 */
export function launchPolicies(): Record<string, Record<string, Record<string, unknown>>> {
  return {
    blacklist: {
      launch: { excluded_mints: [demoMint('banned')], max_holdings: { [demoMint('usdc')]: '1000000000' } },
      free: { excluded_mints: [], max_holdings: {} },
    },
    tier: {
      vip: { tier_config: { bronze: { mint: demoMint('tier'), amount: '100000000' }, gold: { mint: demoMint('tier'), amount: '10000000000' } } },
    },
  };
}

/** Polls until `check` resolves true (or throws after `timeoutMs`, with `what` in the message). */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
