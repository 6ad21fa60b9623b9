import { activityFeature } from './activity.js';
import { ageFeature } from './age.js';
import { blacklistFeature } from './blacklist.js';
import { collectionFeature } from './collection.js';
import { multitokenFeature } from './multitoken.js';
import type { FeatureName } from '../contract/features.js';
import { nodebtFeature } from './nodebt.js';
import { tierFeature } from './tier.js';
import { timelockFeature } from './timelock.js';
import type { Feature } from './types.js';

/** The eight features, one module each, all of the shape in types.ts. */
export const FEATURES: Readonly<Record<FeatureName, Feature<any>>> = {
  blacklist: blacklistFeature,
  timelock: timelockFeature,
  multitoken: multitokenFeature,
  activity: activityFeature,
  tier: tierFeature,
  nodebt: nodebtFeature,
  age: ageFeature,
  collection: collectionFeature,
};
