import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The gate's published package holds the gate: `npm pack` lists no file of the local chain, the
 * development page or the bench, and every module of the gate stays small enough to read in one
 * sitting (docs/architecture.md).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 600;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe("the gate's package", () => {
  it('npm pack carries the gate only: no local chain, development page or bench', () => {
    const listing = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as { files: { path: string }[] }[];
    const paths = listing[0]!.files.map((file) => file.path);
    expect(paths).toContain('dist/src/main.js');
    expect(paths).toContain('dist/src/sdk/index.js');
    expect(paths.filter((path) => /localnet|devpage|bench|watch|(^|\/)test\//.test(path))).toEqual([]);
  });

  it(`no module of the gate is longer than ${MAX_LINES} lines`, () => {
    const long = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'workers'))]
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
