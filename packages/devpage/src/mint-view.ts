/**
 * The watch page's co-signed mint (packages/devpage/src/page.html, the "Co-signed mint" view): mints once
 * with the SDK's mint(), exactly as a page would, and shows each step as it happened — the mint's
 * configuration, the transaction the SDK built (decoded), the wallet's signature, the gate's
 * checks and answer with its co-signature checked here, the JSON-RPC calls the gate made while it
 * decided, the confirmation and the wallet's new balance. It records rather than re-implements:
 * mint() gets a fetch that keeps a copy of every exchange and a wallet that keeps what it signed;
 * the page's own calls to the local chain (confirmation, balance) are shown as sent.
 */
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { strictEd25519Refusal, mint, mintConfiguration, resolveSigner, X404Error, type MintConfiguration, type MintResult, type WalletSigner } from '../../../dist/src/sdk/index.js';
import { decodeTransaction, encodeTransaction } from '../../../dist/src/transaction/index.js';
import type { Catalogue, DemoWallet } from './catalogue.js';
import { addressNode, callCount, chainCallsSince, chainCallsTable, chainMark, type ChainCall } from './chain-calls.js';
import { $, columns, el, pre, pretty, prettyText, statusBadge, step } from './dom.js';
import { describeTransaction, type DescribedTransaction } from './mint-transaction.js';

/** Asked of the SDK, so the transaction shows the optional Compute Budget instruction too (the simulation reports what a mint uses). */
const COMPUTE_UNIT_LIMIT = 100_000;
const CONFIRM_POLL_MS = 400;
const CONFIRM_GIVE_UP_MS = 30_000;
const STEPS = ['mint-config', 'mint-transaction', 'mint-signature', 'mint-answer', 'mint-chain', 'mint-confirmation', 'mint-balance'] as const;
/** The methods a co-sign calls besides its rule's reads (docs/minting.md, "What the gate asks the RPC"). */
const MINT_METHODS = new Set(['isBlockhashValid', 'getLatestBlockhash', 'simulateTransaction', 'sendTransaction', 'getSignatureStatuses']);

interface Exchange {
  method: string;
  url: string;
  requestBody: string | undefined;
  status: number;
  bodyText: string;
  ms: number;
}

interface Signed {
  /** What the SDK handed the wallet. */
  unsigned: Uint8Array;
  /** What the wallet handed back. */
  signed: Uint8Array;
}

let catalogue: Catalogue;
const configurations = new Map<string, MintConfiguration>();

