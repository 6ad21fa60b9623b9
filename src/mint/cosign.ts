import { sign } from 'node:crypto';
import { associatedTokenAddress, isAtaCached, rememberAssociatedTokenAddress } from '../chain/ata.js';
import type { ChainReader } from '../chain/types.js';
import type { Config } from '../config.js';
import { GateError, upstreamUnavailable } from '../errors.js';
import { answerReserveMs } from '../gate/login-deadline.js';
import type { HeaderBag } from '../lib/header-values.js';
import { decodeBase58 } from '../lib/base58.js';
import { encodeBase58 } from '../lib/base58-encode.js';
import type { PolicySet } from '../policy/types.js';
import type { SignatureVerifier } from '../signature/verifier.js';
import { isSignerKey, type SignerSlot } from './candy-guard.js';
import type { MintChain } from './chain.js';
import { checkTemplate, confirmDestination, confirmSignerSlot, type TemplateMatch } from './check.js';
import { readGuardSlot, type MintAuthorityWatch } from './authority.js';
import { checkCondition } from './condition.js';
import { WalletEligibilityCheck } from './eligibility.js';
import { checkOnchainSupply, remainingFor } from './supply.js';
import { ReservationCountsLost, ReservationStoreUnavailable, type ReservationStore } from './store.js';
import { checkCounts, checkWindow, limitReached, recounting, refuseBlockhash, soldOut } from './refusals.js';
import type { Recounts } from './recount.js';
import { WalletTurns } from './wallet-turns.js';
import { MAX_MINT_BODY_BYTES } from '../contract/mint.js';
import { decodeTransaction } from '../transaction/decode.js';
import { encodeTransaction } from '../transaction/encode.js';
import type { WireTransaction } from '../transaction/message.js';
import { TransactionRejected } from '../transaction/transaction-rejected.js';
import type { MintConfig } from './types.js';

/**
 * What GET and POST /x404_mint/<name> do (docs/minting.md). Both first ask the authority watch
 * (authority.ts) whether the mint's on-chain role is its signer's (500 MINT_MISCONFIGURED; 503 until
 * known); GET ?wallet= asks eligibility.ts. POST, in order, cheapest first, each step a refusal that
 * leaves nothing behind:
 *
 *  1. the body and the transaction decode (400 INVALID_BODY / INVALID_TRANSACTION + reason);
 *  2. the message is exactly the template (400 INVALID_TRANSACTION + reason), judged in memory;
 *  3. the time window (403 MINT_NOT_STARTED / MINT_ENDED), against the gate's clock;
 *  4. the fee payer's signature over the message, in the verify pool — which derives the fee
 *     payer's ATA beside it when it is not cached, so a forged request costs the gate one failed verification and no
 *     derivation (401 INVALID_SIGNATURE); then MintTo's destination is that ATA (400);
 *  5. together, one round trip each: the blockhash is valid at `confirmed` (400
 *     BLOCKHASH_NOT_CONFIRMED when only at `processed`, BLOCKHASH_EXPIRED when not at all) and
 *     getLatestBlockhash at `confirmed` (the reservation's bound), the mint's counts (403
 *     SOLD_OUT, MINT_LIMIT_REACHED as a pre-check; 503 MINT_RECOUNTING while they are rebuilt
 *     from the chain, recount.ts), and for a candy template
 *     the guard set's thirdPartySigner slot (400 signer_slot; 500 MINT_MISCONFIGURED when the
 *     guard does not name this gate's key);
 *  6. the mint's rule for the fee payer, on the chain as it is now (its refusal as a 403, or 503),
 *     and beside it the token mint's supply against max_onchain_supply (403 SOLD_OUT; supply.ts);
 *  7. simulation, before the gate signs (every other signature was verified in step 4), so no RPC
 *     node holds a co-signed transaction the gate did not send, and before the reservation, so a
 *     transaction that fails never holds a count (422 SIMULATION_FAILED with the logs);
 *  8. the reservation, atomically (403 MINT_LIMIT_REACHED / SOLD_OUT; 503 without the store);
 *  9. the gate's signature; sent; 200. The tracker (settle.ts) turns the reservation into a mint once the signature is
 *     confirmed, or releases it on proof that it never landed.
 */
