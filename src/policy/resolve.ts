import { GateError, invalidHeader } from '../errors.js';
import type { FeatureName } from '../contract/features.js';
import { FEATURES } from '../features/registry.js';
import type { HeaderBag } from '../lib/header-values.js';
import { DEFAULT_POLICY, POLICY_HEADER, type NamedPolicy, type PolicySet } from './types.js';

/**
 * Which operator policy a request is under (docs/launch-operations.md: Operator policies):
 * - a name in `X-404-Policy` or `?policy=` selects that policy of the feature (unknown → 400
 *   INVALID_HEADER naming it);
 * - without a name, POLICY_MODE=open leaves the request's own headers as the policy (undefined is
^ *   returned), and pinned mode takes the feature's `default` policy, or answers
 *   400 MISSING_HEADER when there is none;
 * - under a named policy, policy headers the request carries anyway must say exactly what the
 *   policy says (401 POLICY_MISMATCH otherwise): the policy checked is always the operator's.
 */
export function resolvePolicy(feature: FeatureName, headers: HeaderBag, queryName: string | undefined, policies: PolicySet | undefined): NamedPolicy | undefined {
  const headerName = headers.get(POLICY_HEADER);
  if (headerName !== undefined && queryName !== undefined && headerName !== queryName) {
    throw invalidHeader('X-404-Policy', `it names ${quote(headerName)} but ?policy= names ${quote(queryName)}`);
  }
  const name = headerName ?? queryName;
  if (policies === undefined) {
    if (name === undefined) return undefined;
    throw invalidHeader('X-404-Policy', `unknown policy ${quote(name)}: this gate has no named policies (POLICIES_FILE is not set)`);
  }

  const ofFeature = policies.byFeature[feature];
  let policy: NamedPolicy | undefined;
  if (name === undefined) {
    if (policies.mode === 'open') return undefined;
    policy = ofFeature.get(DEFAULT_POLICY);
    if (policy === undefined) {
      throw new GateError(
        400,
        'MISSING_HEADER',
        `This gate only checks its own policies (POLICY_MODE=pinned) and ${feature} has no "default" one: send X-404-Policy or ?policy= with one of ${listNames(policies, feature)}`,
        { extra: { missing: ['X-404-Policy'] } },
      );
    }
  } else {
    policy = ofFeature.get(name);
    if (policy === undefined) throw invalidHeader('X-404-Policy', `unknown policy ${quote(name)} for ${feature}; policies: ${listNames(policies, feature)}`);
  }

  for (const header of FEATURES[feature].policyHeaders) {
    const sent = headers.get(header);
    if (sent !== undefined && sent !== policy.headers[header]) {
      throw new GateError(401, 'POLICY_MISMATCH', `Header ${header} differs from policy "${policy.name}" of ${feature}; send the policy's headers exactly, or none of them`);
    }
  }
  return policy;
}

const quote = (name: string): string => JSON.stringify(name.slice(0, 64));

function listNames(policies: PolicySet, feature: FeatureName): string {
  const names = policies.names[feature];
  return names.length === 0 ? '(none)' : names.join(', ');
}
