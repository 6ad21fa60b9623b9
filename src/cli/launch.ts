import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import bs58 from 'bs58';
import { PROGRAM_IDS } from '../mint/template-programs.js';
import { confirmTransaction, resolveSigner, X404Error } from '../sdk/index.js';
import { encodeMessage, encodeTransaction } from '../transaction/encode.js';
import type { CompiledInstruction, Message } from '../transaction/message.js';
import { EXIT, expandHome, httpUrlOption, printProgress, printResult, readKeypairFile, UsageError } from './io.js';

/**
 * A newcomer's first launch from the terminal (docs/minting.md, "Launch your own mint"): a Solana
 * keypair file, SOL from a faucet (`requestAirdrop`), and a token mint whose mint authority is the
 * gate's signer, with the `"mints"` entry to paste. Plain JSON-RPC over HTTP, documented methods
 * only, so the local chain, devnet and any provider work alike.
 */
export const WALLET_HELP = `Usage: x404 keys solana --out <file> [--force]

Writes a new Solana keypair file, as solana-keygen writes it (a JSON array of 64 numbers, mode
0600), and prints its address: a wallet, or a mint's co-signing key (POLICIES_FILE "signer").`;

export const AIRDROP_HELP = `Usage: x404 airdrop <address> | --keypair <file> [--sol <n>] [--rpc <url>]

Asks the RPC node's faucet for SOL (requestAirdrop: the local chain, devnet, testnet; mainnet has
none) and waits until it is confirmed.

  --sol <n>        how much (default 1)
  --rpc <url>      the RPC endpoint (default $SOLANA_RPC_URL)`;

export const MINT_CREATE_HELP = `Usage: x404 mint-create --keypair <payer> --signer <file> [--rpc <url>] [options]

Creates a token mint whose mint authority is the gate's signer key (created at <file> when it does
not exist), paid by --keypair, waits until it is confirmed, and prints the "mints" entry to paste
into POLICIES_FILE.

  --keypair <file>     Solana keypair JSON: pays the fee and the mint account's rent
  --signer <file>      the gate's co-signing keypair file (POLICIES_FILE "signer"); made if missing
  --program <p>        spl-token (default) or token-2022
  --decimals <n>       the mint's decimals (default 0)
  --name <mint>        the entry's name (default genesis)
  --rule <rule>        the entry's rule (default launch)
  --amount <n>         base units per mint in the entry (default 1)
  --rpc <url>          the RPC endpoint (default $SOLANA_RPC_URL)`;

const LAMPORTS_PER_SOL = 1_000_000_000;
/** spl-token's Mint account; Token-2022's without extensions is the same size. */
const MINT_SPACE = 82;

const rpcUrl = (value: string | undefined): string => {
  const url = value ?? process.env.SOLANA_RPC_URL?.split(',')[0]?.trim();
  if (!url) throw new UsageError('an RPC endpoint is needed: pass --rpc <url> (or set SOLANA_RPC_URL)');
  return httpUrlOption('rpc', url);
};

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  let body: { result?: T; error?: { code?: number; message?: string } };
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new X404Error('NETWORK_ERROR', `the RPC node could not be read (${method}): ${(error as Error).message}`);
  }
  if (body.error !== undefined || !('result' in body)) throw new X404Error('RPC_ERROR', `the RPC node refused ${method}: ${body.error?.message ?? 'no result'}${body.error?.code === -32601 ? ' (this node has no such method)' : ''}`);
  return body.result as T;
}

