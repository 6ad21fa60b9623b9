/**
 * The watch page of `npm run dev` (packages/devpage/src/page.html). Its sign-in view signs a demo wallet in
 * with the SDK's authenticate(), exactly as a web page would, and shows each step as it happened —
 * the nonce answer, the challenge the wallet was asked to sign, the signature, the JSON-RPC calls
 * the local chain answered meanwhile, the gate's answer and the decoded token. It records rather
 * than re-implements: the SDK gets a fetch that keeps a copy of every exchange and a wallet that
 * keeps what it signed. Its co-signed mint view is mint-view.ts. Runs in the browser as compiled,
 * imports resolved by the page's import map.
 */
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { strictEd25519Refusal, authenticate, decodeTokenClaims, FEATURES, resolveSigner, X404Error, type AuthResult, type Feature, type PolicyFor, type WalletSigner } from '../../../dist/src/sdk/index.js';
import type { Catalogue, DemoWallet } from './catalogue.js';
import { callCount, chainCallsSince, chainCallsTable, chainMark } from './chain-calls.js';
import { $, columns, el, headerTable, pre, pretty, prettyText, statusBadge, step } from './dom.js';
import { setUpMintView } from './mint-view.js';

/** GET /x404_policies: named policies per feature, and rules (docs/rules.md), signed in to at /x404_auth/<rule>. */
interface PolicyListing {
  mode?: string;
  policies?: Record<string, Record<string, { pol?: string; headers?: Record<string, string> }>>;
  rules?: unknown;
}

type Target =
  | { kind: 'feature'; feature: Feature }
  | { kind: 'policy'; feature: Feature; name: string; headers: Record<string, string> }
  | { kind: 'rule'; name: string };

/** What the sign-in names in its path and challenge: the feature, or the rule. */
const pathName = (target: Target): string => (target.kind === 'rule' ? target.name : target.feature);

interface Exchange {
  requestHeaders: Record<string, string>;
  status: number;
  responseHeaders: Record<string, string>;
  bodyText: string;
  ms: number;
}

const SHOWN_RESPONSE_HEADERS = ['x-404-nonce', 'x-404-mechanism', 'cache-control', 'retry-after', 'www-authenticate', 'ratelimit-remaining'];

let catalogue: Catalogue;
let targets: Target[] = [];

async function load(): Promise<void> {
  const [demo, listing] = await Promise.all([
    fetch('/watch/demo.json').then((response) => response.json() as Promise<Catalogue>),
    fetch('/x404_policies').then((response): Promise<PolicyListing> | PolicyListing => (response.ok ? response.json() : {})),
  ]);
  catalogue = demo;
  $('#where').textContent =
    `Development only (npm run dev): the demo wallets' keys are public test keys. Gate: ${location.origin} · chain: ` +
    (demo.recordsChainReads ? `the embedded local chain at ${demo.rpcUrl}, which records every JSON-RPC call it answers.` : `${demo.rpcUrl} (SOLANA_RPC_URL; its calls are not recorded here).`);
  if (!window.isSecureContext) $('#notice').textContent = `Signing needs WebCrypto, which this browser offers only on a secure origin: open http://127.0.0.1:${location.port}/ instead.`;

  targets = FEATURES.map((feature): Target => ({ kind: 'feature', feature }));
  const targetSelect = $<HTMLSelectElement>('#target');
  const featureGroup = el('optgroup', { label: 'Features (policy headers below)' });
  FEATURES.forEach((feature, index) => featureGroup.append(el('option', { value: String(index) }, feature)));
  targetSelect.append(featureGroup);
  const named = Object.entries(listing.policies ?? {}).flatMap(([feature, byName]) =>
    (FEATURES as readonly string[]).includes(feature) ? Object.entries(byName).map(([name, policy]) => ({ kind: 'policy' as const, feature: feature as Feature, name, headers: policy.headers ?? {} })) : [],
  );
  if (named.length > 0) {
    const group = el('optgroup', { label: `Operator policies (POLICIES_FILE, ${listing.mode ?? 'open'} mode)` });
    for (const policy of named) group.append(el('option', { value: String(targets.push(policy) - 1) }, `${policy.feature} · ${policy.name}`));
    targetSelect.append(group);
  }
  const rules = ruleNames(listing.rules);
  if (rules.length > 0) {
    const group = el('optgroup', { label: 'Rules (POLICIES_FILE)' });
    for (const name of rules) group.append(el('option', { value: String(targets.push({ kind: 'rule', name }) - 1) }, name));
    targetSelect.append(group);
  }

  const walletSelect = $<HTMLSelectElement>('#wallet');
  for (const wallet of demo.wallets) walletSelect.append(el('option', { value: wallet.name, title: wallet.publicKey }, `${wallet.name} — ${wallet.about}`));
  targetSelect.addEventListener('change', () => showTarget(true));
  showTarget(true);
  $<HTMLButtonElement>('#sign-in').disabled = false;
  await setUpMintView(demo).catch((error: unknown) => ($('#mint-notice').textContent = `Could not set up the mint: ${error instanceof Error ? error.message : String(error)}`));
}

