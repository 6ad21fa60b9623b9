import { parseArgs } from 'node:util';
import { decodeTokenClaims, isFeature, type Feature, type GateTokenClaims, type PolicyFor } from '../sdk/index.js';
import { GateTokenError, verifyGateToken } from '../verifier/index.js';
import { EXIT, httpUrlOption, isoTime, printProgress, printResult, readPolicyOption, readSecret, readStdin, UsageError } from './io.js';

export const VERIFY_HELP = `Usage: x404 verify <token|-> [--secret-file <file> | --secret <value> | --jwks <url>] [--feature <name> | --rule <name>] [--policy <json|@file>] [--policy-name <name>] [--wallet <address>]

Checks a gate token the way a backend should (signature, expiry, feature, policy) and prints its
claims as JSON on stdout. "-" reads the token from stdin. HS256 gates: the secret defaults to
JWT_SECRET from the environment; prefer --secret-file over --secret, which other users of the
machine can see in the process list. EdDSA/ES256 gates: --jwks with the gate's key set URL.

  --jwks <url>        the gate's public keys, e.g. https://gate.example.com/.well-known/jwks.json
  --issuer <iss>      the iss the token must carry (default: JWT_ISSUER from the environment, if set)
  --audience <aud>    the aud the token must carry (default: JWT_AUDIENCE from the environment, if set)
  --feature <name>    the feature the token must be for (default: the one it claims)
  --policy <json>     the policy it must have been issued under, as given to x404 login
  --policy-name <n>   the operator policy it must have been issued under
  --rule <name>       the gate's rule it must have been issued under (default: the one it claims)
  --rule-pol <pol>    the rule's pol as GET /x404_policies lists it now (refuses tokens from before a change)
  --wallet <address>  the wallet it must belong to
  -q, --quiet         no verdict line on stderr`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      secret: { type: 'string' },
      'secret-file': { type: 'string' },
      jwks: { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      'policy-name': { type: 'string' },
      feature: { type: 'string' },
      rule: { type: 'string' },
      'rule-pol': { type: 'string' },
      policy: { type: 'string' },
      wallet: { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    printResult(VERIFY_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('give exactly one token (or - to read it from stdin)');
  const token = (positionals[0] === '-' ? await readStdin() : (positionals[0] as string)).trim();
  if (values.jwks !== undefined && (values.secret !== undefined || values['secret-file'] !== undefined)) throw new UsageError('give either --jwks or a secret, not both');
  const keySource = values.jwks !== undefined ? { jwks: httpUrlOption('jwks', values.jwks) } : { secret: readSecret(values, process.env) };

  // Run in the gate's environment, the command checks what the gate checks: its JWT_SECRET, and its
  // JWT_ISSUER / JWT_AUDIENCE when set, so a token of another gate sharing the secret is refused here too.
  const issuer = values.issuer ?? (process.env.JWT_ISSUER?.trim() || undefined);
  const audience = values.audience ?? (process.env.JWT_AUDIENCE?.trim() || undefined);
  const claimed = decodeTokenClaims(token);
  const rule = values.rule ?? (values.feature === undefined && typeof claimed?.rul === 'string' ? claimed.rul : undefined);
  if (rule !== undefined) {
    if (values.feature !== undefined || values.policy !== undefined || values['policy-name'] !== undefined) throw new UsageError('--rule takes no --feature, --policy or --policy-name');
    return report(() =>
      verifyGateToken(token, {
        ...keySource,
        rule,
        ...(values['rule-pol'] !== undefined ? { rulePol: values['rule-pol'] } : {}),
        ...(issuer !== undefined ? { issuer } : {}),
        ...(audience !== undefined ? { audience } : {}),
        ...(values.wallet ? { wallet: values.wallet } : {}),
      }),
      values.quiet,
    );
  }
  const feature = values.feature ?? claimed?.feature;
  if (feature === undefined) {
    printProgress('✗ Token refused: INVALID_TOKEN: it is not a gate token (no readable feature claim)');
    return EXIT.refused;
  }
  if (!isFeature(feature)) throw new UsageError(`--feature must be a gate feature name, got "${feature}"`);
  const policy = values.policy === undefined ? undefined : (readPolicyOption(values.policy) as unknown as PolicyFor<Feature>);

  return report(
    () =>
      verifyGateToken(token, {
        ...keySource,
        feature: feature as Feature,
        ...(policy ? { policy } : {}),
        ...(values['policy-name'] !== undefined ? { policyName: values['policy-name'] } : {}),
        ...(issuer !== undefined ? { issuer } : {}),
        ...(audience !== undefined ? { audience } : {}),
        ...(values.wallet ? { wallet: values.wallet } : {}),
      }),
    values.quiet,
  );
}

/** Prints the verdict (stderr) and the claims (stdout); the exit code says which. */
async function report(verify: () => Promise<GateTokenClaims>, quiet: boolean | undefined): Promise<number> {
  try {
    const claims = await verify();
    const what = typeof claims.rul === 'string' ? `rule ${claims.rul}` : claims.feature;
    if (!quiet) printProgress(`✓ Valid ${what} token for ${claims.sub}; expires ${isoTime(claims.exp)}`);
    printResult(JSON.stringify(claims, null, 2));
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof GateTokenError)) throw error;
    printProgress(`✗ Token refused: ${error.code}: ${error.message}`);
    return error.code === 'JWKS_UNAVAILABLE' ? EXIT.unavailable : EXIT.refused;
  }
}
