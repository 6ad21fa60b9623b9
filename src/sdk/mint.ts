import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { PROGRAM_IDS } from '../mint/template-programs.js';
import { isMintProgram, type MintProgram } from '../contract/mint.js';
import { concatBytes } from '../lib/bytes.js';
import { decodeTransaction } from '../transaction/decode.js';
import { encodeMessage, encodeTransaction } from '../transaction/encode.js';
import type { CompiledInstruction, Message } from '../transaction/message.js';
import { confirmTransaction, type Confirmation } from './confirm.js';
import { codeFromBody, X404Error, type X404ErrorBody } from './errors.js';
import type { Fetch } from './http.js';
import { resolveSigner, type Signer } from './signer.js';

/**
 * `mint()`: one co-signed mint from a page or a script (docs/minting.md, "From a page"). It reads
 * the mint's configuration (GET /x404_mint/<name>), builds the template's transaction — for the
 * token templates itself, with a recent blockhash passed in or read from `rpcUrl`; for the candy
 * templates the caller builds it with the Metaplex client and passes `transaction` — has the
 * wallet sign it, posts it, and returns the signature the gate sent. fetch + WebCrypto only
 * (@noble/ed25519 for keypairs and the ATA's on-curve test): browsers, Node, Deno, Bun.
 */
export interface MintOptions {
  baseUrl: string;
  /** The mint's name, as in /x404_mint/<name>. */
  name: string;
  /** The wallet: it pays the fee and receives the mint. */
  signer: Signer;
  /**
   * A recent blockhash from getLatestBlockhash at `confirmed` (or `finalized`): the gate refuses one
   * not yet valid at `confirmed` (BLOCKHASH_NOT_CONFIRMED). Or `rpcUrl` to read one at `confirmed`.
   */
  blockhash?: string;
  rpcUrl?: string;
  /**
   * Candy templates: the unsigned wire transaction built with the Metaplex client (the gate's key
   * read-only in the thirdPartySigner slot, docs/minting.md). The SDK has the wallet sign it.
   */
  transaction?: Uint8Array;
  /**
   * Ask the gate first whether this wallet may mint now (GET ?wallet=): when it may not, throw the
   * code the POST would get, before the wallet is asked to sign. Default false (one more rule
   * evaluation on the gate, kept there a few seconds).
   */
  checkEligibility?: boolean;
  /** Adds SetComputeUnitLimit to a token template's transaction (default: none). */
  computeUnitLimit?: number;
  /** The caller's position, when the mint's rule asks for one. */
  lat?: string;
  long?: string;
  fetch?: Fetch;
  signal?: AbortSignal;
}

export interface MintConfiguration {
  name: string;
  signer: string;
  program: MintProgram;
  rule?: string;
  feature?: string;
  policy?: string;
  mint?: string;
  amount?: string;
  tokenProgram?: string;
  candyGuard?: string;
  candyMachine?: string;
  group?: string | null;
  perWallet: number;
  supply: number | null;
  issued: number;
  reserved: number;
  start: string | null;
  end: string | null;
  allowPrograms: string[];
  /** Token templates: the cap on the token mint's on-chain supply (base units), or null. */
  maxOnchainSupply?: string | null;
  /** A paid mint's price: mint() adds the transfer. */
  payment?: { lamports: string; destination: string } | null;
  /** With `wallet` asked: whether it may mint now (`error`: the code a POST would get) and its remaining mints. */
  wallet?: { address: string; eligible: boolean; error?: string; message?: string; remaining: number };
}

/** The keys of MintConfiguration, for test/unit/mint-template.test.ts to hold against the gate's description. */
export const MINT_CONFIGURATION_KEYS = [
  'name', 'signer', 'program', 'rule', 'feature', 'policy', 'mint', 'amount', 'tokenProgram', 'candyGuard', 'candyMachine', 'group',
  'perWallet', 'supply', 'issued', 'reserved', 'start', 'end', 'allowPrograms', 'maxOnchainSupply', 'payment', 'wallet',
] as const satisfies readonly (keyof MintConfiguration)[];