export interface MintServiceDependencies {
  config: Config;
  /** The gate's chain reader (rule reads, the candy guard account). */
  chain: ChainReader;
  mintChain: MintChain;
  signatures: SignatureVerifier;
  store: ReservationStore;
  policies(): PolicySet | undefined;
  now(): number;
  metrics?: MintMetrics;
  /** Each mint's on-chain role (authority.ts); absent: not checked before a request (unit tests). */
  authority?: MintAuthorityWatch;
  /** Where a mint whose counts are lost is reported (recount.ts). */
  recounts?: Recounts;
}

export interface MintMetrics {
  countMintCosign(mint: string): void;
  countMintRefusal(mint: string, code: string): void;
}

export interface MintAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const NO_STORE = { 'Cache-Control': 'no-store' };
/** How long a candy guard's signer slot is reused before the account is read again. */
const CANDY_GUARD_TTL_MS = 10_000;

export class MintService {
  private readonly slots = new Map<string, { at: number; slot: Promise<SignerSlot> }>();
  private readonly turns = new WalletTurns();

  private readonly eligibility: WalletEligibilityCheck;

  constructor(private readonly deps: MintServiceDependencies) {
    this.eligibility = new WalletEligibilityCheck({
      config: deps.config,
      chain: deps.chain,
      now: deps.now,
      counts: (mint, wallet) => this.store(() => deps.store.counts(mint.name, wallet), mint.name),
    });
  }

  /** The configuration by name, or 404. */
  mint(name: string): MintConfig {
    const mint = this.deps.policies()?.mints.get(name);
    if (mint === undefined) throw new GateError(404, 'NOT_FOUND', `No mint named ${JSON.stringify(name.slice(0, 64))}`);
    return mint;
  }

  /** GET /x404_mint/<name>[?wallet=]: what a page needs to build the transaction, the counts, and the wallet's eligibility. */
  async describe(name: string, wallet?: string): Promise<MintAnswer> {
    const mint = this.mint(name);
    this.deps.authority?.assert(mint);
    const [counts, eligibility] = await Promise.all([this.store(() => this.deps.store.counts(mint.name), mint.name), wallet === undefined ? undefined : this.eligibility.forWallet(mint, wallet)]);
    return { status: 200, body: { ...mint.listing, issued: counts.issued, reserved: counts.reserved, ...(eligibility ? { wallet: eligibility } : {}) }, headers: NO_STORE };
  }

  /** POST /x404_mint/<name>. Every refusal is counted by its code. */
  async cosign(name: string, body: Uint8Array, headers: HeaderBag): Promise<MintAnswer> {
    const mint = this.mint(name);
    try {
      const answer = await this.run(mint, body, headers);
      this.deps.metrics?.countMintCosign(mint.name);
      return answer;
    } catch (error) {
      this.deps.metrics?.countMintRefusal(mint.name, error instanceof GateError ? error.code : 'INTERNAL_ERROR');
      throw error;
    }
  }

  private async run(mint: MintConfig, body: Uint8Array, headers: HeaderBag): Promise<MintAnswer> {
    this.deps.authority?.assert(mint);
    const transaction = readBody(body);
    const tx = decode(transaction);
    const match = judge(() => checkTemplate(tx, mint.template));
    checkWindow(mint, this.deps.now());

    const feePayer = encodeBase58(match.feePayer);
    await this.verifyFeePayer(tx, mint, match, feePayer);
    // The wait for the wallet's turn counts against the request's time, as every step does.
    const { loginTimeoutMs } = this.deps.config;
    const deadline = performance.now() + loginTimeoutMs - answerReserveMs(loginTimeoutMs);
    const endTurn = await this.turns.take(mint.name, feePayer);
    try {
      return await this.cosignVerified(mint, tx, match, feePayer, headers, deadline);
    } finally {
      endTurn();
    }
  }

