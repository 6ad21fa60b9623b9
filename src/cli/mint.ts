import { parseArgs } from 'node:util';
import { MINT_PROGRAMS } from '../contract/mint.js';
import { mint, mintAndConfirm, mintConfiguration, X404Error } from '../sdk/index.js';
import { EXIT, httpUrlOption, printProgress, printResult, readKeypairFile, refusalExit, UsageError } from './io.js';

const DEFAULT_URL = 'http://localhost:3000';

export const MINT_HELP = `Usage: x404 mint <mint> --keypair <file> [--url <gate>] [--rpc <url> | --blockhash <hash>] [--confirm] [options]

Mints once through a gate that co-signs (POLICIES_FILE "mints"): reads the mint's configuration,
builds its transaction (${MINT_PROGRAMS.filter((program) => !program.includes('candy')).join(', ')} templates; candy mints are built with the
Metaplex client, see docs/minting.md), signs it with the keypair (the fee payer and minter), posts
it and prints the signature the gate sent.

  --url <gate>        the gate's base URL (default $X404_URL, else ${DEFAULT_URL})
  <mint>, --name <mint>  the mint's name, as in /x404_mint/<name>
  --keypair <file>    Solana keypair JSON (64 numbers): the wallet that pays and receives
  --rpc <url>         an RPC endpoint to read a recent blockhash from, at confirmed (default $SOLANA_RPC_URL)
  --blockhash <hash>  a recent blockhash (getLatestBlockhash at confirmed) instead of --rpc
  --compute-unit-limit <n>  add SetComputeUnitLimit(n)
  --lat <n> --long <n>  your position, when the mint's rule asks for one
  --confirm           wait until the transaction is confirmed (polls --rpc); exit 1 if it failed,
                      3 if its blockhash expired without it (mint again)
  --json              print {signature, transaction, lastValidBlockHeight, remaining} as JSON
  -q, --quiet         no progress on stderr`;

export const MINT_STATUS_HELP = `Usage: x404 mint-status <mint> [--url <gate>] [--wallet <address>] [--json]

Shows a mint's configuration and counts: issued (confirmed on-chain), reserved (co-signed, sent,
not yet confirmed or expired), supply, price and on-chain cap; with --wallet, whether that wallet
may mint now and how many more it may get.`;

/** Gate answers that mean "try again later" rather than "no". */
const TRANSIENT = new Set(['NETWORK_ERROR', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'INTERNAL_ERROR', 'BLOCKHASH_EXPIRED', 'TRANSACTION_EXPIRED', 'BLOCKHASH_NOT_CONFIRMED', 'MINT_RECOUNTING']);

const gateUrl = (value: string | undefined): string => httpUrlOption('url', value ?? process.env.X404_URL ?? DEFAULT_URL);

function failed(error: unknown, json: boolean): number {
  if (!(error instanceof X404Error)) throw error;
  const where = error.status ? ` (HTTP ${error.status})` : '';
  const reason = typeof error.body?.reason === 'string' ? ` [${error.body.reason}]` : '';
  printProgress(`✗ ${error.code}${where}${reason}: ${error.message}`);
  if (json && error.body) printResult(JSON.stringify(error.body));
  return refusalExit(error, TRANSIENT);
}

export async function mintCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      name: { type: 'string' },
      keypair: { type: 'string' },
      rpc: { type: 'string' },
      blockhash: { type: 'string' },
      'compute-unit-limit': { type: 'string' },
      lat: { type: 'string' },
      long: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      confirm: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    printResult(MINT_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1 || (positionals.length === 1 && values.name !== undefined && values.name !== positionals[0])) throw new UsageError('name one mint: x404 mint <mint>');
  const name = positionals[0] ?? values.name;
  if (name === undefined) throw new UsageError('missing the mint\'s name: x404 mint <mint>');
  if (values.keypair === undefined) throw new UsageError('missing --keypair');
  const rpc = values.rpc ?? (values.blockhash === undefined ? process.env.SOLANA_RPC_URL?.split(',')[0]?.trim() || undefined : undefined);
  if (rpc === undefined && values.blockhash === undefined) throw new UsageError('a recent blockhash is needed: pass --rpc <url> (or set SOLANA_RPC_URL) or --blockhash <hash>');
  if (values.confirm && rpc === undefined) throw new UsageError('--confirm reads the transaction\'s status: pass --rpc <url> (or set SOLANA_RPC_URL)');
  const units = values['compute-unit-limit'];
  if (units !== undefined && !/^\d{1,7}$/.test(units)) throw new UsageError('--compute-unit-limit must be a whole number of compute units');
  const secretKey = readKeypairFile(values.keypair as string);
  const progress = values.quiet ? () => {} : printProgress;
  try {
    progress(`… Minting ${name}`);
    const options = {
      baseUrl: gateUrl(values.url),
      name,
      signer: { secretKey },
      ...(values.blockhash === undefined ? {} : { blockhash: values.blockhash }),
      ...(rpc === undefined ? {} : { rpcUrl: rpc }),
      ...(units === undefined ? {} : { computeUnitLimit: Number(units) }),
      ...(values.lat === undefined ? {} : { lat: values.lat }),
      ...(values.long === undefined ? {} : { long: values.long }),
    };
    const confirmed = values.confirm ? await mintAndConfirm({ ...options, rpcUrl: rpc! }) : undefined;
    const result = confirmed ?? (await mint(options));
    progress(`✓ Co-signed and sent; it cannot land after block height ${result.lastValidBlockHeight}; ${result.remaining} more for this wallet`);
    if (confirmed) progress(`✓ Confirmed (${confirmed.confirmation.confirmationStatus}) in slot ${confirmed.confirmation.slot}`);
    printResult(values.json ? JSON.stringify({ signature: result.signature, transaction: result.transaction, lastValidBlockHeight: result.lastValidBlockHeight, remaining: result.remaining }) : result.signature);
    return EXIT.ok;
  } catch (error) {
    return failed(error, values.json);
  }
}

export async function mintStatusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { url: { type: 'string' }, name: { type: 'string' }, wallet: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    printResult(MINT_STATUS_HELP);
    return EXIT.ok;
  }
  const names = [...new Set([...positionals, ...(values.name === undefined ? [] : [values.name])])];
  if (names.length !== 1) throw new UsageError('name one mint: x404 mint-status <mint>');
  try {
    const status = await mintConfiguration({ baseUrl: gateUrl(values.url), name: names[0]!, wallet: values.wallet });
    if (values.json) {
      printResult(JSON.stringify(status));
    } else {
      const supply = status.supply === null ? 'no cap' : String(status.supply);
      printResult(`${status.name} (${status.program}, signer ${status.signer})`);
      printResult(`issued ${status.issued}  reserved ${status.reserved}  supply ${supply}  per wallet ${status.perWallet}`);
      if (status.start !== null || status.end !== null) printResult(`open ${status.start ?? 'now'} → ${status.end ?? 'no end'}`);
      if (status.payment) printResult(`price ${status.payment.lamports} lamports to ${status.payment.destination}`);
      if (status.maxOnchainSupply) printResult(`on-chain supply cap ${status.maxOnchainSupply} base units`);
      if (status.wallet) printResult(`wallet ${status.wallet.address}: ${status.wallet.eligible ? 'may mint' : `refused now (${status.wallet.error})`}, ${status.wallet.remaining} remaining`);
    }
    return EXIT.ok;
  } catch (error) {
    return failed(error, values.json);
  }
}
