import { activityFeature } from './activity.js';
import { ageFeature } from './age.js';
import { balanceFeature } from './balance.js';
import { blacklistFeature } from './blacklist.js';
import { collectionFeature } from './collection.js';
import { multitokenFeature } from './multitoken.js';
import type { FeatureName } from '../contract/features.js';
import { nodebtFeature } from './nodebt.js';
import { tierFeature } from './tier.js';
import { timelockFeature } from './timelock.js';
import type { Feature } from './types.js';

/** Every feature of the contract, one module each (defineFeature, types.ts). */
export const FEATURES: Readonly<Record<FeatureName, Feature<any>>> = {
  blacklist: blacklistFeature,
  timelock: timelockFeature,
  multitoken: multitokenFeature,
  activity: activityFeature,
  tier: tierFeature,
  nodebt: nodebtFeature,
  age: ageFeature,
  collection: collectionFeature,
  balance: balanceFeature,
};