  /** Steps 5 to 9, one at a time per wallet (wallet-turns.ts). */
  private async cosignVerified(mint: MintConfig, tx: WireTransaction, match: TemplateMatch, feePayer: string, headers: HeaderBag, deadline: number): Promise<MintAnswer> {
    const { config, store, mintChain } = this.deps;
    const chain = this.deps.chain.withDeadline(deadline);
    const blockhash = encodeBase58(tx.message.recentBlockhash);
    const [validity, bound, counts, slot] = await Promise.all([
      mintChain.isBlockhashValid(blockhash, 'confirmed', deadline),
      mintChain.latestBound('confirmed', deadline),
      this.store(() => store.counts(mint.name, feePayer), mint.name),
      mint.template.program === 'candy-guard' || mint.template.program === 'core-candy-guard' ? this.signerSlot(mint, chain) : undefined,
    ]);
    if (!validity.valid) await refuseBlockhash(mintChain, blockhash, deadline);
    // The two reads may come from different nodes: a bank newer than the one that gave the bound
    // can know a newer blockhash. Block height grows at most one a slot, so the slots between
    // them keep the bound an upper bound for this transaction's blockhash.
    const lastValidBlockHeight = bound.lastValidBlockHeight + Math.max(0, validity.slot - bound.slot);
    if (slot !== undefined) {
      if (!isSignerKey(slot, mint.signer.publicKey)) {
        throw new GateError(500, 'MINT_MISCONFIGURED', `Mint ${mint.name}: the candy guard's thirdPartySigner is not this gate's signer ${mint.signer.address}; nothing was co-signed`);
      }
      judge(() => confirmSignerSlot(match, slot.slot));
    }
    checkCounts(mint, counts);

    // Beside the rule's reads: the token mint's supply on-chain, for max_onchain_supply (supply.ts).
    const supplyRead = checkOnchainSupply(mint, chain, counts.reserved);
    supplyRead.catch(() => {}); // awaited below, once the rule has answered
    await checkCondition(mint.condition, { address: feePayer, publicKey: match.feePayer }, {
      chain,
      config,
      now: this.deps.now,
      deadlineMs: deadline,
      latitude: headers.get('x-lat'),
      longitude: headers.get('x-long'),
    });
    await supplyRead;

    // Simulated before the gate signs (its slot zero, signatures verified above), so no node holds
    // a co-signed transaction the gate did not send; and before the reservation, so a transaction
    // that fails never holds a count, not even for a round trip.
    const signatures = tx.signatures.slice();
    signatures[match.signerIndex] = new Uint8Array(64);
    const unsigned = Buffer.from(encodeTransaction(signatures, tx.messageBytes)).toString('base64');
    const simulation = await mintChain.simulate(unsigned, deadline);
    if (simulation.err !== null) {
      throw new GateError(422, 'SIMULATION_FAILED', 'The transaction fails in simulation; it was not co-signed, sent or reserved', {
        extra: { err: simulation.err as never, logs: simulation.logs },
      });
    }

    const id = encodeBase58(tx.signatures[0]!);
    const reservation = await this.store(
      () => store.reserve(mint.name, { id, wallet: feePayer, blockhash, lastValidBlockHeight, slot: bound.slot, perWallet: mint.perWallet, supply: mint.supply }),
      mint.name,
    );
    if (reservation.outcome === 'limit') throw limitReached(mint, reservation.walletCount);
    if (reservation.outcome === 'sold_out') throw soldOut(mint);
    if (reservation.outcome === 'duplicate') throw new GateError(400, 'INVALID_TRANSACTION', 'This transaction is already being minted', { extra: { reason: 'duplicate_submission' } });

    // From here the reservation exists: the tracker settles it on proof either way.
    signatures[match.signerIndex] = new Uint8Array(sign(null, tx.messageBytes, mint.signer.privateKey));
    const signed = Buffer.from(encodeTransaction(signatures, tx.messageBytes)).toString('base64');
    try {
      await mintChain.send(signed, deadline);
    } catch (error) {
      // It may have reached a leader: the reservation stays, and the tracker releases it on proof that it never landed.
      if (error instanceof GateError) throw new GateError(error.httpStatus, error.code, `${error.message} The transaction may still land; its reservation is released once the chain shows it never did.`, { ...error.options, extra: { ...error.options.extra, signature: id, reserved: true } });
      throw error;
    }
    return {
      status: 200,
      body: { success: true, signature: id, transaction: signed, lastValidBlockHeight, remaining: remainingFor(mint, { issued: counts.issued, reserved: counts.reserved + 1, wallet: reservation.walletCount }) },
      headers: NO_STORE,
    };
  }

