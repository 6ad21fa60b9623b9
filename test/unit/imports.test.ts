import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The module graph of src/ and workers/ has no cycle (type-only imports included): each room
 * depends on lower ones, so a newcomer can read a module without reading what imports it
 * (docs/architecture.md). The packages point one way: the gate imports neither the local chain
 * nor the development page; the local chain imports nothing of the gate; the development page
 * reaches the gate only through its published entry points.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
/** Every specifier a module names: static imports and re-exports, dynamic import(), require(). */
const ANY_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Each module of the folders and what it names, resolved to a path when relative. */
function specifiers(...dirs: string[]): { file: string; specifier: string; target: string | undefined }[] {
  return dirs.flatMap((dir) =>
    sourceFiles(join(root, dir)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(ANY_IMPORT)].map((match) => {
        const specifier = (match[1] ?? match[2] ?? match[3] ?? match[4]) as string;
        return { file: relative(root, file), specifier, target: specifier.startsWith('.') ? relative(root, resolve(dirname(file), specifier)) : undefined };
      }),
    ),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'workers'))]) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2]) as string;
      targets.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(relative(root, member));
      } while (member !== node);
      if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('package boundaries', () => {
  it('the gate (src/, workers/) imports neither the local chain nor the development page', () => {
    const found = specifiers('src', 'workers').filter(
      ({ specifier, target }) => /^x404-(localnet|devpage)\b/.test(specifier) || (target !== undefined && !/^(src|workers)\//.test(target)),
    );
    expect(found).toEqual([]);
  });

  it('the contract (src/contract) imports nothing outside itself: browsers, the SDK and every projection read it', () => {
    const found = specifiers('src/contract').filter(({ target }) => target === undefined || !target.startsWith('src/contract/'));
    expect(found).toEqual([]);
  });

  it('the local chain imports nothing of the gate, nor anything outside its package', () => {
    const found = specifiers('packages/localnet/src').filter(
      ({ specifier, target }) => /^x404-/.test(specifier) || (target !== undefined && !target.startsWith('packages/localnet/src/')),
    );
    expect(found).toEqual([]);
  });

  it("the development page reaches the gate only through its published entry points (the files package.json's exports name)", () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
    const published = new Set(Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [] : [target.default.replace(/^\.\//, '')])));
    expect(published.has('dist/src/sdk/index.js')).toBe(true);
    const found = specifiers('packages/devpage/src').filter(
      ({ specifier, target }) => specifier.startsWith('x404-gate') || (target !== undefined && !target.startsWith('packages/devpage/src/') && !published.has(target)),
    );
    expect(found).toEqual([]);
  });

  it('sees an import that crosses a boundary (the checker itself)', () => {
    const text = "import { a } from '../../packages/localnet/src/x.js';\nexport * from 'x404-localnet/y.js';\nconst m = await import('x404-devpage/z.js');";
    expect([...text.matchAll(ANY_IMPORT)].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4])).toEqual([
      '../../packages/localnet/src/x.js',
      'x404-localnet/y.js',
      'x404-devpage/z.js',
    ]);
  });
});

describe('module graph', () => {
  it('reads every relative import of src/ and workers/', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    // Every relative import resolves to a module of the tree: the graph is complete.
    const dangling = [...graph.entries()].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target) && !target.endsWith('.wasm') && !target.includes('/node_modules/')).map((target) => `${relative(root, file)} → ${relative(root, target)}`),
    );
    expect(dangling).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it('finds a cycle when there is one (the checker itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(graph).map((component) => component.length)).toEqual([3]);
  });
});
