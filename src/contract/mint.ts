/**
 * The one description of a mint configuration (POLICIES_FILE's `"mints"`, docs/minting.md): its
 * fields, which templates use them, what they mean; the refusals POST /x404_mint answers with; and
 * the reasons an INVALID_TRANSACTION names. Everything else is projected from here or checked
 * against it by a test: the loader (src/mint/load.ts) validates exactly these fields, the GET answer
 * names them (`json`), the OpenAPI document (src/http/openapi.ts) builds its schemas and error
 * enums from them, the SDK's MintConfiguration type and the CLI's help are checked against them
 * (test/unit/mint-template.test.ts), and so are the tables of docs/minting.md.
 *
 * Browser-safe, no imports (src/contract): the SDK reads MINT_PROGRAMS and MINT_FIELD_NAMES.
 */

export const MINT_PROGRAMS = ['spl-token', 'token-2022', 'candy-guard', 'core-candy-guard'] as const;
export type MintProgram = (typeof MINT_PROGRAMS)[number];

export const isMintProgram = (value: unknown): value is MintProgram => (MINT_PROGRAMS as readonly unknown[]).includes(value);
export const isTokenTemplate = (program: MintProgram): program is 'spl-token' | 'token-2022' => program === 'spl-token' || program === 'token-2022';

/** What each template is, for the docs and the OpenAPI description. */
export const MINT_PROGRAM_TEXT: Record<MintProgram, string> = {
  'spl-token': 'SPL Token: the signer is the mint authority; the transaction mints `amount` to the fee payer\'s associated token account',
  'token-2022': 'Token-2022: the same as spl-token under the Token-2022 program',
  'candy-guard': 'Candy Machine v3 (Candy Guard mintV2): the signer is the thirdPartySigner guard of the configured guard (and group)',
  'core-candy-guard': 'Core Candy Machine (Core Candy Guard mintV1): the signer is the thirdPartySigner guard of the configured guard (and group)',
};

type JsonSchema = Record<string, unknown>;

export interface MintFieldSpec {
  /** The key in POLICIES_FILE. */
  file: string;
  /** The key in the GET /x404_mint/<name> answer (absent: never served). */
  json: string | undefined;
  /** Which templates take it. */
  programs: readonly MintProgram[] | 'all';
  /** `true`, `false`, or a sentence saying when. */
  required: boolean | string;
  /** What the answer's value looks like (OpenAPI). */
  schema: JsonSchema;
  description: string;
}

const ADDRESS: JsonSchema = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' };
const TOKEN: readonly MintProgram[] = ['spl-token', 'token-2022'];
const CANDY: readonly MintProgram[] = ['candy-guard', 'core-candy-guard'];
const PAYMENT: JsonSchema = {
  type: ['object', 'null'],
  required: ['lamports', 'destination'],
  properties: { lamports: { type: 'string', pattern: '^[0-9]{1,20}$' }, destination: ADDRESS },
  additionalProperties: false,
};

