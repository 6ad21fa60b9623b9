import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config.js';
import { GateError } from '../errors.js';
import { FEATURE_NAMES, isFeatureName, type FeatureName } from '../contract/features.js';
import { FEATURES } from '../features/registry.js';
import { parseGeoPolicy } from '../geo/locate.js';
import { policyToHeaders } from '../policy-wire/to-headers.js';
import { policyDigest } from '../policy-wire/digest-node.js';
import { buildRules } from '../rules/load.js';
import { buildMints } from '../mint/load.js';
import type { Rule } from '../rules/types.js';
import type { WalletList } from '../rules/wallet-list.js';
import type { NamedPolicy, PolicyMode, PolicySet } from './types.js';

/**
 * Reads POLICIES_FILE: `{"<feature>": {"<policy name>": {"<field>": value, …}, …}, …, "rules": {…}}` where the
 * fields are the feature's policy headers. A value may be written as the header string itself or
 * as JSON (arrays, objects, booleans, numbers), turned into the header text exactly as the SDK
 * does (policyToHeaders), so a relying party computing `policyDigest(feature, sameObject)` gets the
 * token's `pol`. Every policy is then validated by the very parsers the request headers go
 * through; any problem names the feature, the policy and the field. `"rules"` holds rule trees
 * (src/rules/load.ts). Throws ConfigError.
 */
export const MAX_POLICY_FILE_BYTES = 1024 * 1024;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** The caller's position is per request, never part of a policy. */
const LOCATION_FIELDS = new Set(['lat', 'long', 'x-lat', 'x-long']);

/** `preloaded`: wallet lists already read (src/rules/read-lists.ts), by absolute path; others are read here. */
export function loadPolicyFile(path: string, mode: PolicyMode, preloaded?: ReadonlyMap<string, WalletList>): PolicySet {
  const fail = (why: string): never => {
    throw new ConfigError('POLICIES_FILE', `${path}: ${why}`);
  };
  if (/\.ya?ml$/i.test(path)) fail('YAML is not supported; write the policies as JSON');
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_POLICY_FILE_BYTES) fail(`is ${size} bytes; a policy file may be at most 1 MiB`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (Buffer.byteLength(text) > MAX_POLICY_FILE_BYTES) fail('is larger than 1 MiB');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    fail(`is not valid JSON (${(error as Error).message})`);
  }
  return buildPolicySet(parsed, mode, path, fail, preloaded);
}