export interface MintResult {
  /** The transaction's signature (its id on-chain). */
  signature: string;
  /** The transaction as sent, with every signature (base64). */
  transaction: string;
  /** No later block can include it. */
  lastValidBlockHeight: number;
  /** Mints this wallet may still get. */
  remaining: number;
  configuration: MintConfiguration;
}

export async function mint(options: MintOptions): Promise<MintResult> {
  const fetchImpl: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');
  const url = `${base}/x404_mint/${encodeURIComponent(options.name)}`;
  // The wallet's address is needed first only to ask about it: otherwise the gate is read before the wallet is touched.
  const early = options.checkEligibility ? await resolveSigner(options.signer) : undefined;
  const configuration = await mintConfiguration({ baseUrl: base, name: options.name, fetch: fetchImpl, signal: options.signal, wallet: early?.address });
  const signer = early ?? (await resolveSigner(options.signer));
  if (configuration.wallet && !configuration.wallet.eligible) {
    const { error, message } = configuration.wallet;
    throw new X404Error(error ?? 'UNEXPECTED_RESPONSE', message ?? `This wallet may not mint ${configuration.name} now`, 0, { ...configuration.wallet });
  }

  let unsigned: Uint8Array;
  if (configuration.program === 'spl-token' || configuration.program === 'token-2022') {
    const blockhash = options.blockhash ?? (await latestBlockhash(fetchImpl, options.rpcUrl, options.signal));
    unsigned = await tokenMintTransaction({ configuration, wallet: signer.address, blockhash, computeUnitLimit: options.computeUnitLimit });
  } else {
    if (options.transaction === undefined) throw new X404Error('SIGNING_ERROR', `Mint ${configuration.name} is a ${configuration.program} mint: build its transaction with the Metaplex client and pass it as \`transaction\``);
    unsigned = options.transaction;
  }

  let signed: Uint8Array;
  try {
    signed = await signAsFeePayer(unsigned, signer, 'secretKey' in options.signer);
  } catch (error) {
    throw new X404Error('SIGNING_ERROR', `The wallet did not sign the mint transaction: ${(error as Error).message}`, 0, undefined, { cause: error });
  }

  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.lat !== undefined) headers['X-Lat'] = options.lat;
  if (options.long !== undefined) headers['X-Long'] = options.long;
  const reply = await request(fetchImpl, url, { method: 'POST', headers, body: JSON.stringify({ transaction: base64(signed) }), ...(options.signal ? { signal: options.signal } : {}) });
  const body = reply.body as { signature?: unknown; transaction?: unknown; lastValidBlockHeight?: unknown; remaining?: unknown } | undefined;
  if (typeof body?.signature !== 'string' || typeof body.transaction !== 'string') throw new X404Error('UNEXPECTED_RESPONSE', 'The gate answered 200 without a signature', reply.status, reply.body);
  return { signature: body.signature, transaction: body.transaction, lastValidBlockHeight: Number(body.lastValidBlockHeight), remaining: Number(body.remaining), configuration };
}

export interface MintAndConfirmOptions extends MintOptions {
  /** Where the transaction's status is read (getSignatureStatuses, getBlockHeight): required here. */
  rpcUrl: string;
  /** Default 'confirmed'. */
  commitment?: 'confirmed' | 'finalized';
  /** Between status polls; default 500 ms. */
  intervalMs?: number;
}

/**
 * `mint()`, then waits until the transaction is confirmed (polling getSignatureStatuses over HTTP):
 * resolves once it is, throws TRANSACTION_FAILED when it landed with an error, TRANSACTION_EXPIRED
 * when the block height passed the answer's lastValidBlockHeight without it (mint again).
 */
