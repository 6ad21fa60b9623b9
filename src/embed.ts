/**
 * x404-gate/embed: one gate inside a Node program of one's own (the development page of
 * packages/devpage does this): the configuration read from an environment, a logger, and
 * startGate. `npm start` (src/main.ts) is the same with process.env.
 */
export { startGate, type GateOptions, type RunningGate } from './app.js';
export { loadConfig, type Config } from './config.js';
export type { ExtraRoute } from './http/server.js';
export { createLogger } from './log.js';
export { redactUrl, redactUrlsIn } from './metrics/redact.js';
