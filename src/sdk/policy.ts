/**
 * The features and their policy objects, as the SDK takes them: projections of the gate's
 * contract (src/contract/features.ts), and the one function that turns a policy object into the
 * headers the gate reads (src/policy-wire/to-headers.ts).
 */
import { FEATURE_NAMES, isFeatureName, type FeatureName, type PolicyFor } from '../contract/features.js';

export { policyToHeaders } from '../policy-wire/to-headers.js';
export type { Amount, TokenRequirement } from '../contract/values.js';
export type { GeoPolicy, PolicyByFeature, PolicyFor } from '../contract/features.js';

export const FEATURES = FEATURE_NAMES;
export type Feature = FeatureName;
export const isFeature = isFeatureName;

export type BlacklistPolicy = PolicyFor<'blacklist'>;
export type TimelockPolicy = PolicyFor<'timelock'>;
export type MultitokenPolicy = PolicyFor<'multitoken'>;
export type ActivityPolicy = PolicyFor<'activity'>;
export type TierPolicy = PolicyFor<'tier'>;
export type NodebtPolicy = PolicyFor<'nodebt'>;
export type AgePolicy = PolicyFor<'age'>;
export type CollectionPolicy = PolicyFor<'collection'>;