/** The page's two views; #mint in the address opens the co-signed mint. */
function showView(): void {
  const mint = location.hash === '#mint';
  $('#sign-in-view').hidden = mint;
  $('#mint-view').hidden = !mint;
  $('#tab-sign-in').setAttribute('aria-selected', String(!mint));
  $('#tab-mint').setAttribute('aria-selected', String(mint));
}

/** The rules of /x404_policies: an object keyed by rule name (docs/rules.md). */
function ruleNames(rules: unknown): string[] {
  return rules !== null && typeof rules === 'object' && !Array.isArray(rules) ? Object.keys(rules) : [];
}

function selectedTarget(): Target {
  return targets[Number($<HTMLSelectElement>('#target').value)] as Target;
}

/** Fills the policy box and the wallets to try for the selected feature or policy. */
function showTarget(pickWallet: boolean): void {
  const target = selectedTarget();
  const policyBox = $<HTMLTextAreaElement>('#policy');
  if (target.kind === 'feature') {
    policyBox.disabled = false;
    policyBox.value = pretty(catalogue.policies[target.feature]);
    $('#policy-hint').textContent = 'Edit freely: arrays and objects are sent as JSON, like the SDK\'s policy option.';
  } else if (target.kind === 'policy') {
    policyBox.disabled = true;
    policyBox.value = pretty(target.headers);
    $('#policy-hint').textContent = `Sent as X-404-Policy: ${target.name}; the gate checks the operator's policy, so the page sends no policy headers.`;
  } else {
    policyBox.disabled = true;
    policyBox.value = '';
    $('#policy-hint').textContent = `Signs in at /x404_auth/${target.name}; the rule's tree is fixed on the gate, so the page sends no policy headers.`;
  }
  const hint = $('#tries');
  if (target.kind === 'rule') {
    hint.textContent = 'Try any demo wallet.';
    return;
  }
  const tries = catalogue.tries[target.feature];
  hint.replaceChildren('Try: ');
  const tryButton = (name: string, className: string): HTMLElement => {
    const button = el('button', { type: 'button', class: className, title: className === 'passes' ? 'passes the policy above' : 'fails the policy above' }, name);
    button.addEventListener('click', () => ($<HTMLSelectElement>('#wallet').value = name));
    return button;
  };
  hint.append(tryButton(tries.passes, 'passes'), ...tries.fails.map((name) => tryButton(name, 'fails')));
  if (pickWallet) $<HTMLSelectElement>('#wallet').value = tries.passes;
}

function resetSteps(): void {
  for (const name of ['nonce', 'challenge', 'signature', 'chain', 'decision', 'token'] as const) step(name, 'waiting');
  step('nonce', 'running', 'Asking the gate for a nonce…');
}

