import { ConfigError, loadConfig, type Config } from './config.js';
import { startGate } from './app.js';
import { createLogger } from './log.js';
import { redactUrlsIn } from './metrics/redact.js';

/** `npm start`: the gate, configured from the environment (docs/configuration.md). */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnConfigError(error);
  }
  const logger = createLogger(config.logLevel);
  // Starting reads POLICIES_FILE and JWT_PRIVATE_KEYS_FILE, which fail the same way.
  const gate = await startGate(config, logger).catch(exitOnConfigError);
  logger.info({ port: gate.port, rpcEndpoints: config.rpcUrls.length, workerThreads: config.workerThreads, store: config.redisUrl ? 'redis' : 'memory (this instance only)' }, 'listening');

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gate.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {
    logger.info({ signal: 'SIGHUP' }, 'reloading policies and token keys');
    void gate.reload();
  });
}

function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

main().catch((error: unknown) => {
  process.stderr.write(`x404-gate failed to start: ${redactUrlsIn(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(1);
});