export function buildPolicySet(document: unknown, mode: PolicyMode, source: string, fail: (why: string) => never, preloaded?: ReadonlyMap<string, WalletList>): PolicySet {
  if (!isPlainObject(document)) fail('must be a JSON object of features, e.g. {"blacklist": {"launch": {…}}}');
  const byFeature = Object.fromEntries(FEATURE_NAMES.map((feature) => [feature, new Map<string, NamedPolicy>()])) as Record<FeatureName, Map<string, NamedPolicy>>;

  const { rules: ruleDocument, mints: mintDocument, ...featureDocuments } = document as Record<string, unknown>;
  for (const [feature, policies] of Object.entries(featureDocuments)) {
    if (!isFeatureName(feature)) fail(`unknown feature ${JSON.stringify(feature.slice(0, 40))}; the file holds features (${FEATURE_NAMES.join(', ')}), "rules" and "mints"`);
    if (!isPlainObject(policies)) fail(`${feature}: must be an object of named policies, e.g. {"launch": {…}}`);
    for (const [name, fields] of Object.entries(policies as Record<string, unknown>)) {
      const where = `${feature} policy ${JSON.stringify(name.slice(0, 70))}`;
      if (!NAME_PATTERN.test(name)) fail(`${where}: a policy name is 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit`);
      if (!isPlainObject(fields)) fail(`${where}: must be an object of the feature's fields`);
      byFeature[feature as FeatureName].set(name, compilePolicy(feature as FeatureName, name, fields as Record<string, unknown>, (why) => fail(`${where}, ${why}`)));
    }
  }

  // Rules after the policies: a leaf may name one of them.
  const rules =
    ruleDocument === undefined
      ? new Map<string, Rule>()
      : buildRules(ruleDocument, { policies: byFeature, compilePolicy, baseDir: dirname(resolve(source)), preloaded }, (why) => fail(why));
  const ruleNames = [...rules.keys()].sort();
  // Mints last: one names a rule or a feature's policy (src/mint/load.ts).
  const mints = mintDocument === undefined ? new Map() : buildMints(mintDocument, { rules, policies: byFeature, baseDir: dirname(resolve(source)) }, (why) => fail(why));
  const rulesSuffix = ruleNames.length > 0 ? `,"rules":${JSON.stringify(ruleNames)}` : '';

  const names = Object.fromEntries(FEATURE_NAMES.map((feature) => [feature, [...byFeature[feature].keys()].sort()])) as Record<FeatureName, string[]>;
  const nonceBodySuffix = Object.fromEntries(
    FEATURE_NAMES.map((feature) => [feature, `,"policyMode":${JSON.stringify(mode)},"policies":${JSON.stringify(names[feature])}${rulesSuffix}`]),
  ) as Record<FeatureName, string>;
  const ruleNonceBodySuffix = new Map(ruleNames.map((name) => [name, `,"rule":${JSON.stringify(name)}${rulesSuffix}`]));
  const listing: Record<string, Record<string, { pol: string; headers: Readonly<Record<string, string>> }>> = {};
  for (const feature of FEATURE_NAMES) {
    if (names[feature].length === 0) continue;
    listing[feature] = {};
    for (const name of names[feature]) {
      const policy = byFeature[feature].get(name)!;
      listing[feature][name] = { pol: policy.digest, headers: policy.headers };
    }
  }
  const ruleListing = Object.fromEntries(ruleNames.map((name) => [name, { pol: rules.get(name)!.digest, tree: rules.get(name)!.listing }]));
  return {
    mode,
    source,
    byFeature,
    names,
    nonceBodySuffix,
    rules,
    ruleNames,
    ruleNonceBodySuffix,
    mints,
    listingJson: JSON.stringify({ mode, policies: listing, rules: ruleListing }),
  };
}

/**
 * A feature's fields (a named policy, or a rule's leaf) → the policy a login is checked against:
 * the header text the SDK would send, the feature's parsed parameters and its digest. Throws
 * through `fail`, naming the field.
 */
export function compilePolicy(feature: FeatureName, name: string, fields: Record<string, unknown>, fail: (why: string) => never): NamedPolicy {
  const module = FEATURES[feature];
  const allowed = module.policyHeaders;
  for (const [field, value] of Object.entries(fields)) {
    const lower = field.toLowerCase();
    if (LOCATION_FIELDS.has(lower)) fail(`field ${field}: the caller's position is sent with each request (X-Lat, X-Long), not fixed in a policy`);
    if (!allowed.includes(lower)) fail(`field ${field}: unknown field; ${feature} policies have ${allowed.join(', ')}`);
    if (value === null || value === undefined) fail(`field ${field}: must not be null (leave the field out instead)`);
  }
  let headers: Record<string, string>;
  try {
    headers = policyToHeaders(feature, fields).policy;
  } catch (error) {
    return fail(`a field cannot be turned into a header value: ${(error as Error).message}`);
  }
  const bag: ReadonlyMap<string, string> = new Map(Object.entries(headers));
  let params: unknown;
  let geo: NamedPolicy['geo'];
  try {
    params = module.parse(bag);
    const { latitude: _latitude, longitude: _longitude, ...rest } = parseGeoPolicy(bag, module.geoRequired);
    geo = rest;
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return fail(describeParseError(error));
  }
  const sorted: Record<string, string> = {};
  for (const header of Object.keys(headers).sort()) sorted[header] = headers[header] as string;
  return { feature, name, headers: Object.freeze(sorted), digest: policyDigest(sorted), params, geo };
}

/** The parsers speak of headers; a policy file has fields. */
function describeParseError(error: GateError): string {
  const extra = error.options.extra ?? {};
  if (error.code === 'MISSING_HEADER' && Array.isArray(extra.missing)) {
    return `field${extra.missing.length > 1 ? 's' : ''} ${extra.missing.join(', ')}: missing, and the feature requires ${extra.missing.length > 1 ? 'them' : 'it'}`;
  }
  const field = typeof extra.header === 'string' ? extra.header : undefined;
  const why = field === undefined ? error.message : error.message.replace(`Header ${field} is invalid: `, '');
  return field === undefined ? why : `field ${field}: ${why}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
