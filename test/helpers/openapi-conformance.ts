import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import type { HttpResult } from './client.js';

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

export interface DocumentCheck {
  /** Resolves a `{$ref: '#/…'}` node of the document (other nodes come back as they are). */
  resolve(node: any): any;
  /** Asserts `result` is a documented answer of `method path` and matches its schemas and headers. */
  conforms(path: string, method: string, result: HttpResult, responseRef?: string): void;
}

export const pointer = (...parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Validates real answers against an OpenAPI document (the gate's /openapi.json, or one built for a configuration). */
export function documentCheck(doc: any): DocumentCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (ref: string): ValidateFunction => {
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#/${ref}` });
      validators.set(ref, validate);
    }
    return validate;
  };
  const resolve = (node: any): any =>
    node && typeof node.$ref === 'string'
      ? node.$ref
          .slice(2)
          .split('/')
          .reduce((at: any, part: string) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
      : node;

  return {
    resolve,
    conforms(path, method, result, responseRef) {
      const base = responseRef ?? pointer('paths', path, method, 'responses', String(result.status));
      const response = resolve({ $ref: `#/${base}` });
      expect(response, `${method.toUpperCase()} ${path} → ${result.status} is not documented`).toBeDefined();

      const contentType = result.headers.get('content-type')?.split(';')[0]?.trim();
      if (response.content) {
        expect(contentType && response.content[contentType], `${path} ${result.status}: content type ${contentType}`).toBeTruthy();
        const validate = validatorFor(`${base}/${pointer('content', contentType as string, 'schema')}`);
        if (!validate(result.body)) {
          throw new Error(`${method.toUpperCase()} ${path} → ${result.status} does not match the document:\n${ajv.errorsText(validate.errors)}\n${JSON.stringify(result.body)}`);
        }
      }
      for (const [name, declared] of Object.entries<any>(response.headers ?? {})) {
        const header = resolve(declared);
        const value = result.headers.get(name);
        if (header.required) expect(value, `${path} ${result.status}: header ${name}`).not.toBeNull();
        if (value !== null && header.schema) {
          const validate = ajv.compile(header.schema);
          expect(validate(value), `${path} ${result.status}: header ${name}=${value}`).toBe(true);
        }
      }
    },
  };
}
