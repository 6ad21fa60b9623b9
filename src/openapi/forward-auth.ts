import { SIGN_MODES } from '../config.js';
import { errorResponse } from './errors.js';
import { ADDRESS as MINT, headerRef, JSON_TYPE, ref, type JsonObject } from './json.js';
import type { OpenApiOptions } from './sign-in.js';

/** GET /x404_verify: forward auth for reverse proxies (docs/launch-operations.md#forward-auth). */
export function forwardAuth(options: OpenApiOptions): JsonObject {
  const cookieName = options.cookieName ?? 'x404_token';
  const requirement = (name: string, what: string): JsonObject[] => [
    { name, in: 'query', required: false, description: `The ${what} the protected route requires (at most once; an unknown, repeated or empty parameter is 401 INVALID_REQUIREMENT).`, schema: { type: 'string', minLength: 1 } },
    { name: `X-404-${name[0]!.toUpperCase()}${name.slice(1)}`, in: 'header', required: false, description: `The ${what} the protected route requires; when the query names one too, both must agree.`, schema: { type: 'string' } },
  ];
  const challenge = { 'WWW-Authenticate': { description: 'Bearer realm="x404"', required: true, schema: { type: 'string' } }, 'Cache-Control': headerRef('CacheControl') };
  return {
    get: {
      operationId: 'forward_auth',
      tags: ['forward auth'],
      summary: 'Is this token good for the protected route? (nginx auth_request, Traefik ForwardAuth, Caddy forward_auth, Envoy ext_authz)',
      description:
        'Any method is answered alike (proxies ask with the method of the request they guard, OPTIONS included). Not rate limited: the proxy calls once per request it guards. The token comes from `Authorization: Bearer`, `x-jwt` or the cookie; a token issued under a named policy passes only while that policy is unchanged. The query may hold only `feature`, `policy` and `rule`, each once, lower case, with a value, and `policy` only beside its `feature`; anything else, and any other path spelled like this one, is 401 `INVALID_REQUIREMENT` (with FORWARD_AUTH_SUBPATHS=true, `/x404_verify/<guarded path>` is answered too, requirements from headers only).',
      security: [{ bearerToken: [] }, { gateToken: [] }, { cookieToken: [] }],
      parameters: [
        ...requirement('feature', 'feature'),
        ...requirement('policy', 'operator policy (by name)'),
        ...requirement('rule', 'rule (by name; a rule may also be named as the feature)'),
        { name: 'Authorization', in: 'header', required: false, description: '`Bearer <token>`.', schema: { type: 'string' } },
        { $ref: '#/components/parameters/Jwt' },
        { name: cookieName, in: 'cookie', required: false, description: 'The token, as X404_SET_COOKIE sets it.', schema: { type: 'string' } },
      ],
      responses: {
        '200': {
          description: 'The token is valid and meets the requirements; the body is its claims.',
          headers: {
            'X-404-Wallet': { description: 'The wallet (the token\'s sub).', required: true, schema: MINT },
            'X-404-Feature': { description: 'The token\'s feature (a rule\'s name for a rule\'s token).', required: true, schema: { type: 'string' } },
            'X-404-Policy': { description: 'The operator policy the token was issued under, when it was a named one.', schema: { type: 'string' } },
            'X-404-Rule': { description: 'The rule the token was issued under, when it was one.', schema: { type: 'string' } },
            'X-404-Tier': { description: 'tier: the tier the wallet reached.', schema: { type: 'string', enum: ['bronze', 'silver', 'gold'] } },
            'X-404-Sign-Mode': { description: 'How the wallet signed in (the token\'s sgm; challenge when it has none).', schema: { enum: [...SIGN_MODES] } },
            'X-404-Policy-Checked': {
              description: 'none: the route named no policy or rule and the gate runs POLICY_MODE=open, so the token may have been issued under conditions its holder chose. Pin the route (policy=<name>, X-404-Policy) or run POLICY_MODE=pinned.',
              schema: { const: 'none' },
            },
            'Cache-Control': headerRef('CacheControl'),
          },
          content: { [JSON_TYPE]: { schema: ref('GateTokenClaims') } },
        },
        '401': { ...errorResponse(401, ['MISSING_TOKEN', 'INVALID_TOKEN', 'TOKEN_EXPIRED', 'FEATURE_MISMATCH', 'POLICY_MISMATCH', 'INVALID_REQUIREMENT']), headers: { ...(errorResponse(401, []).headers as JsonObject), ...challenge } },
        '431': errorResponse(431, ['HEADERS_TOO_LARGE']),
      },
    },
  };
}