export const MINT_FIELDS: readonly MintFieldSpec[] = [
  { file: 'rule', json: 'rule', programs: 'all', required: 'one of rule, or feature + policy', schema: { type: 'string' }, description: 'The rule (POLICIES_FILE "rules") the fee payer must meet, judged on the chain as it is when the transaction is posted.' },
  { file: 'feature', json: 'feature', programs: 'all', required: 'with policy, instead of rule', schema: { type: 'string' }, description: 'Instead of a rule: a feature, checked under one of its named policies.' },
  { file: 'policy', json: 'policy', programs: 'all', required: 'with feature', schema: { type: 'string' }, description: 'The named policy of `feature`.' },
  { file: 'signer', json: 'signer', programs: 'all', required: true, schema: ADDRESS, description: 'A solana-keygen JSON keypair file (relative to POLICIES_FILE): the co-signing key. Only its public address is ever served or logged.' },
  { file: 'program', json: 'program', programs: 'all', required: true, schema: { type: 'string', enum: [...MINT_PROGRAMS] }, description: 'The template: spl-token, token-2022, candy-guard or core-candy-guard.' },
  { file: 'mint', json: 'mint', programs: TOKEN, required: true, schema: ADDRESS, description: 'The token mint whose mint authority is the signer.' },
  { file: 'amount', json: 'amount', programs: TOKEN, required: true, schema: { type: 'string', pattern: '^[0-9]{1,20}$' }, description: 'Base units minted per mint (a u64 above 0).' },
  { file: 'candy_guard', json: 'candyGuard', programs: CANDY, required: true, schema: ADDRESS, description: 'The Candy Guard account whose thirdPartySigner guard is the signer.' },
  { file: 'candy_machine', json: 'candyMachine', programs: CANDY, required: true, schema: ADDRESS, description: 'The candy machine the guard mints from.' },
  { file: 'group', json: 'group', programs: CANDY, required: false, schema: { type: ['string', 'null'], maxLength: 6 }, description: 'The guard group label (at most 6 characters), when the guard has groups.' },
  { file: 'per_wallet', json: 'perWallet', programs: 'all', required: false, schema: { type: 'integer', minimum: 1 }, description: 'Mints one wallet (the fee payer) may get; default 1.' },
  { file: 'supply', json: 'supply', programs: 'all', required: false, schema: { type: ['integer', 'null'], minimum: 1 }, description: 'Mints the gate co-signs in all; absent: no cap.' },
  { file: 'start', json: 'start', programs: 'all', required: false, schema: { type: ['string', 'null'], format: 'date-time' }, description: 'ISO 8601 time before which the gate answers MINT_NOT_STARTED.' },
  { file: 'end', json: 'end', programs: 'all', required: false, schema: { type: ['string', 'null'], format: 'date-time' }, description: 'ISO 8601 time from which the gate answers MINT_ENDED.' },
  { file: 'max_onchain_supply', json: 'maxOnchainSupply', programs: TOKEN, required: false, schema: { type: ['string', 'null'], pattern: '^[0-9]{1,20}$' }, description: 'A cap on the token mint\'s supply on-chain, in base units, across every name (phase) that mints it: read before co-signing, SOLD_OUT when supply + amount would pass it.' },
  { file: 'payment', json: 'payment', programs: TOKEN, required: false, schema: PAYMENT, description: 'A price: {"lamports": "<u64>", "destination": "<address>"}. The transaction then carries one System Program transfer of exactly that many lamports from the fee payer to destination.' },
  { file: 'allow_programs', json: 'allowPrograms', programs: 'all', required: false, schema: { type: 'array', items: ADDRESS, maxItems: 16 }, description: 'Other programs the transaction may call (e.g. a wallet\'s Lighthouse assertions), as long as their instructions do not name the signer. Never a token, ATA, candy or loader program.' },
];

/** Keys of the GET answer that are not configuration fields. */
export const MINT_STATE_FIELDS: readonly { json: string; schema: JsonSchema; description: string }[] = [
  { json: 'name', schema: { type: 'string' }, description: 'The mint\'s name (the path).' },
  { json: 'issued', schema: { type: 'integer', minimum: 0 }, description: 'Co-signed mints confirmed on-chain.' },
  { json: 'reserved', schema: { type: 'integer', minimum: 0 }, description: 'Co-signed mints sent and not yet confirmed or expired.' },
  {
    json: 'wallet',
    schema: {
      type: 'object',
      required: ['address', 'eligible', 'remaining'],
      properties: {
        address: ADDRESS,
        eligible: { type: 'boolean' },
        error: { type: 'string', description: 'The code a POST would get now.' },
        message: { type: 'string' },
        remaining: { type: 'integer', minimum: 0 },
      },
      additionalProperties: false,
    },
    description: 'With ?wallet=<address>: whether that wallet may mint now (`error`: the code a POST would get) and how many more it may get, never more than the supply left.',
  },
];

export const MINT_FIELD_NAMES: readonly string[] = MINT_FIELDS.map((field) => field.file);

export const fieldApplies = (field: MintFieldSpec, program: MintProgram): boolean => field.programs === 'all' || field.programs.includes(program);

