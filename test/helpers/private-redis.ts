import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { once } from 'node:events';

/**
 * A throw-away redis-server on a free loopback port, for tests that take Redis away (outage) and
 * bring it back. No persistence by default: a restart comes back empty, like a replaced cache node.
 * With `snapshots`, it keeps an RDB file in a temporary directory, written when the test sends SAVE
 * (no automatic saves) and loaded at each start: a restart comes back with the data as of the last
 * SAVE — older than what was written since, as after a crash with snapshot persistence.
 */
export interface PrivateRedis {
  port: number;
  url: string;
  /** Kill the server abruptly (SIGKILL), as a crash or network loss would look to the gate. */
  stop(): Promise<void>;
  /** Start it again on the same port. */
  start(): Promise<void>;
  /** Stop it for good and delete its files (with `snapshots`). */
  remove(): Promise<void>;
  /** Freeze / thaw the process: connections stay open but nothing is answered. */
  freeze(): void;
  thaw(): void;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
  });
}

export async function startPrivateRedis(options: { snapshots?: boolean } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  if (options.snapshots) {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    dir = await mkdtemp(join(tmpdir(), 'x404-redis-'));
  }
  const persistence = ['--appendonly', 'no', ...(dir === undefined ? [] : ['--dir', dir, '--dbfilename', 'dump.rdb'])];

  async function start(): Promise<void> {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], {
      stdio: 'ignore',
    });
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await pingOnce(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server on port ${port} did not start`);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await once(running, 'exit');
  }

  async function remove(): Promise<void> {
    await stop();
    if (dir !== undefined) {
      const { rm } = await import('node:fs/promises');
      await rm(dir, { recursive: true, force: true });
    }
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    remove,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}

/** A throw-away three-master Redis Cluster on free loopback ports (for cluster-mode tests). */
export interface PrivateRedisCluster {
  ports: number[];
  /** A seed URL, as an operator would put in REDIS_URL with REDIS_CLUSTER=true. */
  url: string;
  stop(): Promise<void>;
}

export async function startPrivateRedisCluster(): Promise<PrivateRedisCluster> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { execFile } = await import('node:child_process');
  const dir = await mkdtemp(join(tmpdir(), 'x404-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children = ports.map((port) =>
    spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--cluster-enabled', 'yes',
        '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir],
      { stdio: 'ignore' },
    ),
  );
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGKILL');
        await once(child, 'exit');
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      let up = false;
      for (let attempt = 0; attempt < 100 && !up; attempt += 1) {
        up = await pingOnce(port);
        if (!up) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (!up) throw new Error(`cluster node ${port} did not start`);
    }
    const redisCli = (args: string[]): Promise<string> =>
      new Promise((resolve, reject) =>
        execFile('redis-cli', args, { timeout: 20_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
      );
    await redisCli(['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const states = await Promise.all(ports.map((port) => redisCli(['-p', String(port), 'cluster', 'info'])));
      if (states.every((info) => info.includes('cluster_state:ok'))) {
        return { ports, url: `redis://127.0.0.1:${ports[0]}`, stop };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('cluster did not reach cluster_state:ok');
  } catch (error) {
    await stop();
    throw error;
  }
}
