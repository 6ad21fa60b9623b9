import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FEATURE_NAMES, isFeatureName, type FeatureName } from '../contract/features.js';
import { decodeBase58 } from '../lib/base58.js';
import { encodeBase58 } from '../lib/base58-encode.js';
import type { NamedPolicy } from '../policy/named-policy.js';
import type { Rule } from '../rules/types.js';
import { PROGRAM_BYTES, PROGRAM_IDS } from './template-programs.js';
import { equalBytes } from '../lib/bytes.js';
import { fieldApplies, isMintProgram, isTokenTemplate, MINT_FIELDS, MINT_PROGRAMS, type MintProgram } from '../contract/mint.js';
import type { MintCondition, MintConfig, MintSigner } from './types.js';
import { readPayment } from './payment.js';

/**
 * The `"mints"` object of POLICIES_FILE → MintConfig by name (docs/minting.md). Every field is
 * checked against the one description (template.ts), the signer's keypair file is read and its two
 * halves checked against each other, and any problem stops start-up (or keeps the previous file on
 * SIGHUP) with a message naming the mint and the field — never a byte of a key file.
 */
export interface MintSources {
  rules: ReadonlyMap<string, Rule>;
  policies: Readonly<Record<FeatureName, ReadonlyMap<string, NamedPolicy>>>;
  /** Folder key files are relative to (POLICIES_FILE's). */
  baseDir: string;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A solana-keygen file is ~230 bytes; anything much larger is not one. */
const MAX_KEY_FILE_BYTES = 4096;
const U64_MAX = (1n << 64n) - 1n;
const MAX_PER_WALLET = 1_000_000;
const MAX_ALLOWED_PROGRAMS = 16;
/** Programs allow_programs may never name: the templates' own (a second MintTo, a second mintV2) and the loaders. */
const NEVER_ALLOWED: readonly (keyof typeof PROGRAM_IDS)[] = [
  'token',
  'token2022',
  'associatedToken',
  'candyGuard',
  'candyMachineCore',
  'coreCandyGuard',
  'coreCandyMachine',
  'bpfLoaderUpgradeable',
  'bpfLoader',
  'loaderV4',
];

export function buildMints(document: unknown, sources: MintSources, fail: (why: string) => never): Map<string, MintConfig> {
  if (!isPlainObject(document)) fail('"mints" must be an object of named mints, e.g. {"genesis": {"rule": "launch", "signer": "keys/genesis.json", …}}');
  const mints = new Map<string, MintConfig>();
  for (const [name, fields] of Object.entries(document as Record<string, unknown>)) {
    const where = `mint ${JSON.stringify(name.slice(0, 70))}`;
    if (!NAME_PATTERN.test(name)) fail(`${where}: a mint name is 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit`);
    if (!isPlainObject(fields)) fail(`${where}: must be an object of the mint's fields`);
    mints.set(name, buildMint(name, fields as Record<string, unknown>, sources, (why) => fail(`${where}: ${why}`)));
  }
  return mints;
}

function buildMint(name: string, fields: Record<string, unknown>, sources: MintSources, fail: (why: string) => never): MintConfig {
  const program = fields.program;
  if (!isMintProgram(program)) fail(`field program: must be one of ${MINT_PROGRAMS.join(', ')}`);
  const mintProgram = program as MintProgram;
  for (const key of Object.keys(fields)) {
    const field = MINT_FIELDS.find((spec) => spec.file === key);
    if (field === undefined) fail(`field ${key}: unknown field; a mint has ${MINT_FIELDS.map((spec) => spec.file).join(', ')}`);
    if (!fieldApplies(field!, mintProgram)) fail(`field ${key}: not a field of ${mintProgram} mints`);
    if (fields[key] === null) fail(`field ${key}: must not be null (leave the field out instead)`);
  }
  for (const field of MINT_FIELDS) {
    if (field.required === true && fieldApplies(field, mintProgram) && fields[field.file] === undefined) fail(`field ${field.file}: missing, and ${mintProgram} mints require it`);
  }

  const condition = readCondition(fields, sources, fail);
  const signer = readSigner(fields.signer, sources.baseDir, fail);
  const perWallet = fields.per_wallet === undefined ? 1 : wholeNumber(fields.per_wallet, 'per_wallet', MAX_PER_WALLET, fail);
  const supply = fields.supply === undefined ? undefined : wholeNumber(fields.supply, 'supply', Number.MAX_SAFE_INTEGER, fail);
  const startMs = fields.start === undefined ? undefined : isoTime(fields.start, 'start', fail);
  const endMs = fields.end === undefined ? undefined : isoTime(fields.end, 'end', fail);
  if (startMs !== undefined && endMs !== undefined && endMs <= startMs) fail('field end: must be after start');
  const allowPrograms = readAllowPrograms(fields.allow_programs, signer, fail);

  const listing: Record<string, unknown> = {
    name,
    signer: signer.address,
    program: mintProgram,
    ...(condition.kind === 'rule' ? { rule: condition.rule.name } : { feature: condition.policy.feature, policy: condition.policy.name }),
    perWallet,
    supply: supply ?? null,
    start: startMs === undefined ? null : new Date(startMs).toISOString(),
    end: endMs === undefined ? null : new Date(endMs).toISOString(),
    allowPrograms: allowPrograms.map((program) => program.text),
  };
  const common = { name, program: mintProgram, signer, condition, perWallet, supply, startMs, endMs };
  const allowed = allowPrograms.map((program) => program.bytes);

  if (isTokenTemplate(mintProgram)) {
    const mint = address(fields.mint, 'mint', fail);
    const amount = readAmount(fields.amount, fail);
    const tokenProgram = mintProgram === 'token-2022' ? PROGRAM_IDS.token2022 : PROGRAM_IDS.token;
    const payment = fields.payment === undefined ? undefined : readPayment(fields.payment, signer.publicKey, fail);
    const maxOnchainSupply = fields.max_onchain_supply === undefined ? undefined : readU64(fields.max_onchain_supply, 'max_onchain_supply', fail);
    if (maxOnchainSupply !== undefined && maxOnchainSupply < amount) fail('field max_onchain_supply: must be at least amount, or no mint could ever be co-signed');
    return {
      ...common,
      template: { program: mintProgram, signer: signer.publicKey, mint: mint.bytes, amount, allowPrograms: allowed, payment },
      token: { mint: mint.text, program: tokenProgram },
      amount,
      maxOnchainSupply,
      payment,
      listing: Object.freeze({
        ...listing,
        mint: mint.text,
        amount: amount.toString(),
        tokenProgram,
        maxOnchainSupply: maxOnchainSupply?.toString() ?? null,
        payment: payment === undefined ? null : { lamports: payment.lamports.toString(), destination: payment.destination },
      }),
    };
  }
  const candyGuard = address(fields.candy_guard, 'candy_guard', fail);
  const candyMachine = address(fields.candy_machine, 'candy_machine', fail);
  const group = fields.group === undefined ? undefined : readGroup(fields.group, fail);
  return {
    ...common,
    template: { program: mintProgram, signer: signer.publicKey, candyGuard: candyGuard.bytes, candyMachine: candyMachine.bytes, group, allowPrograms: allowed },
    listing: Object.freeze({ ...listing, candyGuard: candyGuard.text, candyMachine: candyMachine.text, group: group ?? null }),
  };
}

function readCondition(fields: Record<string, unknown>, sources: MintSources, fail: (why: string) => never): MintCondition {
  const { rule, feature, policy } = fields;
  if (rule !== undefined) {
    if (feature !== undefined || policy !== undefined) fail('a mint names a rule, or a feature and a policy, not both');
    if (typeof rule !== 'string') fail('field rule: must be the name of one of the file\'s rules');
    const found = sources.rules.get(rule as string);
    if (found === undefined) fail(`field rule: no rule ${JSON.stringify((rule as string).slice(0, 64))}; the rules: ${[...sources.rules.keys()].join(', ') || '(none)'}`);
    return { kind: 'rule', rule: found! };
  }
  if (feature === undefined && policy === undefined) fail('a mint needs its condition: "rule", or "feature" and "policy"');
  if (typeof feature !== 'string' || !isFeatureName(feature)) fail(`field feature: must be one of ${FEATURE_NAMES.join(', ')}`);
  if (typeof policy !== 'string') fail('field policy: must name one of the feature\'s policies');
  const named = sources.policies[feature as FeatureName].get(policy as string);
  if (named === undefined) fail(`field policy: ${feature} has no policy ${JSON.stringify((policy as string).slice(0, 64))}`);
  return { kind: 'feature', policy: named! };
}

/**
 * A solana-keygen file: a JSON array of 64 bytes, the 32-byte seed then its public key. The seed
 * becomes a node:crypto KeyObject (PKCS #8 DER), and the public key derived from it must be the
 * file's second half — a spliced or corrupted file is refused rather than signing with a key whose
 * address the configuration does not show.
 */
function readSigner(value: unknown, baseDir: string, fail: (why: string) => never): MintSigner {
  if (typeof value !== 'string' || value.trim() === '') fail('field signer: must name a solana-keygen keypair file');
  const path = resolve(baseDir, value as string);
  const problem = `field signer: ${JSON.stringify(value)}`;
  let text: string;
  try {
    if (statSync(path).size > MAX_KEY_FILE_BYTES) fail(`${problem} is not a keypair file (larger than ${MAX_KEY_FILE_BYTES} bytes)`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!(error instanceof Error) || !('code' in error)) throw error;
    return fail(`${problem} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  // JSON.parse's message quotes the text it choked on: never let it near a message.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 64 || !parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
    fail(`${problem} must be a JSON array of 64 numbers from 0 to 255, as solana-keygen writes`);
  }
  const bytes = Uint8Array.from(parsed as number[]);
  const privateKey = ed25519PrivateKey(bytes.subarray(0, 32));
  bytes.fill(0, 0, 32);
  const publicKey = new Uint8Array(Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x as string, 'base64url'));
  if (!equalBytes(publicKey, bytes.subarray(32))) fail(`${problem}: its public half is not the key of its secret half (a corrupted or spliced file)`);
  const address = encodeBase58(publicKey);
  return { address, publicKey, privateKey, toJSON: () => ({ address }) };
}

/** PKCS #8 for Ed25519 (RFC 8410): a fixed 16-byte prefix, then the 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, seed]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

function readAllowPrograms(value: unknown, signer: MintSigner, fail: (why: string) => never): { text: string; bytes: Uint8Array }[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_ALLOWED_PROGRAMS) fail(`field allow_programs: must be an array of at most ${MAX_ALLOWED_PROGRAMS} program addresses`);
  const programs = (value as unknown[]).map((entry) => address(entry, 'allow_programs', fail));
  for (const program of programs) {
    const forbidden = NEVER_ALLOWED.find((name) => equalBytes(PROGRAM_BYTES[name], program.bytes));
    if (forbidden !== undefined) fail(`field allow_programs: ${program.text} (${forbidden}) cannot be allowed: the template decides what its own programs may do`);
    if (equalBytes(program.bytes, signer.publicKey)) fail('field allow_programs: the signer is not a program');
  }
  return programs;
}

function address(value: unknown, field: string, fail: (why: string) => never): { text: string; bytes: Uint8Array } {
  const bytes = typeof value === 'string' ? decodeBase58(value) : undefined;
  if (bytes?.length !== 32) fail(`field ${field}: must be a base58 address (32 bytes)`);
  return { text: value as string, bytes: bytes! };
}

function readAmount(value: unknown, fail: (why: string) => never): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^[0-9]{1,20}$/.test(text)) fail('field amount: must be a whole number of base units, as a string ("1000000")');
  const amount = BigInt(text as string);
  if (amount === 0n || amount > U64_MAX) fail('field amount: must be from 1 to 18446744073709551615');
  return amount;
}

function readU64(value: unknown, field: string, fail: (why: string) => never): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^[0-9]{1,20}$/.test(text) || BigInt(text) > U64_MAX) fail(`field ${field}: must be a whole number of base units up to 18446744073709551615, as a string`);
  return BigInt(text as string);
}

function wholeNumber(value: unknown, field: string, max: number, fail: (why: string) => never): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) fail(`field ${field}: must be a whole number from 1 to ${max}`);
  return value as number;
}

function isoTime(value: unknown, field: string, fail: (why: string) => never): number {
  // An explicit offset: a launch time read in the gate's own time zone would be a trap.
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    fail(`field ${field}: must be an ISO 8601 time with its offset, e.g. 2026-12-01T16:00:00Z`);
  }
  const ms = Date.parse(value as string);
  if (!Number.isFinite(ms)) fail(`field ${field}: not a valid time`);
  return ms;
}

function readGroup(value: unknown, fail: (why: string) => never): string {
  if (typeof value !== 'string' || value.length === 0 || new TextEncoder().encode(value).length > 6 || value.includes('\0')) {
    fail('field group: must be the guard group\'s label, 1 to 6 bytes');
  }
  return value as string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
