import { notImplemented } from '../errors.js';
import { blacklistFeature } from './blacklist.js';
import type { FeatureName } from './names.js';
import type { Feature } from './types.js';

function pending(name: FeatureName): Feature {
  return {
    name,
    policyHeaders: [],
    geoRequired: false,
    parse() {
      throw notImplemented(name);
    },
    async check() {
      throw notImplemented(name);
    },
  };
}

export const FEATURES: Readonly<Record<FeatureName, Feature<any>>> = {
  blacklist: blacklistFeature,
  timelock: pending('timelock'),
  multitoken: pending('multitoken'),
  activity: pending('activity'),
  tier: pending('tier'),
  nodebt: pending('nodebt'),
  age: pending('age'),
};
