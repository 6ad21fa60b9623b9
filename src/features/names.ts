export const FEATURE_NAMES = ['blacklist', 'timelock', 'multitoken', 'activity', 'tier', 'nodebt', 'age', 'collection'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

const featureSet: ReadonlySet<string> = new Set(FEATURE_NAMES);
export const isFeatureName = (value: string): value is FeatureName => featureSet.has(value);
