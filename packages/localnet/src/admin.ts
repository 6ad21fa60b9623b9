/**
 * Admin routes of the local chain, on the same port under /__localnet/, so that processes other
 * than the one that started it (benchmark, gate dev server) can shape its state and faults:
 *
 *   GET  /__localnet/stats          → {httpRequests, calls, requestsWith, rateLimited, connections,
 *                                   provider: {calls, httpRequests, refusedCalls, refusedRequests,
 *                                   refusedByReason, refusedByMethod, gzipped}}
 *   POST /__localnet/reset-stats    → {ok:true}
 *   POST /__localnet/fault          {mode, methods?, count?, forBlocks?, variant?, blocks?, err?} → the
 *                                   fault now set (faults.ts; forBlocks: it clears itself after that many blocks)
 *   GET|POST /__localnet/cluster    {confirmedLag?, finalizedLag?, landingBlocks?} → the commitments'
 *                                   lags and the landing delay now set (cluster.ts); GET reads them
 *   GET|POST /__localnet/latency    {method: ms, …} → the per-method latency now set (latency.ts);
 *                                   each POST replaces the table, {} clears it; GET reads it
 *   POST /__localnet/tamper         {kind, addresses? | wallet?, length?, to?} → the tampered-accounts fault
 *                                   now set (tamper.ts); {} or {kind:"none"} clears it
 *   POST /__localnet/provider       {latencyMs?, requestsPerSecond?, profile?} → the provider simulation now set
 *                                   (provider.ts: latency of every answer, 429 above the rate; 0 = off) and
 *                                   `profile`, the provider profile in force (a preset name or settings,
 *                                   provider-profile.ts; left out: unchanged)
 *   POST /__localnet/ledger         {slotsBehind?, laggingMethods?, honoursMinContextSlot?,
 *                                   firstAvailableBlock?, transactionHistory?, blockTimes?} → what
 *                                   part of the ledger the node now serves (ledger.ts)
 *   POST /__localnet/token-account  {owner, mint, amount:string, program, address?} → {address}
 *   POST /__localnet/mint           {address?, decimals, program, mintAuthority?, supply?} → {address}
 *   POST /__localnet/lamports       {address, lamports} → {ok:true}
 *   POST /__localnet/sol-transfer   {from, to, lamports, daysAgo} → {signature}: a successful SOL
 *                                   transfer in both histories, `daysAgo` days before the state's now
 *   POST /__localnet/blocks         {advance?, blockMs?} → {blockHeight, slot, blockMs, blockhash,
 *                                   lastValidBlockHeight, transactions: {landed, dropped, pending}}:
 *                                   produce `advance` blocks now, set the clock (0 stops it); {} reads
 *
 * Admin calls are never counted in the stats and never hit by faults.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultInjector, FaultSpec } from './faults.js';
import type { BlockClock } from './blocks.js';
import type { ClusterModel } from './cluster.js';
import type { MethodLatency } from './latency.js';
import type { NodeLedger } from './ledger.js';
import type { ProviderSimulation } from './provider.js';
import type { ProviderLimits } from './provider-limits.js';
import { applyProfileChange } from './provider-profile.js';
import type { ProviderCounters } from './provider-stats.js';
import type { AccountTamper, TamperSpec } from './tamper.js';
import { solTransfer } from './recipes.js';
import type { ChainState, TokenProgramName } from './state.js';
import type { Counters } from './stats.js';
import type { TransactionRpc } from './transaction-rpc.js';

export const ADMIN_PREFIX = '/__localnet/';
const MAX_ADMIN_BODY_BYTES = 1_000_000;
/** Blocks one admin call may produce: far past any blockhash's life. */
const MAX_ADVANCE = 1_000_000;

interface AdminContext {
  state: ChainState;
  faults: FaultInjector;
  tamper: AccountTamper;
  counters: Counters;
  provider: ProviderSimulation;
  profile: ProviderLimits;
  providerCounters: ProviderCounters;
  blocks: BlockClock;
  transactions: TransactionRpc;
  ledger: NodeLedger;
  cluster: ClusterModel;
  latency: MethodLatency;
}

class BadRequest extends Error {}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ADMIN_BODY_BYTES) throw new BadRequest('body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadRequest('body is not JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be a JSON object');
  return body as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || !value) throw new BadRequest(`${name} must be a non-empty string`);
  return value;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  return body[name] === undefined || body[name] === null ? undefined : stringField(body, name);
}

function programField(body: Record<string, unknown>): TokenProgramName {
  const program = body.program ?? 'token';
  if (program !== 'token' && program !== 'token2022') throw new BadRequest("program must be 'token' or 'token2022'");
  return program;
}

