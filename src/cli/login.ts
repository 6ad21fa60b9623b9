import { parseArgs } from 'node:util';
import { authenticate, decodeTokenClaims, FEATURES, isFeature, X404Error, type AuthStep, type Feature, type PolicyFor, type SignMode } from '../sdk/index.js';
import { EXIT, httpUrlOption, isoTime, printProgress, printResult, readKeypairFile, readPolicyOption, refusalExit, UsageError } from './io.js';

export const LOGIN_HELP = `Usage: x404 login --url <gate> (--feature <name> [--policy <json|@file> | --policy-name <name>] | --rule <name>) --keypair <file> [--sign-mode <mode>] [options]

Signs in to a gate with a Solana keypair and prints the token (first line of stdout), then its
decoded claims as JSON. Progress goes to stderr.

  --url <gate>        the gate's base URL, e.g. http://localhost:3000
  --feature <name>    ${FEATURES.slice(0, -1).join(', ')} or ${FEATURES.at(-1)}
  --keypair <file>    Solana keypair JSON (64 numbers), e.g. ~/.config/solana/id.json
  --policy <json>     the feature's headers as a JSON object, or @file.json
                      blacklist: {"excluded_mints":[...],"max_holdings":{"<mint>":"<amount>"}}
  --policy-name <name>  one of the gate's operator policies (GET /x404_policies)
  --rule <name>       one of the gate's rules (GET /x404_policies), instead of a feature: the
                      operator's whole condition, checked from one signature
  --lat <n> --long <n>  your position, when the policy (or a leaf of the rule) has "geo_code": true
  --sign-mode <mode>  how the keypair proves itself: challenge (default), siws (Sign In With
                      Solana; the gate must set SIWS_DOMAINS), offchain (the Solana off-chain
                      message, as Ledger and \`solana sign-offchain-message\` sign it) or memo-tx
                      (a memo transaction that can never land, as hardware wallets sign it)
  --json              print one JSON object {token, publicKey, feature, claims, body} instead
  -q, --quiet         no progress on stderr`;

const STEP_TEXT: Record<AuthStep, string> = {
  reauthenticating: 'Checking the stored token',
  'requesting-nonce': 'Requesting a nonce',
  signing: 'Signing the challenge',
  'logging-in': 'Logging in',
};

/** A keypair can sign every proof; `auto` would pick siws where the gate offers it, so the CLI's default is explicit. */
const CLI_SIGN_MODES = ['challenge', 'siws', 'offchain', 'memo-tx', 'auto'] as const;

/** Gate answers that mean "try again later" rather than "no". */
const TRANSIENT_CODES = new Set(['NONCE_ERROR', 'NETWORK_ERROR', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'INTERNAL_ERROR']);

export async function loginCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      feature: { type: 'string' },
      rule: { type: 'string' },
      keypair: { type: 'string' },
      policy: { type: 'string' },
      'policy-name': { type: 'string' },
      lat: { type: 'string' },
      long: { type: 'string' },
      'sign-mode': { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    printResult(LOGIN_HELP);
    return EXIT.ok;
  }
  const missing = (['url', 'feature', 'keypair'] as const).filter((name) => values[name] === undefined && !(name === 'feature' && values.rule !== undefined));
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((name) => `--${name}`).join(', ')}${missing.includes('feature') ? ' (or --rule)' : ''}`);
  const url = httpUrlOption('url', values.url as string);
  const rule = values.rule;
  if (rule !== undefined && (values.feature !== undefined || values.policy !== undefined || values['policy-name'] !== undefined)) {
    throw new UsageError('--rule is the operator\'s whole condition: it takes no --feature, --policy or --policy-name');
  }
  const feature = values.feature ?? '';
  if (rule === undefined && !isFeature(feature)) throw new UsageError(`--feature must be one of ${FEATURES.join(', ')}; got "${feature}"`);

  const signMode = values['sign-mode'] ?? 'challenge';
  if (!(CLI_SIGN_MODES as readonly string[]).includes(signMode)) throw new UsageError(`--sign-mode must be one of ${CLI_SIGN_MODES.join(', ')}; got "${signMode}"`);
  const secretKey = readKeypairFile(values.keypair as string);
  const policyName = values['policy-name'];
  const policy = values.policy === undefined && policyName !== undefined ? undefined : readPolicyOption(values.policy);
  const position = { ...(values.lat === undefined ? {} : { lat: values.lat }), ...(values.long === undefined ? {} : { long: values.long }) };
  const fullPolicy = policy === undefined && Object.keys(position).length === 0 ? undefined : { ...policy, ...position };
  const progress = values.quiet ? () => {} : printProgress;

  const common = { baseUrl: url, signer: { secretKey }, signMode: signMode as SignMode, storage: false as const, onProgress: (step: AuthStep) => progress(`… ${STEP_TEXT[step]}`) };
  // A rule (with the caller's position, if any), an operator policy by name (likewise), or the policy itself.
  const target =
    rule !== undefined
      ? { rule, ...(Object.keys(position).length === 0 ? {} : { policy: position }) }
      : policyName !== undefined
        ? { feature: feature as Feature, policyName, ...(fullPolicy === undefined ? {} : { policy: fullPolicy as unknown as PolicyFor<Feature> }) }
        : { feature: feature as Feature, policy: (fullPolicy ?? {}) as unknown as PolicyFor<Feature> };

  try {
    const result = await authenticate({ ...common, ...target });
    const claims = decodeTokenClaims(result.token);
    progress(`✓ Signed in as ${result.publicKey} for ${result.feature} (${result.signMode ?? signMode}); the token expires ${isoTime(claims?.exp)}`);
    if (values.json) {
      printResult(JSON.stringify({ token: result.token, publicKey: result.publicKey, feature: result.feature, claims, body: result.body }));
    } else {
      printResult(result.token);
      printResult(JSON.stringify(claims, null, 2));
    }
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof X404Error)) throw error;
    const where = error.status ? ` (HTTP ${error.status})` : '';
    const retry = error.retryAfterSeconds !== undefined ? `; retry after ${error.retryAfterSeconds}s` : '';
    printProgress(`✗ Sign-in failed: ${error.code}${where}: ${error.message}${retry}`);
    if (values.json && error.body) printResult(JSON.stringify(error.body));
    return refusalExit(error, TRANSIENT_CODES);
  }
}
