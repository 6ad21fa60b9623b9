import { SIGN_MODES } from '../config.js';
import { FEATURE_NAMES } from '../contract/features.js';
import { headerParameter } from './headers.js';
import { ADDRESS as MINT, AMOUNT, type JsonObject } from './json.js';

/** The document's shared components: the answers' schemas, response headers, and the sign-in's own parameters. */
export const schemas: JsonObject = {
  NonceReady: {
    type: 'object',
    required: ['status', 'nonce', 'mechanism', 'expiresIn'],
    properties: {
      status: { const: 'nonce_ready' },
      nonce: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Single use, bound to the feature; also in X-404-Nonce.' },
      mechanism: { type: 'string', description: 'Leading word of the challenge\'s feature constant; also in X-404-Mechanism.' },
      expiresIn: { type: 'integer', minimum: 1, description: 'Seconds until the nonce expires.' },
      policyMode: { type: 'string', enum: ['open', 'pinned'], description: 'Only when the gate has operator policies (POLICIES_FILE): POLICY_MODE.' },
      policies: { type: 'array', items: { type: 'string' }, description: 'Only when the gate has operator policies: the names of this feature\'s, for X-404-Policy or ?policy=.' },
      rule: { type: 'string', description: 'At /x404_auth/<rule>: the rule\'s name.' },
      rules: { type: 'array', items: { type: 'string' }, description: 'Only when the gate has rules: their names (each served at /x404_auth/<rule>).' },
      signModes: { type: 'array', items: { enum: [...SIGN_MODES] }, minItems: 1, description: 'The sign modes this gate accepts (SIGN_MODES), for X-404-Sign-Mode.' },
      siws: {
        type: 'object',
        description: 'Only when siws is accepted: what a Sign In With Solana input needs besides the nonce, the address and issuedAt.',
        required: ['domain', 'domains', 'chainId', 'resources', 'issuedAt'],
        properties: {
          domain: { type: 'string', description: 'The first of SIWS_DOMAINS (for clients that are not a page).' },
          domains: { type: 'array', items: { type: 'string' }, description: 'SIWS_DOMAINS: a page puts its own host in the message (wallets compare the domain with the page\'s origin); the gate refuses any other.' },
          statement: { type: 'string', description: 'SIWS_STATEMENT, when set: the text to show (not checked).' },
          chainId: { type: 'string', description: 'SIWS_CHAIN_ID: the Chain ID the message must carry.' },
          resources: { type: 'array', items: { type: 'string' }, description: 'Must be listed in the message: x404:<feature> binds the feature.' },
          issuedAt: { type: 'string', format: 'date-time', description: 'When this nonce was issued, by the gate\'s clock: the message\'s Issued At must lie within the nonce\'s life, so a caller whose clock is off uses this.' },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  LoginSuccess: {
    type: 'object',
    required: ['success', 'token', 'publicKey', 'feature'],
    properties: {
      success: { const: true },
      token: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$', description: 'JWT (HS256, or EdDSA/ES256 with a kid per JWT_ALG); claims in GateTokenClaims.' },
      publicKey: MINT,
      feature: { type: 'string', description: 'The feature, or the rule\'s name at /x404_auth/<rule>.' },
      tier: { type: 'string', enum: ['bronze', 'silver', 'gold'], description: 'tier: the highest tier met.' },
      collectionNfts: { type: 'integer', minimum: 1, description: 'collection: the NFTs counted (the count stops once min_count is reached).' },
      standardsChecked: {
        type: 'array',
        items: { type: 'string', enum: ['token-metadata', 'token-2022', 'core', 'das'] },
        description: 'collection: the NFT standards read before the answer was known.',
      },
      rule: { type: 'string', description: 'At /x404_auth/<rule>: the rule\'s name.' },
      leaves: {
        type: 'array',
        description: 'At /x404_auth/<rule>: each leaf in tree order, with its feature\'s results when it passed; passed null: the outcome was decided without it.',
        items: {
          type: 'object',
          required: ['path', 'passed'],
          properties: {
            path: { type: 'string', description: 'Where the leaf sits, e.g. $.all[2].any[0].' },
            feature: { type: 'string' },
            policy: { type: 'string' },
            wallets: { type: 'string', description: 'A wallet list leaf: the list\'s file; it passes when the list holds the wallet.' },
            passed: { type: ['boolean', 'null'] },
            error: { type: 'string', description: 'The code the leaf answered when it failed (or could not be read).' },
          },
          additionalProperties: true,
        },
      },
    },
    not: { required: ['alreadyAuthenticated'] },
    additionalProperties: true,
    description: 'Feature results (e.g. tier, walletAgeDays) are added beside the fixed fields.',
  },
  ReauthSuccess: {
    type: 'object',
    required: ['success', 'alreadyAuthenticated', 'publicKey', 'feature', 'expiresAt'],
    properties: {
      success: { const: true },
      alreadyAuthenticated: { const: true },
      publicKey: MINT,
      feature: { type: 'string', description: 'The feature, or the rule\'s name at /x404_auth/<rule>.' },
      expiresAt: { type: 'string', format: 'date-time', description: 'When the token expires.' },
    },
    additionalProperties: false,
  },
  Error: {
    type: 'object',
    required: ['error', 'message'],
    properties: {
      error: { type: 'string', description: 'Stable code to switch on.' },
      message: { type: 'string', description: 'What failed, with the numbers (mint, current, required).' },
      status: { type: 'string', enum: ['locdeny', 'locerror'], description: 'Set for location outcomes (docs/api.md §7).' },
      missing: { type: 'array', items: { type: 'string' }, description: 'MISSING_HEADER: the headers that were missing.' },
      header: { type: 'string', description: 'INVALID_HEADER: the header that was invalid.' },
      field: { type: 'string', description: 'INVALID_SIGNATURE of a sign mode\'s message: the field that does not match (e.g. domain, Expiration Time, recentBlockhash, instructions).' },
      mint: MINT,
      balance: AMOUNT,
      maximum: AMOUNT,
      requirements: { type: 'array', items: { type: 'object' }, description: 'multitoken, tier: each requirement with the balance found.' },
      rule: { type: 'string', description: 'A rule\'s sign-in: the rule\'s name (the rest of the body is the deciding leaf\'s answer).' },
      failed: { type: 'array', items: { type: 'string' }, description: 'A rule\'s sign-in: the paths of the leaves that counted against the wallet.' },
      list: { type: 'string', description: 'WALLET_NOT_LISTED / WALLET_DENIED: the wallet list\'s file.' },
      required: { type: ['integer', 'string'], description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: min_count; timelock: the amount required (base units, a string).' },
      found: { type: 'integer', description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: the NFTs counted; HOLDINGS_LIMIT: the token accounts the wallet owns (as listed).' },
      byStandard: { type: 'object', additionalProperties: { type: 'integer' }, description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: NFTs counted per standard read.' },
      standardsChecked: { type: 'array', items: { type: 'string' }, description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: the standards read.' },
      setting: { type: 'string', description: 'COLLECTION_LIMIT, HOLDINGS_LIMIT (TOKEN_ACCOUNTS_MAX): the configured bound that was reached.' },
      bound: { type: 'integer', description: 'COLLECTION_LIMIT, HOLDINGS_LIMIT: that bound\'s value.' },
      nonceSpent: {
        type: 'boolean',
        description:
          'UPSTREAM_UNAVAILABLE (503): false when the nonce is not spent (the gate gave it back), so the same signed request may be sent again after Retry-After; true when it is spent or may be, so a new nonce must be signed.',
      },
    },
    additionalProperties: true,
  },
  Health: {
    type: 'object',
    required: ['status', 'service'],
    properties: {
      status: { const: 'ok' },
      service: { type: 'string' },
      checks: { type: 'object', additionalProperties: { type: 'string' }, description: 'Dependencies: "ok" or why they are degraded.' },
    },
    additionalProperties: true,
  },
  GateTokenClaims: {
    type: 'object',
    description: 'Claims of the token in LoginSuccess (verify with HS256 and JWT_SECRET, or with EdDSA/ES256 and the keys at /.well-known/jwks.json).',
    required: ['sub', 'feature', 'iat', 'exp', 'jti', 'pol'],
    properties: {
      sub: { ...MINT, description: 'The wallet.' },
      feature: { type: 'string', description: 'The feature, or the rule\'s name for a rule\'s token.' },
      iat: { type: 'integer' },
      exp: { type: 'integer' },
      jti: { type: 'string' },
      pol: { type: 'string', description: 'base64url(SHA-256(canonical JSON of the policy headers checked)); canonical: lower-case header name → value as sent, keys sorted, no whitespace.' },
      pnm: { type: 'string', description: 'The operator policy (POLICIES_FILE) the token was issued under, when it was a named one.' },
      rul: { type: 'string', description: 'The rule the token was issued under; `pol` is then the digest of the rule\'s whole tree.' },
      lvs: { type: 'string', pattern: '^[-01?]+$', description: 'A rule\'s leaves in tree order: 1 passed, 0 failed, - not needed, ? could not be read.' },
      sgm: { enum: SIGN_MODES.filter((mode) => mode !== 'challenge'), description: 'How the wallet proved itself (X-404-Sign-Mode) when it was not the challenge string: absent means challenge.' },
      iss: { type: 'string', description: 'JWT_ISSUER, when set (always with EdDSA/ES256).' },
      aud: { type: 'string', description: 'JWT_AUDIENCE, when set.' },
      tier: { type: 'string', enum: ['bronze', 'silver', 'gold'] },
    },
    additionalProperties: true,
  },
  PolicyListing: {
    type: 'object',
    required: ['mode', 'policies'],
    properties: {
      mode: { type: 'string', enum: ['open', 'pinned'], description: 'POLICY_MODE.' },
      policies: {
        type: 'object',
        description: 'feature → policy name → the policy.',
        propertyNames: { enum: [...FEATURE_NAMES] },
        additionalProperties: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['pol', 'headers'],
            properties: {
              pol: { type: 'string', description: 'The `pol` of tokens issued under this policy.' },
              headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'The policy headers exactly as a request would carry them.' },
            },
            additionalProperties: false,
          },
        },
      },
      rules: {
        type: 'object',
        description: 'rule name → the rule: the `pol` of its tokens and its tree as loaded (policy references resolved to their headers, wallet lists as file, size and digest).',
        additionalProperties: {
          type: 'object',
          required: ['pol', 'tree'],
          properties: {
            pol: { type: 'string', description: 'The `pol` of tokens issued under this rule: base64url SHA-256 of the tree as loaded.' },
            tree: { type: 'object', description: 'all / any / atLeast+of / not nodes; feature leaves with their headers and pol; wallet leaves with file, addresses and digest.' },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  JsonWebKeySet: {
    type: 'object',
    required: ['keys'],
    properties: {
      keys: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['kty', 'kid', 'alg', 'use'],
          properties: {
            kty: { enum: ['OKP', 'EC'] },
            crv: { enum: ['Ed25519', 'P-256'] },
            alg: { enum: ['EdDSA', 'ES256'] },
            use: { const: 'sig' },
            kid: { type: 'string', description: 'RFC 7638 thumbprint unless the key file names it; tokens carry it in their header.' },
            x: { type: 'string' },
            y: { type: 'string' },
          },
          not: { required: ['d'] },
        },
      },
    },
  },
};

export const responseHeaders: JsonObject = {
  X404Nonce: { description: 'The nonce (nonce issuance only): letters and digits, so a SIWS message can carry it.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
  X404Mechanism: { description: 'The challenge mechanism, e.g. SERVICE404 (nonce issuance only).', schema: { type: 'string' } },
  CacheControl: { schema: { type: 'string' }, example: 'no-store' },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  AccessControlAllowOrigin: { schema: { type: 'string' }, example: '*' },
  AccessControlExposeHeaders: { schema: { type: 'string' }, example: 'X-404-Nonce, X-404-Mechanism' },
};

export const parameters: JsonObject = {
  CacheBuster: { name: '_t', in: 'query', required: false, description: 'Ignored; clients add it to defeat caches.', schema: { type: 'string' } },
  Nonce: headerParameter({ name: 'X-404-Nonce', description: 'The nonce from step 1.', requiredToSignIn: true, schema: { type: 'string', maxLength: 64 } }),
  Signature: headerParameter({ name: 'X-404-Signature', description: 'base58 ed25519 signature (64 bytes) of the challenge.', requiredToSignIn: true }),
  Addr: headerParameter({ name: 'X-404-Addr', description: 'The wallet: base58 ed25519 public key (32 bytes).', requiredToSignIn: true, schema: MINT }),
  Jwt: headerParameter({ name: 'x-jwt', description: 'A token from an earlier sign-in, to re-authenticate without signing.' }),
  SignMode: headerParameter({
    name: 'X-404-Sign-Mode',
    description:
      'How the wallet proves the challenge (default challenge): challenge (signMessage over the challenge text), siws (a Sign In With Solana message in X-404-Message naming one of SIWS_DOMAINS, this nonce, this wallet, Chain ID SIWS_CHAIN_ID and the resource x404:<feature>), offchain (the Solana off-chain message whose body is the challenge; X-404-Message optional), memo-tx (a legacy or v0 transaction in X-404-Message, fee payer = the wallet as sole signer, zero blockhash, one Memo instruction carrying the challenge after optional compute-budget ones). The nonce answer lists the accepted modes (signModes).',
    schema: { enum: [...SIGN_MODES] },
  }),
  Message: headerParameter({
    name: 'X-404-Message',
    description: 'siws, offchain, memo-tx: base64 (standard, padded) of the signed message or transaction, at most 4096 bytes (1232 for a transaction). A malformed one is 400 INVALID_HEADER; one that does not prove this challenge for this wallet is 401 INVALID_SIGNATURE naming the field.',
    schema: { type: 'string', maxLength: 5464, pattern: '^[A-Za-z0-9+/]+={0,2}$' },
  }),
};