function amountField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value === 'string' && /^\d+$/.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  throw new BadRequest(`${name} must be a non-negative integer (as a string)`);
}

export async function handleAdmin(req: IncomingMessage, res: ServerResponse, ctx: AdminContext): Promise<void> {
  const route = (req.url ?? '').slice(ADMIN_PREFIX.length).split('?')[0];
  try {
    if (req.method === 'GET') {
      if (route === 'stats') return reply(res, 200, { ...ctx.counters.snapshot(), provider: ctx.providerCounters.snapshot() });
      if (route === 'cluster') return reply(res, 200, ctx.cluster.get());
      if (route === 'latency') return reply(res, 200, ctx.latency.get());
    }
    if (req.method !== 'POST') return reply(res, 405, { error: 'use POST (GET only for stats, cluster and latency)' });
    const body = await readJson(req);
    switch (route) {
      case 'reset-stats':
        ctx.counters.reset();
        ctx.providerCounters.reset();
        return reply(res, 200, { ok: true });
      case 'fault':
        ctx.faults.set(body as unknown as FaultSpec);
        return reply(res, 200, ctx.faults.current());
      case 'tamper':
        if (body.kind === undefined || body.kind === 'none') ctx.tamper.clear();
        else ctx.tamper.set(body as unknown as TamperSpec);
        return reply(res, 200, { tamper: ctx.tamper.current() });
      case 'provider':
        try {
          const { profile: change, ...simulation } = body;
          // Both validated before either is applied: a bad request changes nothing.
          const profile = change === undefined ? ctx.profile.current() : applyProfileChange(ctx.profile.current(), change);
          const settings = ctx.provider.set(simulation);
          if (change !== undefined) ctx.profile.set(profile);
          return reply(res, 200, { ...settings, profile });
        } catch (error) {
          throw new BadRequest(error instanceof Error ? error.message : String(error));
        }
      case 'cluster':
        try {
          return reply(res, 200, ctx.cluster.set(body));
        } catch (error) {
          throw new BadRequest(error instanceof Error ? error.message : String(error));
        }
      case 'latency':
        try {
          return reply(res, 200, ctx.latency.set(body));
        } catch (error) {
          throw new BadRequest(error instanceof Error ? error.message : String(error));
        }
      case 'ledger':
        try {
          return reply(res, 200, ctx.ledger.set(body));
        } catch (error) {
          throw new BadRequest(error instanceof Error ? error.message : String(error));
        }
      case 'token-account': {
        const address = ctx.state.addTokenAccount({
          owner: stringField(body, 'owner'),
          mint: stringField(body, 'mint'),
          amount: amountField(body, 'amount'),
          program: programField(body),
          address: optionalString(body, 'address'),
        });
        return reply(res, 200, { address });
      }
      case 'mint': {
        const decimals = body.decimals;
        if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
          throw new BadRequest('decimals must be an integer 0..255');
        }
        const address = ctx.state.addMint({
          address: optionalString(body, 'address'),
          decimals,
          program: programField(body),
          mintAuthority: optionalString(body, 'mintAuthority') ?? null,
          ...(body.supply === undefined ? {} : { supply: amountField(body, 'supply') }),
        });
        return reply(res, 200, { address });
      }
      case 'lamports':
        ctx.state.setLamports(stringField(body, 'address'), amountField(body, 'lamports'));
        return reply(res, 200, { ok: true });
      case 'sol-transfer': {
        const daysAgo = body.daysAgo;
        if (typeof daysAgo !== 'number' || !Number.isFinite(daysAgo) || daysAgo < 0) throw new BadRequest('daysAgo must be a number ≥ 0');
        const lamports = Number(amountField(body, 'lamports'));
        const signature = solTransfer(ctx.state, { from: stringField(body, 'from'), to: stringField(body, 'to'), lamports, daysAgo, fromBefore: lamports + 1_000_000_000 });
        return reply(res, 200, { signature });
      }
      case 'blocks': {
        const { advance, blockMs } = body;
        if (advance !== undefined && !(typeof advance === 'number' && Number.isInteger(advance) && advance >= 0 && advance <= MAX_ADVANCE)) {
          throw new BadRequest(`advance must be an integer 0..${MAX_ADVANCE}`);
        }
        if (blockMs !== undefined) ctx.blocks.setRate(blockMs as number);
        if (advance !== undefined) ctx.blocks.advance(advance);
        return reply(res, 200, { ...ctx.blocks.info(), transactions: ctx.transactions.counts() });
      }
      default:
        return reply(res, 404, { error: `no admin route ${route}` });
    }
  } catch (error) {
    // Bad input (including invalid addresses rejected by the state) is the caller's mistake.
    return reply(res, 400, { error: error instanceof Error ? error.message : String(error) });
  }
}
