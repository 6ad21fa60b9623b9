import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOGIN_HELP } from '../../src/cli/login.js';
import { FEATURE_CONTRACTS, FEATURE_NAMES, policyHeaderSpecs, type FeatureContract } from '../../src/contract/features.js';
import { LOCATION_HEADERS, PROTOCOL_HEADERS } from '../../src/contract/headers.js';
import { loadConfig } from '../../src/config.js';
import { FEATURES as MODULES } from '../../src/features/registry.js';
import { createCors } from '../../src/http/cors.js';
import { openApiDocument } from '../../src/openapi/document.js';
import { FEATURES as SDK_FEATURES } from '../../src/sdk/index.js';

/**
 * One description, many projections: what src/contract/features.ts says of each feature is what
 * the gate's modules run, the CORS preflight allows, the OpenAPI document describes, the SDK and
 * the CLI list, and the tables of docs/api.md and README.md show. A ninth feature added to the
 * contract without the rest fails here (or in tsc, for the module registry and the demo).
 */
const contractOf = (feature: (typeof FEATURE_NAMES)[number]): FeatureContract => FEATURE_CONTRACTS[feature];
const doc = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const unquote = (cell: string): string => cell.replace(/^`|`$/g, '');

/** The rows of the markdown table whose header line is `header`. */
function table(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const start = lines.indexOf(header);
  expect(start, header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
  }
  return rows;
}

describe('the feature contract and its projections', () => {
  it('the gate runs one module per feature, with the contract’s answers and headers', () => {
    expect(Object.keys(MODULES)).toEqual([...FEATURE_NAMES]);
    for (const feature of FEATURE_NAMES) {
      const module = MODULES[feature];
      expect(module.name).toBe(feature);
      expect(module.failures).toEqual(contractOf(feature).failures);
      expect(module.policyHeaders).toEqual(policyHeaderSpecs(feature).map((spec) => spec.name));
      expect(module.geoRequired).toBe(contractOf(feature).geo === 'required');
    }
  });

  it('the CORS preflight allows every header of every feature, the protocol and the position', () => {
    const cors = createCors(loadConfig({ JWT_SECRET: 'x'.repeat(32), SOLANA_RPC_URL: 'http://127.0.0.1:1' }));
    const allowed = new Set(cors.preflightFor(undefined)['Access-Control-Allow-Headers']!.split(', ').map((name) => name.toLowerCase()));
    const expected = [...PROTOCOL_HEADERS, ...LOCATION_HEADERS.map((spec) => spec.name), ...FEATURE_NAMES.flatMap((feature) => policyHeaderSpecs(feature).map((spec) => spec.name))];
    expect(expected.filter((name) => !allowed.has(name.toLowerCase()))).toEqual([]);
  });

  it('the OpenAPI document names each feature’s headers and its answers', () => {
    const paths = (openApiDocument as any).paths;
    for (const feature of FEATURE_NAMES) {
      const get = paths[`/x404_auth/${feature}`].get;
      const parameters = new Set(get.parameters.filter((parameter: any) => parameter.in === 'header').map((parameter: any) => parameter.name));
      for (const spec of policyHeaderSpecs(feature)) expect(parameters.has(spec.name), `${feature} ${spec.name}`).toBe(true);
      for (const { status, code } of [...contractOf(feature).failures, ...(contractOf(feature).limits ?? [])]) {
        const codes = get.responses[String(status)].content['application/json'].schema.allOf[1].properties.error.enum;
        expect(codes, `${feature} ${status} ${code}`).toContain(code);
      }
    }
  });

  it('the SDK and the CLI list every feature', () => {
    expect([...SDK_FEATURES]).toEqual([...FEATURE_NAMES]);
    for (const feature of FEATURE_NAMES) expect(LOGIN_HELP).toContain(feature);
  });

  it('docs/api.md §5: one row per feature, naming its headers and its failures with their statuses', () => {
    const rows = table(doc('docs/api.md'), '| Feature | Headers | Passes when | Failure |');
    expect(rows.map((row) => unquote(row[0]!))).toEqual([...FEATURE_NAMES]);
    FEATURE_NAMES.forEach((feature, i) => {
      const [, headers, , failures] = rows[i]!;
      for (const spec of contractOf(feature).headers) if (spec.name !== 'scope') expect(headers, `${feature}: ${spec.name}`).toContain(`\`${spec.name}\``);
      for (const { status, code } of contractOf(feature).failures) expect(failures, `${feature}: ${code}`).toMatch(new RegExp(`${status} (\`[A-Z_]+\`, )*\`${code}\``));
    });
  });

  it('README: the features table says when each passes, as the contract does', () => {
    const rows = table(doc('README.md'), '| Feature | The wallet passes when |');
    expect(rows.map((row) => unquote(row[0]!))).toEqual([...FEATURE_NAMES]);
    FEATURE_NAMES.forEach((feature, i) => expect(rows[i]![1]).toMatch(new RegExp(`^${contractOf(feature).passes.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(\\[|$)`)));
  });
});
