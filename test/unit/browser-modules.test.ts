import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserModules } from 'x404-devpage/browser-modules.js';

/**
 * What the watch page of `npm run dev` serves to the browser: an entry's module graph as files
 * under URLs that mirror the repository, and an import map for the packages, resolved with the
 * conditions a browser bundler picks. Node builtins are refused by name.
 */
let root: string;
const write = (path: string, text: string): void => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'x404-modules-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('browserModules', () => {
  it('follows relative imports and packages (exports conditions, subpaths, nested packages) into one import map', () => {
    write('dist/page.js', "import { a } from './lib/a.js';\nimport dual from 'dual';\nexport { b } from 'scoped-sub';\nconst later = () => import('./lazy.js');\n");
    write('dist/lib/a.js', "import {\n  sub,\n} from '@scope/pkg/sub';\nexport const a = sub;\n");
    write('dist/lazy.js', 'export default 1;\n');
    write('node_modules/dual/package.json', JSON.stringify({ exports: { '.': { types: './x.d.ts', node: './node.js', require: './cjs.js', import: './esm.js' } } }));
    write('node_modules/dual/esm.js', "import 'legacy';\nexport default 2;\n");
    write('node_modules/legacy/package.json', JSON.stringify({ module: 'mod.js', main: 'main.cjs' }));
    write('node_modules/legacy/mod.js', '');
    write('node_modules/@scope/pkg/package.json', JSON.stringify({ exports: { './*': { browser: './browser/*.js', default: './node/*.js' } } }));
    write('node_modules/@scope/pkg/browser/sub.js', 'export const sub = 3;\n');
    write('node_modules/scoped-sub/package.json', JSON.stringify({ exports: { '.': './index.js' } }));
    write('node_modules/scoped-sub/index.js', "export { b } from 'dual-inner';\n");
    write('node_modules/scoped-sub/node_modules/dual-inner/package.json', JSON.stringify({ exports: './inner.js' }));
    write('node_modules/scoped-sub/node_modules/dual-inner/inner.js', 'export const b = 4;\n');

    const modules = browserModules(root, [join(root, 'dist/page.js')], '/files');
    expect(modules.entries).toEqual(['/files/dist/page.js']);
    expect(modules.importMap.imports).toEqual({
      dual: '/files/node_modules/dual/esm.js',
      legacy: '/files/node_modules/legacy/mod.js',
      '@scope/pkg/sub': '/files/node_modules/@scope/pkg/browser/sub.js',
      'scoped-sub': '/files/node_modules/scoped-sub/index.js',
      'dual-inner': '/files/node_modules/scoped-sub/node_modules/dual-inner/inner.js',
    });
    expect([...modules.files.keys()].sort()).toEqual(
      [
        '/files/dist/page.js',
        '/files/dist/lib/a.js',
        '/files/dist/lazy.js',
        ...Object.values(modules.importMap.imports),
      ].sort(),
    );
    expect(modules.files.get('/files/dist/lazy.js')).toBe('export default 1;\n');
  });

  it('refuses a module that imports a Node builtin, naming the file', () => {
    write('dist/page.js', "import './server.js';\n");
    write('dist/server.js', "import { readFileSync } from 'node:fs';\n");
    expect(() => browserModules(root, [join(root, 'dist/page.js')], '/files')).toThrow('dist/server.js imports node:fs, a Node builtin that browsers do not have');
    write('dist/server.js', "import { join } from 'path';\n");
    expect(() => browserModules(root, [join(root, 'dist/page.js')], '/files')).toThrow('imports path, a Node builtin');
  });

  it('refuses a package that is missing or exports nothing for browsers', () => {
    write('dist/page.js', "import 'ghost';\n");
    expect(() => browserModules(root, [join(root, 'dist/page.js')], '/files')).toThrow('ghost: package ghost is not installed');
    write('dist/page.js', "import 'node-only';\n");
    write('node_modules/node-only/package.json', JSON.stringify({ exports: { node: './n.js', require: './r.cjs' } }));
    expect(() => browserModules(root, [join(root, 'dist/page.js')], '/files')).toThrow('node-only exports nothing a browser can import');
  });
});