  /**
   * Every signature but the gate's, over the message, in the verify pool: the fee payer's (its proof
   * of control; the token templates' ATA is derived in the same task) and, for the candy templates,
   * the new account's. Simulation then runs without signature checks, before the gate signs.
   */
  private async verifyFeePayer(tx: WireTransaction, mint: MintConfig, match: TemplateMatch, feePayer: string): Promise<void> {
    const seed = mint.token ? { owner: feePayer, mint: mint.token.mint, program: mint.token.program } : undefined;
    // A wallet minting again finds its ATA in the cache logins share; only a new one's is derived in the task.
    const seeds = seed === undefined || isAtaCached(seed) ? [] : [seed];
    const { signatures } = this.deps;
    const others = tx.signatures.flatMap((signature, index) => (index === 0 || index === match.signerIndex ? [] : [signatures.verify(tx.message.accountKeys[index]!, tx.messageBytes, signature)]));
    const [{ valid, atas }, ...rest] = await Promise.all([signatures.verify(match.feePayer, tx.messageBytes, tx.signatures[0]!, seeds), ...others]);
    if (!valid) throw new GateError(401, 'INVALID_SIGNATURE', 'The fee payer\'s signature does not verify over the transaction\'s message');
    if (rest.some((other) => !other.valid)) throw new GateError(401, 'INVALID_SIGNATURE', 'A signer\'s signature (other than the fee payer\'s and the gate\'s) does not verify over the transaction\'s message');
    if (seed !== undefined) {
      const ata = seeds.length === 0 ? associatedTokenAddress(seed.owner, seed.mint, seed.program) : atas[0];
      if (ata === undefined) throw new Error('the verify task derived no ATA');
      if (seeds.length > 0) rememberAssociatedTokenAddress(seed, ata);
      judge(() => confirmDestination(match, decodeAddress(ata)));
    }
  }

  /** The guard set's thirdPartySigner, read from the candy guard account (cached CANDY_GUARD_TTL_MS). */
  private signerSlot(mint: MintConfig, chain: ChainReader): Promise<SignerSlot> {
    const program = mint.template.program as 'candy-guard' | 'core-candy-guard';
    const guard = encodeBase58(mint.template.candyGuard!);
    const key = `${program} ${guard} ${mint.template.group ?? ''}`;
    const cached = this.slots.get(key);
    if (cached !== undefined && this.deps.now() - cached.at < CANDY_GUARD_TTL_MS) return cached.slot;
    const slot = chain.getMultipleAccounts([guard]).then(([account]) => {
      const read = readGuardSlot(mint, account);
      if (typeof read === 'string') throw new GateError(500, 'MINT_MISCONFIGURED', `Mint ${mint.name}: ${read}; nothing was co-signed`);
      return read;
    });
    this.slots.set(key, { at: this.deps.now(), slot });
    // A failed read is not kept.
    slot.catch(() => this.slots.get(key)?.slot === slot && this.slots.delete(key));
    return slot;
  }

  private async store<T>(work: () => Promise<T>, mint: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ReservationStoreUnavailable) throw upstreamUnavailable('the reservation store did not answer');
      if (error instanceof ReservationCountsLost) throw recounting(mint, this.deps.recounts);
      throw error;
    }
  }
}

function readBody(body: Uint8Array): string {
  if (body.length > MAX_MINT_BODY_BYTES) throw new GateError(413, 'BODY_TOO_LARGE', `The body is larger than ${MAX_MINT_BODY_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw invalidBody();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as { transaction?: unknown }).transaction !== 'string') throw invalidBody();
  return (parsed as { transaction: string }).transaction;
}

const invalidBody = (): GateError => new GateError(400, 'INVALID_BODY', 'The body must be JSON {"transaction": "<base64 wire transaction, signed by the fee payer>"}');

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decode(text: string): WireTransaction {
  if (!CANONICAL_BASE64.test(text)) throw invalidTransaction('encoding', 'transaction must be standard base64 with padding');
  const bytes = Buffer.from(text, 'base64');
  // Unused bits in the last character make one text of many for the same bytes: refuse all but one.
  if (bytes.toString('base64') !== text) throw invalidTransaction('encoding', 'transaction is not canonical base64');
  return judge(() => decodeTransaction(bytes));
}

function judge<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof TransactionRejected) throw invalidTransaction(error.reason, error.message);
    throw error;
  }
}

function invalidTransaction(reason: string, message: string): GateError {
  return new GateError(400, 'INVALID_TRANSACTION', `The transaction is not this mint's: ${message}`, { extra: { reason } });
}

function decodeAddress(text: string): Uint8Array {
  const bytes = decodeBase58(text);
  if (bytes?.length !== 32) throw new Error('the verify task derived an invalid ATA');
  return bytes;
}