async function signIn(): Promise<void> {
  const target = selectedTarget();
  const wallet = catalogue.wallets.find((candidate) => candidate.name === $<HTMLSelectElement>('#wallet').value) as DemoWallet;
  let policy: Record<string, unknown> | undefined;
  if (target.kind === 'feature') {
    try {
      policy = JSON.parse($<HTMLTextAreaElement>('#policy').value) as Record<string, unknown>;
    } catch (error) {
      $('#notice').textContent = `The policy is not JSON: ${(error as Error).message}`;
      return;
    }
  }
  $('#notice').textContent = '';
  resetSteps();

  const exchanges: Exchange[] = [];
  const recordingFetch = async (input: string, init?: RequestInit): Promise<Response> => {
    const started = performance.now();
    const response = await fetch(input, init);
    const responseHeaders: Record<string, string> = {};
    for (const name of SHOWN_RESPONSE_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) responseHeaders[name] = value;
    }
    exchanges.push({ requestHeaders: { ...(init?.headers as Record<string, string>) }, status: response.status, responseHeaders, bodyText: await response.clone().text(), ms: performance.now() - started });
    return response;
  };
  const keypair = await resolveSigner({ secretKey: Uint8Array.from(wallet.secretKey) });
  let signed: { message: Uint8Array; signature: Uint8Array } | undefined;
  const signer: WalletSigner = {
    publicKey: keypair.address,
    async signMessage(message) {
      const signature = await keypair.sign!(message);
      signed = { message, signature };
      return signature;
    },
  };

  const mark = catalogue.recordsChainReads ? await chainMark() : 0;
  let result: AuthResult | undefined;
  let failure: unknown;
  try {
    const common = { baseUrl: location.origin, signer, storage: false as const, fetch: recordingFetch, signMode: 'challenge' as const };
    const onProgress = (progress: string): void => {
      if (progress === 'signing') showNonce(exchanges[0], pathName(target));
      if (progress === 'logging-in' && signed) step('decision', 'running', 'Waiting for the gate…');
    };
    if (target.kind === 'feature') result = await authenticate({ ...common, feature: target.feature, policy: policy as PolicyFor<Feature>, onProgress });
    else if (target.kind === 'policy') result = await authenticate({ ...common, feature: target.feature, policyName: target.name, onProgress });
    else result = await authenticate({ ...common, rule: target.name, onProgress });
  } catch (error) {
    failure = error;
  }

  showNonce(exchanges[0], pathName(target), failure);
  await showChallengeAndSignature(signed, wallet.publicKey, pathName(target));
  const logins = exchanges.slice(1);
  await showChainReads(mark, logins.length > 0);
  showDecision(logins, pathName(target), failure);
  showToken(result);
}

function showNonce(exchange: Exchange | undefined, feature: string, failure?: unknown): void {
  const request = `GET /x404_auth/${feature}`;
  if (!exchange) {
    step('nonce', 'failed', errorLine(failure) ?? 'No answer.', thrown(failure));
    return;
  }
  const ok = exchange.status === 200;
  const nonce = exchange.responseHeaders['x-404-nonce'];
  step(
    'nonce',
    ok ? 'done' : 'failed',
    el('span', {}, `${request} → `, statusBadge(exchange.status), ok && nonce ? el('span', {}, ' nonce ', el('code', { class: 'nonce' }, nonce)) : ''),
    columns(['Response headers', pre(pretty(exchange.responseHeaders))], ['Body', pre(prettyText(exchange.bodyText))]),
    ...(ok ? [] : [thrown(failure)]),
  );
}

async function showChallengeAndSignature(signed: { message: Uint8Array; signature: Uint8Array } | undefined, address: string, feature: string): Promise<void> {
  if (!signed) {
    step('challenge', 'skipped', 'Nothing was signed.');
    step('signature', 'skipped', 'Nothing was signed.');
    return;
  }
  const challenge = new TextDecoder().decode(signed.message);
  const parts = challenge.split('::');
  const marked = el('pre', { class: 'challenge', 'data-value': challenge });
  parts.forEach((part, index) => {
    if (index > 0) marked.append('::');
    marked.append(index === 1 || index === 2 ? el('span', { class: 'mark' }, part) : part);
  });
  step('challenge', 'done', `${signed.message.length} bytes: CHALLENGE, the nonce, the path /x404_auth/${feature} and the feature constant.`, marked);

  // The gate's rules, not noble's lenient default (ZIP-215): strict checks first, then RFC 8032.
  const publicKey = bs58.decode(address);
  const valid = strictEd25519Refusal(publicKey, signed.signature) === undefined && (await ed.verifyAsync(signed.signature, signed.message, publicKey, { zip215: false }));
  step(
    'signature',
    valid ? 'done' : 'failed',
    el('span', { class: `verdict ${valid ? 'ok' : 'bad'}` }, valid ? `Verified in this page against ${address}` : 'Does not verify against the wallet'),
    el('pre', { class: 'signature' }, bs58.encode(signed.signature)),
    el('p', { class: 'hint' }, `64 bytes, sent as X-404-Signature with X-404-Addr: ${address}. The gate verifies it again (in its worker pool) before it spends the nonce.`),
  );
}