/** Offers the demo mints this gate serves (GET /x404_mint/<name> answers) and the demo wallets. */
export async function setUpMintView(demo: Catalogue): Promise<void> {
  catalogue = demo;
  const notice = $('#mint-notice');
  if (demo.chainUrl === undefined) {
    notice.textContent = `The mint view needs the embedded local chain: the gate reads ${demo.rpcUrl} (SOLANA_RPC_URL), where the demo mints do not exist.`;
    return;
  }
  const found = await Promise.all(demo.mints.names.map((name) => mintConfiguration({ baseUrl: location.origin, name }).catch(() => undefined)));
  for (const configuration of found) if (configuration) configurations.set(configuration.name, configuration);
  if (configurations.size === 0) {
    notice.textContent = `This gate has none of the demo mints (${demo.mints.names.join(', ')}): its POLICIES_FILE is not the demo's.`;
    return;
  }
  const mintSelect = $<HTMLSelectElement>('#mint-name');
  for (const configuration of configurations.values()) mintSelect.append(el('option', { value: configuration.name }, `${configuration.name} · ${configuration.program}`));
  mintSelect.addEventListener('change', showConfigurationHint);
  showConfigurationHint();

  const walletSelect = $<HTMLSelectElement>('#mint-wallet');
  for (const wallet of demo.wallets) walletSelect.append(el('option', { value: wallet.name, title: wallet.publicKey }, `${wallet.name} — ${wallet.about}`));
  walletSelect.value = demo.mints.tries.passes;
  const tryButton = (name: string, className: string): HTMLElement => {
    const button = el('button', { type: 'button', class: className, title: className === 'passes' ? 'passes the mint\'s rule' : 'fails the mint\'s rule' }, name);
    button.addEventListener('click', () => (walletSelect.value = name));
    return button;
  };
  $('#mint-tries').replaceChildren('Try: ', tryButton(demo.mints.tries.passes, 'passes'), ...demo.mints.tries.fails.map((name) => tryButton(name, 'fails')));

  $('#mint-controls').addEventListener('submit', (event) => {
    event.preventDefault();
    const button = $<HTMLButtonElement>('#mint-button');
    button.disabled = true;
    runMint()
      .catch((error: unknown) => (notice.textContent = `The page failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (button.disabled = false));
  });
  $<HTMLButtonElement>('#mint-button').disabled = false;
}

function showConfigurationHint(): void {
  const configuration = configurations.get($<HTMLSelectElement>('#mint-name').value);
  if (!configuration) return;
  const condition = configuration.rule !== undefined ? `the rule ${configuration.rule}` : `${configuration.feature} under its policy ${configuration.policy}`;
  const token = catalogue.labels[configuration.mint ?? '']?.replace(/^mint /, '') ?? configuration.mint;
  const supply = configuration.supply === null ? 'no cap' : `supply ${configuration.supply}`;
  $('#mint-about').textContent = `${configuration.amount} ${token} a mint (mint ${configuration.mint}), ${configuration.perWallet} per wallet (${supply}), for wallets that pass ${condition}.`;
}

async function runMint(): Promise<void> {
  const name = $<HTMLSelectElement>('#mint-name').value;
  const wallet = catalogue.wallets.find((candidate) => candidate.name === $<HTMLSelectElement>('#mint-wallet').value) as DemoWallet;
  const chainUrl = catalogue.chainUrl as string;
  $('#mint-notice').textContent = '';
  for (const card of STEPS) step(card, 'waiting');
  step('mint-config', 'running', 'Reading the mint\'s configuration…');

  const exchanges: Exchange[] = [];
  let gateWindow: { from: number; to: number } | undefined;
  const recordingFetch = async (input: string, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    const cosign = method === 'POST' && input.startsWith(`${location.origin}/x404_mint/`);
    if (input === chainUrl) step('mint-transaction', 'running', 'Reading a recent blockhash…');
    if (cosign) step('mint-answer', 'running', 'The gate is checking…');
    // The gate's calls are those the local chain answers while the co-sign request is open.
    const from = cosign ? await chainMark() : 0;
    const started = performance.now();
    const response = await fetch(input, init);
    const bodyText = await response.clone().text();
    exchanges.push({ method, url: input, requestBody: typeof init?.body === 'string' ? init.body : undefined, status: response.status, bodyText, ms: performance.now() - started });
    if (cosign) gateWindow = { from, to: await chainMark() };
    return response;
  };
  const keypair = await resolveSigner({ secretKey: Uint8Array.from(wallet.secretKey) });
  let signed: Signed | undefined;
  // A wallet as an adapter exposes it: it signs the whole transaction, as the fee payer, first.
  const signer: WalletSigner = {
    publicKey: keypair.address,
    async signTransaction(unsigned) {
      step('mint-signature', 'running', 'The wallet is signing…');
      const tx = decodeTransaction(unsigned);
      const signatures = tx.signatures.slice();
      signatures[0] = await keypair.sign!(tx.messageBytes);
      const bytes = encodeTransaction(signatures, tx.messageBytes);
      signed = { unsigned: Uint8Array.from(unsigned), signed: bytes };
      return bytes;
    },
  };

  let result: MintResult | undefined;
  let failure: unknown;
  try {
    result = await mint({ baseUrl: location.origin, name, signer, rpcUrl: chainUrl, computeUnitLimit: COMPUTE_UNIT_LIMIT, fetch: recordingFetch });
  } catch (error) {
    failure = error;
  }

  const configExchange = exchanges.find((exchange) => exchange.method === 'GET' && exchange.url.startsWith(location.origin));
  const blockhashExchange = exchanges.find((exchange) => exchange.url === chainUrl);
  const cosignExchange = exchanges.find((exchange) => exchange.method === 'POST' && exchange.url.startsWith(location.origin));
  const configuration = configExchange?.status === 200 ? (JSON.parse(configExchange.bodyText) as MintConfiguration) : undefined;
  const described = signed ? describeTransaction(signed.unsigned) : undefined;
  const gateCalls = gateWindow ? (await chainCallsSince(gateWindow.from)).calls.filter((call) => call.seq <= gateWindow!.to) : [];

  showConfiguration(configExchange, name, failure);
  showTransaction(described, blockhashExchange, configuration, wallet);
  await showWalletSignature(signed, described, wallet.publicKey);
  await showAnswer(cosignExchange, name, result, failure, signed, configuration, gateCalls);
  showGateCalls(gateCalls, cosignExchange !== undefined);
  if (!result || !described) {
    step('mint-confirmation', 'skipped', result ? '' : 'Nothing to confirm: the gate did not co-sign.');
    step('mint-balance', 'skipped', result ? '' : 'Nothing minted.');
    return;
  }
  const confirmed = await showConfirmation(result);
  await showBalance(result, described, wallet, configuration, confirmed);
}

function showConfiguration(exchange: Exchange | undefined, name: string, failure: unknown): void {
  if (!exchange) {
    step('mint-config', 'failed', errorLine(failure) ?? 'No answer.', thrown(failure));
    return;
  }
  const ok = exchange.status === 200;
  const body = ok ? (JSON.parse(exchange.bodyText) as MintConfiguration) : undefined;
  const summary = body
    ? ` ${body.program}, ${body.amount} a mint, ${body.perWallet} per wallet, co-signed by ${body.signer}; issued ${body.issued}, reserved ${body.reserved}${body.supply === null ? '' : `, supply ${body.supply}`}`
    : '';
  step('mint-config', ok ? 'done' : 'failed', el('span', {}, `GET /x404_mint/${name} → `, statusBadge(exchange.status), summary), pre(prettyText(exchange.bodyText), 'mint-configuration'));
}

function showTransaction(described: DescribedTransaction | undefined, blockhashExchange: Exchange | undefined, configuration: MintConfiguration | undefined, wallet: DemoWallet): void {
  if (!described) {
    step('mint-transaction', 'skipped', 'No transaction was built.', ...(blockhashExchange ? [rpcExchange('The blockhash read', blockhashExchange)] : []));
    return;
  }
  const role = (key: { index: number; signer: boolean; writable: boolean }): string =>
    `${key.signer ? 'signer' : 'not a signer'}, ${key.writable ? 'writable' : 'read-only'}${key.index === 0 ? ' — the fee payer' : ''}`;
  const keyRows = described.keys.map((key) =>
    el('tr', { 'data-key': key.address }, el('td', {}, String(key.index)), el('td', {}, addressNode(key.address, catalogue.labels)), el('td', { class: key.address === configuration?.signer ? 'role gate-key' : 'role' }, role(key))),
  );
  const instructionRows = described.instructions.map((instruction, index) =>
    el(
      'tr',
      { 'data-instruction': instruction.name },
      el('td', {}, String(index)),
      el('td', {}, el('strong', {}, instruction.name), el('div', { class: 'label' }, catalogue.labels[instruction.program] ?? instruction.program)),
      el(
        'td',
        {},
        ...Object.entries(instruction.args).map(([name, value]) => el('div', { class: 'arg' }, `${name}: `, el('code', {}, value))),
        ...instruction.accounts.map((account) => el('div', { class: 'account' }, el('span', { class: 'role' }, `${account.role}: `), addressNode(account.address, catalogue.labels))),
      ),
    ),
  );
  const gateKey = described.keys.find((key) => key.address === configuration?.signer);
  step(
    'mint-transaction',
    'done',
    `${described.version === 'legacy' ? 'A legacy' : 'A v0'} transaction of ${described.size} bytes: ${described.instructions.map((instruction) => instruction.name).join(', ')}; ` +
      `${described.numRequiredSignatures} signatures required — ${wallet.name}'s (the fee payer) and the gate's key${gateKey ? `, ${gateKey.writable ? 'writable' : 'read-only'}` : ''}; both slots empty.`,
    el('h3', {}, 'Instructions'),
    el('table', { class: 'instructions' }, el('thead', {}, el('tr', {}, el('th', {}, '#'), el('th', {}, 'instruction'), el('th', {}, 'arguments and accounts'))), el('tbody', {}, ...instructionRows)),
    el('h3', {}, 'Account keys'),
    el('table', { class: 'keys' }, el('thead', {}, el('tr', {}, el('th', {}, '#'), el('th', {}, 'address'), el('th', {}, 'role'))), el('tbody', {}, ...keyRows)),
    el('p', { class: 'hint' }, `Recent blockhash `, el('code', {}, described.blockhash), ': the SDK read it from the chain (below); the transaction expires with it, so a reservation can be released.'),
    ...(blockhashExchange ? [rpcExchange('The blockhash read (the page\'s own JSON-RPC call)', blockhashExchange)] : []),
  );
}

async function showWalletSignature(signed: Signed | undefined, described: DescribedTransaction | undefined, address: string): Promise<void> {
  if (!signed || !described) {
    step('mint-signature', 'skipped', 'Nothing was signed.');
    return;
  }
  const signature = decodeTransaction(signed.signed).signatures[0]!;
  const valid = await verifies(signature, described.messageBytes, address);
  step(
    'mint-signature',
    valid ? 'done' : 'failed',
    el('span', { class: `verdict ${valid ? 'ok' : 'bad'}` }, valid ? `Verified in this page against ${address}, over the ${described.messageBytes.length}-byte message` : 'Does not verify against the wallet'),
    el('pre', { class: 'wallet-signature' }, bs58.encode(signature)),
    el('p', { class: 'hint' }, 'Slot 0 of the transaction, the fee payer\'s: its proof of control, so the user approves one thing, the mint. The gate\'s slot (1) is still 64 zero bytes; the gate signs last, after its checks.'),
  );
}

/** The gate's checks in the order it runs them (src/mint/cosign.ts, docs/minting.md "The flow"). */
interface Check {
  id: 'decode' | 'window' | 'signature' | 'counts' | 'rule' | 'reserve' | 'simulate' | 'send';
  text: string;
}

function checksOf(configuration: MintConfiguration | undefined): Check[] {
  const condition = configuration?.rule !== undefined ? `the rule ${configuration.rule}` : configuration?.feature !== undefined ? `${configuration.feature} (policy ${configuration.policy})` : 'the mint\'s rule';
  return [
    { id: 'decode', text: 'the transaction decodes and is exactly the template (no lookup table, no durable nonce, the gate\'s key a read-only signer in its one slot)' },
    { id: 'window', text: 'the time window (start, end)' },
    { id: 'signature', text: 'the fee payer\'s signature, in the verify pool; MintTo\'s destination is its associated token account' },
    { id: 'counts', text: 'the blockhash is valid at confirmed; supply and the wallet\'s count, as a pre-check' },
    { id: 'rule', text: `${condition} for the fee payer, on the chain as it is now` },
    { id: 'simulate', text: 'the transaction simulates cleanly, before the gate signs or reserves anything' },
    { id: 'reserve', text: 'the reservation: the wallet\'s count and the supply, in one atomic step' },
    { id: 'send', text: 'the gate signs and sends' },
  ];
}

/** Which check refused, from the answer's code and the calls the gate made; undefined when the answer does not say (a 503). */
function refusingCheck(body: Record<string, unknown> | undefined, calls: readonly ChainCall[]): Check['id'] | undefined {
  const code = body?.error;
  if (body?.rule !== undefined || body?.failed !== undefined) return 'rule';
  switch (code) {
    case 'INVALID_BODY':
    case 'BODY_TOO_LARGE':
      return 'decode';
    case 'INVALID_TRANSACTION':
      return body?.reason === 'wrong_destination' ? 'signature' : body?.reason === 'duplicate_submission' ? 'reserve' : 'decode';
    case 'MINT_NOT_STARTED':
    case 'MINT_ENDED':
      return 'window';
    case 'INVALID_SIGNATURE':
      return 'signature';
    case 'BLOCKHASH_EXPIRED':
    case 'BLOCKHASH_NOT_CONFIRMED':
    case 'MINT_RECOUNTING':
      return 'counts';
    case 'MINT_LIMIT_REACHED':
    case 'SOLD_OUT':
      // The pre-check refuses before the rule is read; the reservation after it (a concurrent request won).
      return calls.some((call) => !MINT_METHODS.has(call.method)) ? 'reserve' : 'counts';
    case 'SIMULATION_FAILED':
      return 'simulate';
    default:
      return undefined;
  }
}

/** What the chain calls say about a check, when they say something. */
function evidenceOf(id: Check['id'], calls: readonly ChainCall[]): string {
  const of = (method: string): string[] => calls.filter((call) => call.method === method).map((call) => `${method} #${call.seq}: ${call.answer}`);
  switch (id) {
    case 'counts':
      return [...of('isBlockhashValid'), ...of('getLatestBlockhash')].join(' · ');
    case 'rule': {
      const reads = calls.filter((call) => !MINT_METHODS.has(call.method));
      if (reads.length === 0) return '';
      const byMethod = new Map<string, number>();
      for (const call of reads) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
      return `${reads.length} ${reads.length === 1 ? 'read' : 'reads'}: ${[...byMethod].map(([method, count]) => `${method} ×${count}`).join(', ')}`;
    }
    case 'simulate':
      return of('simulateTransaction').join(' · ');
    case 'send':
      return of('sendTransaction').join(' · ');
    default:
      return '';
  }
}

async function showAnswer(
  exchange: Exchange | undefined,
  name: string,
  result: MintResult | undefined,
  failure: unknown,
  signed: Signed | undefined,
  configuration: MintConfiguration | undefined,
  calls: readonly ChainCall[],
): Promise<void> {
  if (!exchange) {
    step('mint-answer', 'skipped', failure ? 'Nothing was sent to the gate.' : '', thrown(failure));
    return;
  }
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(exchange.bodyText) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  const refusedAt = result ? undefined : refusingCheck(body, calls);
  const checks = checksOf(configuration);
  const refusedIndex = checks.findIndex((check) => check.id === refusedAt);
  const checkRows = checks.map((check, index) => {
    const state = result ? 'passed' : refusedAt === undefined ? 'unknown' : index < refusedIndex ? 'passed' : index === refusedIndex ? 'refused' : 'not reached';
    const evidence = state === 'not reached' ? '' : evidenceOf(check.id, calls);
    const mark = state === 'passed' ? '✓' : state === 'refused' ? '✗' : '·';
    return el(
      'li',
      { 'data-check': check.id, 'data-outcome': state },
      el('span', { class: 'mark-cell' }, mark),
      el('span', {}, check.text, state === 'refused' ? el('strong', { class: 'verdict bad' }, ` — refused: ${String(body?.error)}`) : state === 'not reached' ? el('span', { class: 'muted' }, ' — not reached') : ''),
      evidence ? el('div', { class: 'evidence' }, evidence) : undefined,
    );
  });

  const request = exchange.requestBody ? (JSON.parse(exchange.requestBody) as { transaction?: string }) : {};
  const sent = el('div', {}, el('h3', {}, 'The request mint() sent'), pre(`POST /x404_mint/${name}\ncontent-type: application/json\n\n${JSON.stringify(request)}`, 'mint-request'));
  const answer = el('div', {}, el('h3', {}, 'The gate\'s answer'), pre(prettyText(exchange.bodyText), 'mint-answer-body'));
  const parts: Node[] = [el('h3', {}, 'The gate\'s checks, cheapest first'), el('ol', { class: 'checks' }, ...checkRows)];
  if (result && signed && configuration) parts.push(await coSignature(result, signed, configuration));
  else parts.push(noCoSignature(body, calls));
  parts.push(el('div', { class: 'columns' }, sent, answer), thrown(failure));

  const ok = exchange.status === 200 && result !== undefined;
  const line = ok
    ? ` in ${Math.round(exchange.ms)} ms · co-signed and sent · ${result!.remaining} more for this wallet`
    : ` in ${Math.round(exchange.ms)} ms · ${String(body?.error ?? 'no code')}${typeof body?.message === 'string' ? `: ${body.message}` : ''}`;
  step('mint-answer', ok ? 'done' : 'failed', el('span', {}, `POST /x404_mint/${name} → `, statusBadge(exchange.status), line), ...parts);
}

/** The gate's signature in the transaction it sent, checked here: its key, the same message, the wallet's signature untouched. */
async function coSignature(result: MintResult, signed: Signed, configuration: MintConfiguration): Promise<Node> {
  const returned = describeTransaction(Uint8Array.from(atob(result.transaction), (char) => char.charCodeAt(0)));
  const ours = decodeTransaction(signed.signed);
  const gateIndex = returned.keys.findIndex((key) => key.address === configuration.signer);
  const gateSignature = gateIndex >= 0 ? returned.signatures[gateIndex] : undefined;
  const sameMessage = bs58.encode(returned.messageBytes) === bs58.encode(ours.messageBytes);
  const walletUntouched = bs58.encode(returned.signatures[0]!) === bs58.encode(ours.signatures[0]!);
  const valid = gateSignature !== undefined && sameMessage && (await verifies(gateSignature, returned.messageBytes, configuration.signer));
  const idIsWallets = result.signature === bs58.encode(ours.signatures[0]!);
  return el(
    'div',
    { class: 'co-signature' },
    el('h3', {}, `The co-signature (slot ${gateIndex}, the gate's key ${configuration.signer})`),
    el('pre', { class: 'gate-signature' }, gateSignature ? bs58.encode(gateSignature) : '(none)'),
    el(
      'ul',
      { class: 'facts' },
      el('li', { class: `verdict ${valid ? 'ok' : 'bad'}` }, valid ? `Verified in this page against the gate's key ${configuration.signer}` : 'Does not verify against the gate\'s key'),
      el('li', { class: `verdict ${sameMessage ? 'ok' : 'bad'}` }, sameMessage ? 'The message is byte for byte the one the wallet signed' : 'The gate changed the message'),
      el('li', { class: `verdict ${walletUntouched ? 'ok' : 'bad'}` }, walletUntouched ? 'The wallet\'s signature is in slot 0 as it signed it' : 'The wallet\'s signature was replaced'),
      el('li', {}, `signature `, el('code', { class: 'mint-signature' }, result.signature), idIsWallets ? ' — the transaction\'s id, which is the fee payer\'s signature' : ''),
      el('li', {}, `lastValidBlockHeight ${result.lastValidBlockHeight} · remaining `, el('code', { class: 'remaining' }, String(result.remaining))),
    ),
  );
}

function noCoSignature(body: Record<string, unknown> | undefined, calls: readonly ChainCall[]): Node {
  const sentAnything = calls.some((call) => call.method === 'simulateTransaction' || call.method === 'sendTransaction');
  const hasSignature = typeof body?.signature === 'string' || typeof body?.transaction === 'string';
  // A send that failed (503) keeps its reservation (`reserved: true`): the transaction may still land.
  const reserved = body?.reserved === true ? ' Its reservation stays until the chain proves the transaction never landed (its blockhash expired at confirmed, and history does not have it).' : ' Nothing was reserved.';
  return el(
    'p',
    { class: 'no-co-signature verdict bad' },
    `No co-signature: the answer carries ${hasSignature ? 'a signature' : 'no signature and no transaction'}, and the gate ${sentAnything ? 'did call simulateTransaction or sendTransaction' : 'neither simulated nor sent anything'} (its calls below).${reserved}`,
  );
}

function showGateCalls(calls: readonly ChainCall[], posted: boolean): void {
  if (!posted) {
    step('mint-chain', 'skipped', 'Nothing was sent to the gate.');
    return;
  }
  if (calls.length === 0) {
    step('mint-chain', 'done', 'None: the gate decided without reading the chain.');
    return;
  }
  const made = [
    calls.some((call) => call.method === 'isBlockhashValid' || call.method === 'getLatestBlockhash') ? 'the blockhash check' : '',
    calls.some((call) => !MINT_METHODS.has(call.method)) ? 'the rule\'s reads' : '',
    calls.some((call) => call.method === 'simulateTransaction') ? 'the simulation' : '',
    calls.some((call) => call.method === 'sendTransaction') ? 'the send' : '',
  ].filter(Boolean);
  step(
    'mint-chain',
    'done',
    `${callCount(calls)} to the local chain while the gate decided${made.length > 0 ? `: ${made.join(', ')}` : ''}. The gate's tracker (getSignatureStatuses, every 2 s) may appear too.`,
    chainCallsTable(calls, catalogue.labels),
  );
}

interface StatusPoll {
  afterMs: number;
  status: { slot?: number; confirmations?: number | null; confirmationStatus?: string; err?: unknown } | null;
}

/** Polls getSignatureStatuses as a page would (the local chain has no websocket) until confirmed, failed or given up. */
async function showConfirmation(result: MintResult): Promise<boolean> {
  step('mint-confirmation', 'running', 'Polling getSignatureStatuses…');
  const started = performance.now();
  const polls: StatusPoll[] = [];
  let last: StatusPoll['status'] = null;
  let lastRequest = '';
  let lastAnswer = '';
  for (;;) {
    const params = [[result.signature], { searchTransactionHistory: false }];
    const { reply, text } = await chainRpc('getSignatureStatuses', params);
    lastRequest = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params });
    lastAnswer = text;
    last = ((reply.result as { value?: StatusPoll['status'][] } | undefined)?.value?.[0] ?? null) as StatusPoll['status'];
    const poll = { afterMs: performance.now() - started, status: last };
    if (polls.length === 0 || JSON.stringify(polls[polls.length - 1]!.status?.confirmationStatus ?? null) !== JSON.stringify(last?.confirmationStatus ?? null)) polls.push(poll);
    if (last?.err || last?.confirmationStatus === 'confirmed' || last?.confirmationStatus === 'finalized' || poll.afterMs > CONFIRM_GIVE_UP_MS) break;
    await new Promise((resolve) => setTimeout(resolve, CONFIRM_POLL_MS));
  }
  const confirmed = !last?.err && (last?.confirmationStatus === 'confirmed' || last?.confirmationStatus === 'finalized');
  const rows = polls.map((poll) =>
    el('tr', {}, el('td', {}, `${Math.round(poll.afterMs)} ms`), el('td', { class: 'method' }, poll.status?.confirmationStatus ?? 'unknown (null)'), el('td', {}, poll.status ? `slot ${poll.status.slot}${poll.status.err ? `, failed ${JSON.stringify(poll.status.err)}` : ''}` : '')),
  );
  step(
    'mint-confirmation',
    confirmed ? 'done' : 'failed',
    confirmed
      ? el('span', { class: 'verdict ok' }, `${last!.confirmationStatus} in slot ${last!.slot}, ${Math.round(performance.now() - started)} ms after the gate's answer`)
      : el('span', { class: 'verdict bad' }, last?.err ? `Landed and failed: ${JSON.stringify(last.err)}` : `Not confirmed after ${CONFIRM_GIVE_UP_MS / 1000} s`),
    el('table', { class: 'confirmations' }, el('thead', {}, el('tr', {}, el('th', {}, 'after'), el('th', {}, 'confirmationStatus'), el('th', {}, ''))), el('tbody', {}, ...rows)),
    columns(['The last request (the page\'s own JSON-RPC call)', pre(prettyText(lastRequest))], ['Its answer', pre(prettyText(lastAnswer), 'mint-status')]),
    el('p', { class: 'hint' }, 'The gate\'s tracker reads the same statuses every 2 s: confirmed, the reservation becomes a mint (issued); never landed, it is released once the blockhash has expired at confirmed and the node\'s history does not have it.'),
  );
  return confirmed;
}

/** The wallet's token account now (getAccountInfo, jsonParsed) and what the transaction changed (getTransaction's balances). */
async function showBalance(result: MintResult, described: DescribedTransaction, wallet: DemoWallet, configuration: MintConfiguration | undefined, confirmed: boolean): Promise<void> {
  const mintTo = described.instructions.find((instruction) => instruction.name === 'MintTo' || instruction.name === 'MintToChecked');
  const account = mintTo?.accounts.find((entry) => entry.role === 'destination')?.address;
  if (!account || !confirmed) {
    step('mint-balance', 'skipped', 'Not read: the transaction is not confirmed.');
    return;
  }
  const accountParams = [account, { encoding: 'jsonParsed', commitment: 'confirmed' }];
  const transactionParams = [result.signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }];
  const [info, landed] = await Promise.all([chainRpc('getAccountInfo', accountParams), chainRpc('getTransaction', transactionParams)]);
  const parsed = (info.reply.result as { value?: ParsedTokenAccount | null } | undefined)?.value?.data?.parsed?.info;
  const meta = (landed.reply.result as { meta?: TransactionMeta } | undefined)?.meta;
  const accountIndex = described.keys.findIndex((key) => key.address === account);
  const tokenBalance = (balances: TokenBalance[] | undefined): string => balances?.find((balance) => balance.accountIndex === accountIndex)?.uiTokenAmount.uiAmountString ?? '0';
  const before = tokenBalance(meta?.preTokenBalances);
  const after = tokenBalance(meta?.postTokenBalances);
  const mintName = catalogue.labels[configuration?.mint ?? '']?.replace(/^mint /, '') ?? configuration?.mint ?? 'the mint';
  const lamports = meta ? meta.preBalances[0]! - meta.postBalances[0]! : undefined;
  const amount = parsed?.tokenAmount?.uiAmountString;
  step(
    'mint-balance',
    amount !== undefined ? 'done' : 'failed',
    amount !== undefined
      ? el('span', {}, `${wallet.name} now holds `, el('strong', { class: 'balance' }, amount), ` ${mintName} (this transaction: ${before} → ${after})`)
      : `The token account ${account} could not be read.`,
    el(
      'ul',
      { class: 'facts' },
      el('li', {}, 'Token account ', addressNode(account, catalogue.labels)),
      ...(meta && lamports !== undefined
        ? [el('li', {}, `The wallet paid ${lamports.toLocaleString('en-US')} lamports: the fee, ${meta.fee.toLocaleString('en-US')} (5,000 a signature), and ${(lamports - meta.fee).toLocaleString('en-US')} of rent for a token account it did not have before`)]
        : []),
    ),
    columns(['getAccountInfo (jsonParsed) of the token account', pre(prettyText(info.text), 'mint-account')], ['getTransaction: the token balances before and after', pre(pretty({ fee: meta?.fee, preTokenBalances: meta?.preTokenBalances, postTokenBalances: meta?.postTokenBalances }))]),
  );
}

/** getAccountInfo's jsonParsed token account (the fields shown). */
interface ParsedTokenAccount {
  data?: { parsed?: { info?: { mint?: string; owner?: string; tokenAmount?: { amount: string; uiAmountString: string } } } };
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; uiAmountString: string };
}