/** Every answer of POST /x404_mint/<name> but 200, by code (docs/minting.md "Refusals"). */
export const MINT_REFUSALS = [
  { status: 400, code: 'INVALID_BODY', when: 'the body is not JSON {"transaction": "<base64>"}' },
  { status: 400, code: 'INVALID_TRANSACTION', when: 'the transaction is not one the template allows; `reason` says why' },
  { status: 400, code: 'BLOCKHASH_EXPIRED', when: 'the transaction\'s blockhash is no longer valid: build it again' },
  { status: 400, code: 'BLOCKHASH_NOT_CONFIRMED', when: 'the transaction\'s blockhash is not yet valid at `confirmed`: build it with getLatestBlockhash at `confirmed` (or `finalized`)' },
  { status: 401, code: 'INVALID_SIGNATURE', when: 'the fee payer\'s signature does not verify' },
  { status: 403, code: 'MINT_NOT_STARTED', when: 'before `start`' },
  { status: 403, code: 'MINT_ENDED', when: 'from `end` on' },
  { status: 403, code: 'SOLD_OUT', when: '`supply` mints are issued or reserved, or the on-chain supply would pass `max_onchain_supply`' },
  { status: 403, code: 'MINT_LIMIT_REACHED', when: 'the fee payer has `per_wallet` mints issued or reserved' },
  { status: 404, code: 'NOT_FOUND', when: 'no mint of that name' },
  { status: 413, code: 'BODY_TOO_LARGE', when: 'the body is larger than 4 KiB' },
  { status: 422, code: 'SIMULATION_FAILED', when: 'the co-signed transaction fails in simulation; `logs` has the programs\' logs; nothing is reserved' },
  { status: 500, code: 'MINT_MISCONFIGURED', when: 'on-chain, the token mint\'s mint authority or the candy guard\'s thirdPartySigner is not this gate\'s signer, or the account is not a mint (guard) of that program; GET answers it too' },
  { status: 503, code: 'MINT_RECOUNTING', when: 'the counts are being rebuilt from the chain (after a restart without Redis, or a lost Redis store); try again after `Retry-After` seconds' },
  { status: 503, code: 'UPSTREAM_UNAVAILABLE', when: 'the chain, or the reservation store (Redis), could not be read, or the mint\'s on-chain authority is not known yet; nothing is reserved unless `reserved: true`' },
] as const satisfies readonly { status: number; code: string; when: string }[];

/** What GET /x404_mint/<name>?wallet= answers besides POST's codes. */
export const MINT_QUERY_ERRORS = [{ status: 400, code: 'INVALID_WALLET', when: '?wallet= is not a base58 address (32 bytes)' }] as const;

export type MintRefusalCode = (typeof MINT_REFUSALS)[number]['code'] | (typeof MINT_QUERY_ERRORS)[number]['code'];



/** INVALID_TRANSACTION's `reason`, each with what it means. */
export const TRANSACTION_REASONS: Readonly<Record<string, string>> = {
  encoding: 'not canonical base64',
  too_large: 'more than 1,232 bytes',
  truncated: 'a field runs past the end of the bytes',
  trailing_bytes: 'bytes after the message',
  length_encoding: 'a compact-u16 length in a non-canonical encoding',
  unsupported_version: 'a message version other than legacy and v0',
  header: 'a message header the keys cannot satisfy',
  signature_count: 'not one signature per required signer',
  too_many_keys: 'more than 256 account keys',
  account_index: 'an instruction names a key that does not exist, or the fee payer as a program',
  duplicate_key: 'the same key twice in the message',
  lookup_table: 'an address lookup table: every key must be in the message for the gate to judge it',
  durable_nonce: 'a durable-nonce advance: the transaction must expire with its blockhash',
  signer_key_fee_payer: 'the gate\'s key pays the fee',
  signer_key_writable: 'the gate\'s key is writable',
  signer_key_missing: 'the gate\'s key is not a signer of the transaction',
  signer_key_elsewhere: 'the gate\'s key appears outside the template\'s one slot',
  extra_signer: 'a signer the template does not have',
  instruction_not_allowed: 'an instruction of a program neither the template nor allow_programs names',
  compute_budget: 'a malformed or repeated compute-budget instruction',
  ata_instruction: 'an associated-token-account instruction other than the fee payer\'s own idempotent creation',
  mint_instruction: 'no, or more than one, mint instruction of the template',
  wrong_mint: 'a mint other than the configured one',
  wrong_amount: 'an amount other than the configured one',
  wrong_destination: 'a destination other than the fee payer\'s associated token account',
  wrong_authority: 'a mint authority other than the gate\'s key, or multisig signers',
  wrong_program: 'the other token program than the configured one',
  candy_accounts: 'a mintV2/mintV1 whose guard, machine, payer or minter are not the configured ones and the fee payer',
  wrong_group: 'a guard group other than the configured one',
  signer_slot: 'the gate\'s key is not exactly in the thirdPartySigner slot',
  duplicate_submission: 'this very transaction is already being minted',
  payment: 'not exactly one System Program transfer of the mint\'s price from the fee payer to its destination',
};

/** POST bodies are at most this large: a 1,232-byte transaction is 1,644 characters of base64. */
export const MAX_MINT_BODY_BYTES = 4096;