async function showChainReads(mark: number, loggedIn: boolean): Promise<void> {
  if (!catalogue.recordsChainReads) {
    step('chain', 'skipped', `Not recorded: the gate reads ${catalogue.rpcUrl}.`);
    return;
  }
  const { calls } = await chainCallsSince(mark);
  if (calls.length === 0) {
    step('chain', loggedIn ? 'done' : 'skipped', loggedIn ? 'None: the gate decided without reading the chain (bad input, a bad signature or nonce, or everything it needed was cached).' : 'None: no login was sent.');
    return;
  }
  step(
    'chain',
    'done',
    `${callCount(calls)} to the local chain. The gate caches which program owns each mint, so a repeated login may read less.`,
    chainCallsTable(calls, catalogue.labels),
  );
}

function showDecision(logins: Exchange[], feature: string, failure: unknown): void {
  if (logins.length === 0) {
    step('decision', 'skipped', failure ? 'No login was sent.' : '', thrown(failure));
    return;
  }
  const last = logins[logins.length - 1] as Exchange;
  const ok = last.status === 200 && !failure;
  const body: Node[] = [];
  logins.forEach((exchange, index) => {
    if (logins.length > 1) body.push(el('h3', {}, `Attempt ${index + 1}`));
    body.push(
      el(
        'div',
        { class: 'columns' },
        el('div', {}, el('h3', {}, 'Request headers the SDK sent'), headerTable(exchange.requestHeaders)),
        el('div', {}, el('h3', {}, 'Response body'), pre(prettyText(exchange.bodyText), 'response')),
      ),
    );
  });
  body.push(thrown(failure));
  step('decision', ok ? 'done' : 'failed', el('span', {}, `GET /x404_auth/${feature} with the signature → `, statusBadge(last.status), ` in ${Math.round(last.ms)} ms`, errorLine(failure) ? ` · ${errorLine(failure)}` : ''), ...body);
}

function errorLine(failure: unknown): string | undefined {
  if (failure instanceof X404Error) return `authenticate() threw X404Error ${failure.code}`;
  if (failure instanceof Error) return `authenticate() threw ${failure.name}: ${failure.message}`;
  return undefined;
}

/** What the SDK handed the page when it failed: the X404Error's fields. */
function thrown(failure: unknown): Node {
  if (failure === undefined) return document.createTextNode('');
  const fields = failure instanceof X404Error ? { name: failure.name, code: failure.code, status: failure.status, message: failure.message, body: failure.body } : { error: String(failure) };
  return el('div', {}, el('h3', {}, 'What authenticate() threw'), pre(pretty(fields), 'thrown'));
}

function showToken(result: AuthResult | undefined): void {
  if (!result) {
    step('token', 'skipped', 'No token: the gate did not sign the wallet in.');
    return;
  }
  const [headerSegment] = result.token.split('.');
  const header = JSON.parse(atob((headerSegment as string).replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
  const claims: Record<string, unknown> = decodeTokenClaims(result.token) ?? {};
  const when = (seconds: unknown): string => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : '?');
  step(
    'token',
    'done',
    `${String(header.alg)} token for ${String(claims.sub)} (${String(claims.feature)}), issued ${when(claims.iat)}, expires ${when(claims.exp)}.`,
    columns(['Header', pre(pretty(header), 'token-header')], ['Claims', pre(pretty(claims), 'token-claims')]),
    el('h3', {}, 'The token as the gate returned it'),
    pre(result.token),
  );
}

$('#controls').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = $<HTMLButtonElement>('#sign-in');
  button.disabled = true;
  signIn()
    .catch((error: unknown) => ($('#notice').textContent = `The page failed: ${error instanceof Error ? error.message : String(error)}`))
    .finally(() => (button.disabled = false));
});

window.addEventListener('hashchange', showView);
showView();
load().catch((error: unknown) => ($('#notice').textContent = `Could not load the demo: ${error instanceof Error ? error.message : String(error)}`));
