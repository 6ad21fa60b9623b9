import type { HeaderSpec } from '../contract/headers.js';
import { isJsonKind, type ValueSpec } from '../contract/values.js';
import { ADDRESS, AMOUNT, JSON_TYPE, type JsonObject } from './json.js';

/** A request header as an OpenAPI parameter: a plain string (`schema`) or JSON text (`json`). */
export interface HeaderParameter {
  name: string;
  description: string;
  /** Must be sent when signing in (not for nonce issuance or re-authentication). */
  requiredToSignIn?: boolean;
  schema?: JsonObject;
  json?: JsonObject;
  example?: string;
}

export function headerParameter(spec: HeaderParameter): JsonObject {
  const required = spec.requiredToSignIn ? ' Required to sign in.' : '';
  const parameter: JsonObject = { name: spec.name, in: 'header', required: false, description: spec.description + required };
  if (spec.json) parameter.content = { [JSON_TYPE]: { schema: spec.json } };
  else parameter.schema = spec.schema ?? { type: 'string' };
  if (spec.example !== undefined) parameter.example = spec.example;
  return parameter;
}

/** A contract header (src/contract/headers.ts) as a parameter. */
export function contractParameter(spec: HeaderSpec): JsonObject {
  const schema = valueSchema(spec.value);
  if (spec.default !== undefined) schema.default = spec.default;
  return headerParameter({
    name: spec.name,
    description: spec.description,
    requiredToSignIn: spec.required === true,
    ...(isJsonKind(spec.value.kind) ? { json: schema } : { schema }),
    ...(spec.example === undefined ? {} : { example: spec.example }),
  });
}

const NUMBER_TEXT: JsonObject = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const REQUIREMENT: JsonObject = { type: 'object', required: ['mint', 'amount'], properties: { mint: ADDRESS, amount: AMOUNT }, additionalProperties: false };

/** The JSON Schema of a header's value: of its text, or for the JSON kinds of the JSON it holds. */
export function valueSchema(value: ValueSpec): JsonObject {
  switch (value.kind) {
    case 'address':
      return { ...ADDRESS };
    case 'amount':
      return { ...AMOUNT };
    case 'integer':
      return { type: 'string', pattern: '^[0-9]+$', description: `a whole number from ${value.min} to ${value.max}` };
    case 'number':
      return { ...NUMBER_TEXT, description: `a non-negative number, at most ${value.max}` };
    case 'decimal':
      return { ...NUMBER_TEXT, description: `a non-negative ${value.unit} amount, at most ${value.decimals} decimal places` };
    case 'choice':
      return { type: 'string', enum: [...value.values], description: 'case-insensitive' };
    case 'boolean':
      return { type: 'string', enum: ['true', 'false'] };
    case 'countries':
      return { type: 'string', maxLength: value.maxLength };
    case 'quantifier':
      return { type: 'string', pattern: '^([Aa][Ll][Ll]|[Aa][Nn][Yy]|[0-9]{1,4})$' };
    case 'addresses':
      return { type: 'array', items: ADDRESS, maxItems: value.maxItems };
    case 'amounts':
      return { type: 'object', additionalProperties: AMOUNT, maxProperties: value.maxItems };
    case 'requirements':
      return { type: 'array', items: REQUIREMENT, maxItems: value.maxItems };
    case 'named-requirements':
      return { type: 'object', properties: Object.fromEntries(value.names.map((name) => [name, REQUIREMENT])), additionalProperties: false };
    case 'choices':
      return { type: 'array', items: { type: 'string', enum: [...value.values] }, maxItems: value.maxItems };
  }
}