interface TransactionMeta {
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances?: TokenBalance[];
  postTokenBalances?: TokenBalance[];
}

/** One JSON-RPC call of the page itself to the embedded local chain (CORS, as a validator's RPC allows). */
async function chainRpc(method: string, params: unknown[]): Promise<{ reply: { result?: unknown; error?: unknown }; text: string }> {
  const response = await fetch(catalogue.chainUrl as string, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const text = await response.text();
  return { reply: JSON.parse(text) as { result?: unknown; error?: unknown }, text };
}

function rpcExchange(heading: string, exchange: Exchange): Node {
  return el('div', {}, el('h3', {}, heading), columns([`POST ${exchange.url}`, pre(prettyText(exchange.requestBody ?? ''))], [`HTTP ${exchange.status}, ${Math.round(exchange.ms)} ms`, pre(prettyText(exchange.bodyText))]));
}

/** The gate's rules, not noble's lenient default (ZIP-215): strict checks first, then RFC 8032. */
async function verifies(signature: Uint8Array, message: Uint8Array, address: string): Promise<boolean> {
  const publicKey = bs58.decode(address);
  return strictEd25519Refusal(publicKey, signature) === undefined && (await ed.verifyAsync(signature, message, publicKey, { zip215: false }));
}

function errorLine(failure: unknown): string | undefined {
  if (failure instanceof X404Error) return `mint() threw X404Error ${failure.code}`;
  if (failure instanceof Error) return `mint() threw ${failure.name}: ${failure.message}`;
  return undefined;
}

/** What the SDK handed the page when it failed: the X404Error's fields. */
function thrown(failure: unknown): Node {
  if (failure === undefined) return document.createTextNode('');
  // Its body is the gate's answer, shown beside the request.
  const fields = failure instanceof X404Error ? { name: failure.name, code: failure.code, status: failure.status, message: failure.message } : { error: String(failure) };
  return el('div', {}, el('h3', {}, 'What mint() threw (its body is the gate\'s answer)'), pre(pretty(fields), 'mint-thrown'));
}
