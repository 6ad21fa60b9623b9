import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/**
 * Debian's nginx, run by a test as the test's user: its whole configuration, temp paths, pid file
 * and logs live in a temp directory, it listens on a free port on 127.0.0.1, and stops with the
 * test. The test fails (never skips) when nginx is missing.
 */
export interface NginxProcess {
  url: string;
  port: number;
  /** The error log, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export function nginxBinary(): string {
  const candidates = ['/usr/sbin/nginx', ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nginx'))];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  throw new Error(
    'nginx is required by this test and was not found (looked for /usr/sbin/nginx and nginx on PATH). Install it: `apt-get install -y nginx` (npm test installs it when it is missing).',
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts nginx with `serverBlocks(port)` inside an `http {}` block whose logs and temp paths are
 * in `dir`. When the test runs as root (CI), workers run as root too, so they can use `dir`.
 */
export async function startNginx(dir: string, serverBlocks: (port: number) => string): Promise<NginxProcess> {
  const binary = nginxBinary();
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      return await launch(binary, dir, port, serverBlocks(port));
    } catch (error) {
      lastError = error as Error;
      if (!/Address already in use/.test(lastError.message)) throw lastError;
    }
  }
  throw lastError!;
}

async function launch(binary: string, dir: string, port: number, servers: string): Promise<NginxProcess> {
  mkdirSync(join(dir, 'temp'), { recursive: true });
  const errorLog = join(dir, 'error.log');
  writeFileSync(errorLog, '');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${errorLog} info;
events { worker_connections 256; }
http {
  access_log ${join(dir, 'access.log')};
  client_body_temp_path ${join(dir, 'temp/body')};
  proxy_temp_path ${join(dir, 'temp/proxy')};
  fastcgi_temp_path ${join(dir, 'temp/fastcgi')};
  uwsgi_temp_path ${join(dir, 'temp/uwsgi')};
  scgi_temp_path ${join(dir, 'temp/scgi')};
${servers}
}
`,
  );
  const log = (): string => {
    try {
      return readFileSync(errorLog, 'utf8');
    } catch {
      return '';
    }
  };
  const child: ChildProcess = spawn(binary, ['-p', dir, '-e', errorLog, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}) at start:\n${output}\n${log()}`);
    if (await accepts(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not listen on ${port}:\n${output}\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
