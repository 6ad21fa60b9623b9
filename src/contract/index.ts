/**
 * The gate's contract with its callers, in one browser-safe folder that imports nothing outside
 * itself: each feature (features.ts) and the kinds of value its headers carry (values.ts), the
 * headers every sign-in shares (headers.ts), the error codes (errors.ts), the co-signed mint
 * template (mint.ts). Everything a caller sees of these is projected from here.
 */
export * from './errors.js';
export * from './features.js';
export * from './headers.js';
export * from './mint.js';
export * from './values.js';
