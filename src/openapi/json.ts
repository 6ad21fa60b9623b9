/** The JSON shapes and references the OpenAPI document is built from. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const JSON_TYPE = 'application/json';
export const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });

export const ADDRESS: JsonObject = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'base58 address (32 bytes)' };
export const AMOUNT: JsonObject = { type: 'string', pattern: '^[0-9]{1,20}$', description: "integer amount in the token's base units" };
