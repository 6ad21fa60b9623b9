import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/openapi/document.js';
import { MINT_HELP } from '../../src/cli/mint.js';
import { MINT_FIELDS, MINT_PROGRAMS, MINT_REFUSALS, MINT_STATE_FIELDS, TRANSACTION_REASONS } from '../../src/contract/mint.js';
import { MINT_CONFIGURATION_KEYS } from '../../src/sdk/index.js';

/**
 * One description, many projections: the tables of docs/minting.md, the SDK's MintConfiguration,
 * the OpenAPI document and the CLI's help all say what src/contract/mint.ts says.
 */
const doc = readFileSync(new URL('../../docs/minting.md', import.meta.url), 'utf8');

/** The rows of the markdown table whose header starts with `header`. */
function table(header: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  expect(start, header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
  }
  return rows;
}

const unquote = (cell: string): string => cell.replace(/^`|`$/g, '');

describe('the mint template description and its projections', () => {
  it('docs/minting.md: the configuration table is the fields, in order', () => {
    const rows = table('| Field | Templates | Required | Meaning |');
    expect(rows.map((row) => unquote(row[0]!))).toEqual(MINT_FIELDS.map((field) => field.file));
    MINT_FIELDS.forEach((field, i) => {
      const [, templates, required, meaning] = rows[i]!;
      expect(templates).toBe(field.programs === 'all' ? 'all' : field.programs.join(', '));
      expect(required).toBe(field.required === true ? 'yes' : field.required === false ? 'no' : field.required);
      expect(meaning).toBe(field.description);
    });
  });

  it('docs/minting.md: the refusals and the reasons', () => {
    expect(table('| Status | Code | When |').map(([status, code, when]) => ({ status: Number(status), code: unquote(code!), when }))).toEqual([...MINT_REFUSALS]);
    expect(Object.fromEntries(table('| Reason | Meaning |').map(([reason, meaning]) => [unquote(reason!), meaning]))).toEqual(TRANSACTION_REASONS);
  });

  it('the SDK\'s MintConfiguration and the OpenAPI schema name every served field', () => {
    const served = [...MINT_STATE_FIELDS.map((field) => field.json), ...MINT_FIELDS.flatMap((field) => (field.json ? [field.json] : [])), 'tokenProgram'].sort();
    expect([...MINT_CONFIGURATION_KEYS].sort()).toEqual(served);
    const schema = (openApiDocument as any).components.schemas.MintConfiguration;
    expect(Object.keys(schema.properties).sort()).toEqual(served);
    const reasons = (openApiDocument as any).paths['/x404_mint/{name}'].post.responses['400'].content['application/json'].schema.allOf[1].properties.reason.enum;
    expect(reasons).toEqual(Object.keys(TRANSACTION_REASONS));
  });

  it('the CLI\'s help names the templates it builds', () => {
    for (const program of MINT_PROGRAMS.filter((name) => !name.includes('candy'))) expect(MINT_HELP).toContain(program);
  });
});