export async function mintAndConfirm(options: MintAndConfirmOptions): Promise<MintResult & { confirmation: Confirmation }> {
  if (typeof options.rpcUrl !== 'string') throw new X404Error('SIGNING_ERROR', 'mintAndConfirm() needs `rpcUrl` to read the transaction\'s status');
  const result = await mint(options);
  const confirmation = await confirmTransaction({
    rpcUrl: options.rpcUrl,
    signature: result.signature,
    lastValidBlockHeight: result.lastValidBlockHeight,
    ...(options.commitment ? { commitment: options.commitment } : {}),
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { ...result, confirmation };
}

/** GET /x404_mint/<name>: the configuration and its counts (issued, reserved). */
export async function mintConfiguration(options: { baseUrl: string; name: string; wallet?: string | undefined; fetch?: Fetch; signal?: AbortSignal | undefined }): Promise<MintConfiguration> {
  const fetchImpl: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const query = options.wallet === undefined ? '' : `?wallet=${encodeURIComponent(options.wallet)}`;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/x404_mint/${encodeURIComponent(options.name)}${query}`;
  const reply = await request(fetchImpl, url, { method: 'GET', ...(options.signal ? { signal: options.signal } : {}) });
  const body = reply.body as Partial<MintConfiguration> | undefined;
  if (!body || !isMintProgram(body.program) || typeof body.signer !== 'string') throw new X404Error('UNEXPECTED_RESPONSE', 'The gate\'s mint configuration is not readable', reply.status, reply.body);
  return body as MintConfiguration;
}

async function request(fetchImpl: Fetch, url: string, init: RequestInit): Promise<{ status: number; body: X404ErrorBody | undefined }> {
  let response: Response;
  try {
    response = await fetchImpl(url, init);
  } catch (error) {
    throw new X404Error('NETWORK_ERROR', `The gate could not be reached: ${(error as Error).message}`, 0, undefined, { cause: error });
  }
  let body: X404ErrorBody | undefined;
  try {
    const parsed: unknown = JSON.parse(await response.text());
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as X404ErrorBody;
  } catch {
    body = undefined;
  }
  if (response.status !== 200) {
    const retry = Number(response.headers.get('retry-after'));
    throw new X404Error(codeFromBody(body), typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`, response.status, body, Number.isFinite(retry) && retry > 0 ? { retryAfterSeconds: retry } : {});
  }
  return { status: response.status, body };
}

async function latestBlockhash(fetchImpl: Fetch, rpcUrl: string | undefined, signal: AbortSignal | undefined): Promise<string> {
  if (rpcUrl === undefined) throw new X404Error('SIGNING_ERROR', 'mint() needs a recent blockhash: pass `blockhash`, or `rpcUrl` to read one');
  let blockhash: unknown;
  try {
    const response = await fetchImpl(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'confirmed' }] }),
      ...(signal ? { signal } : {}),
    });
    blockhash = ((await response.json()) as { result?: { value?: { blockhash?: unknown } } }).result?.value?.blockhash;
  } catch (error) {
    throw new X404Error('NETWORK_ERROR', `The RPC node could not be read: ${(error as Error).message}`, 0, undefined, { cause: error });
  }
  if (typeof blockhash !== 'string') throw new X404Error('NETWORK_ERROR', 'The RPC node answered getLatestBlockhash without a blockhash');
  return blockhash;
}

/**
 * The token templates' transaction (docs/minting.md, "spl-token and token-2022"), unsigned: the
 * fee payer's signature slot and the gate's, both zero. Keys in the order the runtime wants them:
 * the wallet (writable signer), the gate (read-only signer), the ATA and the mint (writable), then
 * the programs (read-only).
 */
