import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `x404` bin as a person runs it (node dist/src/cli/x404.js, built by `npm test`). */
export const CLI = fileURLToPath(new URL('../../dist/src/cli/x404.js', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `x404 …` with only PATH (and `env`) in its environment; `stdin` is written and closed. */
export function x404(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