/** Writes a solana-keygen file (mode 0600); refuses to replace one unless `force`. Returns its address. */
export function writeSolanaKeypair(path: string, force: boolean): string {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url');
  const key = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  try {
    writeFileSync(expandHome(path), JSON.stringify([...seed, ...key]), { mode: 0o600, flag: force ? 'w' : 'wx' });
    chmodSync(expandHome(path), 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${path} exists; pass --force to replace it`);
    throw new UsageError(`cannot write ${path}: ${code ?? (error as Error).message}`);
  } finally {
    seed.fill(0);
  }
  return bs58.encode(key);
}

export async function walletCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { out: { type: 'string' }, force: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } }, strict: true });
  if (values.help) {
    printResult(WALLET_HELP);
    return EXIT.ok;
  }
  if (values.out === undefined) throw new UsageError('missing --out <file>');
  const address = writeSolanaKeypair(values.out, values.force);
  printProgress(`✓ Wrote a new Solana keypair to ${values.out} (mode 0600)`);
  printResult(address);
  return EXIT.ok;
}

export async function airdropCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { keypair: { type: 'string' }, sol: { type: 'string', default: '1' }, rpc: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    printResult(AIRDROP_HELP);
    return EXIT.ok;
  }
  if ((positionals.length === 1) === (values.keypair !== undefined) || positionals.length > 1) throw new UsageError('name the wallet once: x404 airdrop <address>, or --keypair <file>');
  const address = positionals[0] ?? (await resolveSigner({ secretKey: readKeypairFile(values.keypair!) })).address;
  if (!isAddress(address)) throw new UsageError(`${address} is not a Solana address`);
  const sol = Number(values.sol);
  if (!Number.isFinite(sol) || sol <= 0 || sol > 1000) throw new UsageError('--sol must be a number of SOL above 0');
  const url = rpcUrl(values.rpc);
  try {
    const { lastValidBlockHeight } = (await rpc<{ value: { lastValidBlockHeight: number } }>(url, 'getLatestBlockhash', [{ commitment: 'confirmed' }])).value;
    const signature = await rpc<string>(url, 'requestAirdrop', [address, Math.round(sol * LAMPORTS_PER_SOL), { commitment: 'confirmed' }]);
    printProgress(`… Airdrop of ${sol} SOL to ${address} sent; waiting for confirmation`);
    // The faucet's transaction uses a blockhash at least as new as the one read before it.
    await confirmTransaction({ rpcUrl: url, signature, lastValidBlockHeight: lastValidBlockHeight + 300 });
    printProgress(`✓ ${address} received ${sol} SOL`);
    printResult(signature);
    return EXIT.ok;
  } catch (error) {
    return chainFailure(error);
  }
}

export async function mintCreateCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      keypair: { type: 'string' },
      signer: { type: 'string' },
      program: { type: 'string', default: 'spl-token' },
      decimals: { type: 'string', default: '0' },
      name: { type: 'string', default: 'genesis' },
      rule: { type: 'string', default: 'launch' },
      amount: { type: 'string', default: '1' },
      rpc: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    printResult(MINT_CREATE_HELP);
    return EXIT.ok;
  }
  const missing = (['keypair', 'signer'] as const).filter((option) => values[option] === undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((option) => `--${option}`).join(', ')}`);
  if (values.program !== 'spl-token' && values.program !== 'token-2022') throw new UsageError('--program must be spl-token or token-2022');
  const decimals = Number(values.decimals);
  if (!/^\d{1,3}$/.test(values.decimals) || decimals > 255) throw new UsageError('--decimals must be a whole number from 0 to 255');
  if (!/^[1-9]\d{0,19}$/.test(values.amount)) throw new UsageError('--amount must be a whole number of base units above 0');
  const url = rpcUrl(values.rpc);
  const payer = await resolveSigner({ secretKey: readKeypairFile(values.keypair!) });
  let signerAddress: string;
  if (existsSync(expandHome(values.signer!))) {
    signerAddress = (await resolveSigner({ secretKey: readKeypairFile(values.signer!) })).address;
  } else {
    signerAddress = writeSolanaKeypair(values.signer!, false);
    printProgress(`✓ Wrote the gate's signer key to ${values.signer} (mode 0600): ${signerAddress}`);
  }
  const mintKey = await resolveSigner({ secretKey: newSecretKey() });
  const tokenProgram = values.program === 'token-2022' ? PROGRAM_IDS.token2022 : PROGRAM_IDS.token;
  try {
    const rent = await rpc<number>(url, 'getMinimumBalanceForRentExemption', [MINT_SPACE, { commitment: 'confirmed' }]);
    const { blockhash, lastValidBlockHeight } = (await rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(url, 'getLatestBlockhash', [{ commitment: 'confirmed' }])).value;
    const message = encodeMessage(createMintMessage({ payer: payer.address, mint: mintKey.address, authority: signerAddress, tokenProgram, decimals, rent, blockhash }));
    const signed = encodeTransaction([await payer.sign!(message), await mintKey.sign!(message)], message);
    printProgress(`… Creating ${values.program} mint ${mintKey.address} (mint authority ${signerAddress})`);
    const signature = await rpc<string>(url, 'sendTransaction', [Buffer.from(signed).toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }]);
    await confirmTransaction({ rpcUrl: url, signature, lastValidBlockHeight });
    printProgress(`✓ Mint ${mintKey.address} created (${signature}); paste this entry under "mints" in POLICIES_FILE:`);
    const entry = { [values.name]: { rule: values.rule, signer: values.signer, program: values.program, mint: mintKey.address, amount: values.amount, per_wallet: 1 } };
    printResult(JSON.stringify(entry, null, 2));
    return EXIT.ok;
  } catch (error) {
    return chainFailure(error);
  }
}

/** CreateAccount (the mint's rent, owned by the token program), then InitializeMint2 with the signer as mint authority, no freeze authority. */
function createMintMessage(input: { payer: string; mint: string; authority: string; tokenProgram: string; decimals: number; rent: number; blockhash: string }): Message {
  const keys = [input.payer, input.mint, PROGRAM_IDS.system, input.tokenProgram];
  const create = new Uint8Array(52);
  const view = new DataView(create.buffer);
  view.setUint32(0, 0, true); // SystemInstruction::CreateAccount
  view.setBigUint64(4, BigInt(input.rent), true);
  view.setBigUint64(12, BigInt(MINT_SPACE), true);
  create.set(bs58.decode(input.tokenProgram), 20);
  const initialize = new Uint8Array(35);
  initialize[0] = 20; // TokenInstruction::InitializeMint2
  initialize[1] = input.decimals;
  initialize.set(bs58.decode(input.authority), 2);
  initialize[34] = 0; // no freeze authority
  const instructions: CompiledInstruction[] = [
    { programIdIndex: 2, accountIndexes: Uint8Array.from([0, 1]), data: create },
    { programIdIndex: 3, accountIndexes: Uint8Array.from([1]), data: initialize },
  ];
  return {
    version: 'legacy',
    header: { numRequiredSignatures: 2, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
    accountKeys: keys.map((key) => bs58.decode(key)),
    recentBlockhash: bs58.decode(input.blockhash),
    instructions,
    lookups: [],
  };
}

function isAddress(text: string): boolean {
  try {
    return bs58.decode(text).length === 32;
  } catch {
    return false;
  }
}

function newSecretKey(): Uint8Array {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return Uint8Array.from([...Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url'), ...Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url')]);
}

function chainFailure(error: unknown): number {
  if (!(error instanceof X404Error)) throw error;
  printProgress(`✗ ${error.code}: ${error.message}`);
  return error.code === 'NETWORK_ERROR' ? EXIT.unavailable : EXIT.refused;
}