export async function tokenMintTransaction(input: { configuration: MintConfiguration; wallet: string; blockhash: string; computeUnitLimit?: number | undefined }): Promise<Uint8Array> {
  const { configuration, wallet } = input;
  if (configuration.mint === undefined || configuration.amount === undefined) throw new TypeError('not a token template');
  const tokenProgram = configuration.program === 'token-2022' ? PROGRAM_IDS.token2022 : PROGRAM_IDS.token;
  const ata = await associatedTokenAddress(wallet, configuration.mint, tokenProgram);
  const budget = input.computeUnitLimit !== undefined;
  const payment = configuration.payment ?? undefined;
  const writable = [wallet, configuration.signer, ata, configuration.mint, ...(payment ? [payment.destination] : [])];
  const keys = [...writable, PROGRAM_IDS.system, tokenProgram, PROGRAM_IDS.associatedToken, ...(budget ? [PROGRAM_IDS.computeBudget] : [])];
  const index = (address: string): number => keys.indexOf(address);
  const instructions: CompiledInstruction[] = [];
  if (budget) {
    const data = new Uint8Array(5);
    data[0] = 2; // SetComputeUnitLimit(u32)
    new DataView(data.buffer).setUint32(1, input.computeUnitLimit!, true);
    instructions.push({ programIdIndex: index(PROGRAM_IDS.computeBudget), accountIndexes: new Uint8Array(), data });
  }
  if (payment) {
    // The mint's price: System Program Transfer (u32 2, u64 lamports) from the wallet to the destination.
    const data = new Uint8Array(12);
    data[0] = 2;
    new DataView(data.buffer).setBigUint64(4, BigInt(payment.lamports), true);
    instructions.push({ programIdIndex: index(PROGRAM_IDS.system), accountIndexes: Uint8Array.from([0, index(payment.destination)]), data });
  }
  instructions.push({
    programIdIndex: index(PROGRAM_IDS.associatedToken),
    accountIndexes: Uint8Array.from([0, index(ata), 0, index(configuration.mint), index(PROGRAM_IDS.system), index(tokenProgram)]),
    data: Uint8Array.from([1]), // CreateIdempotent
  });
  const mintTo = new Uint8Array(9);
  mintTo[0] = 7; // MintTo(u64)
  new DataView(mintTo.buffer).setBigUint64(1, BigInt(configuration.amount), true);
  instructions.push({ programIdIndex: index(tokenProgram), accountIndexes: Uint8Array.from([index(configuration.mint), index(ata), 1]), data: mintTo });
  const message: Message = {
    version: 'legacy',
    header: { numRequiredSignatures: 2, numReadonlySignedAccounts: 1, numReadonlyUnsignedAccounts: keys.length - writable.length },
    accountKeys: keys.map((key) => bs58.decode(key)),
    recentBlockhash: bs58.decode(input.blockhash),
    instructions,
    lookups: [],
  };
  return encodeTransaction([new Uint8Array(64), new Uint8Array(64)], encodeMessage(message));
}

/** A keypair signs the message itself; a wallet signs the whole transaction (and may add to it, as Lighthouse does). */
async function signAsFeePayer(unsigned: Uint8Array, signer: Awaited<ReturnType<typeof resolveSigner>>, isKeypair: boolean): Promise<Uint8Array> {
  const tx = decodeTransaction(unsigned);
  if (bs58.encode(tx.message.accountKeys[0]!) !== signer.address) throw new TypeError('the transaction\'s fee payer is not the wallet');
  if (isKeypair && signer.sign) {
    const signatures = tx.signatures.slice();
    signatures[0] = await signer.sign(tx.messageBytes);
    return encodeTransaction(signatures, tx.messageBytes);
  }
  if (!signer.signTransaction) throw new TypeError('the wallet cannot sign transactions (signTransaction)');
  return signer.signTransaction(unsigned);
}

/** The ATA: the program address of [owner, token program, mint] under the ATA program (WebCrypto SHA-256, off-curve by @noble/ed25519). */
export async function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): Promise<string> {
  const seeds = [bs58.decode(owner), bs58.decode(tokenProgram), bs58.decode(mint)];
  const program = bs58.decode(PROGRAM_IDS.associatedToken);
  const marker = new TextEncoder().encode('ProgramDerivedAddress');
  for (let bump = 255; bump >= 0; bump--) {
    const input = concatBytes(...seeds, [bump], program, marker);
    const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
    if (!isOnCurve(hash)) return bs58.encode(hash);
  }
  throw new Error('no program address found');
}

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

