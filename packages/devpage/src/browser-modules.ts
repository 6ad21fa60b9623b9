import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The ES modules a browser needs to run an entry module as it is, without a bundler: the entry's
 * relative imports and the packages it names, followed through node_modules with the conditions a
 * browser bundler would pick (`browser`, `import`, `default`). Each file gets a URL under
 * `urlPrefix` that mirrors its path in the repository, so relative imports keep working in the
 * browser; bare specifiers go into an import map. A module that imports a Node builtin is refused:
 * the browser would fail on it anyway, and this says which file did it.
 */
export interface BrowserModules {
  /** URL path → the file's text. */
  files: Map<string, string>;
  /** URL path of each entry, in the order given. */
  entries: string[];
  /** `<script type="importmap">` content: bare specifier → URL path. */
  importMap: { imports: Record<string, string> };
}

const CONDITIONS = ['browser', 'import', 'module', 'default'];
const STATIC_IMPORT = /(?:^|[\n;}])\s*(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']([^"'\n]+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g;

export function browserModules(root: string, entryFiles: readonly string[], urlPrefix: string): BrowserModules {
  const files = new Map<string, string>();
  const imports: Record<string, string> = {};
  const urlOf = (file: string): string => {
    const path = relative(root, file);
    if (path.startsWith('..')) throw new Error(`${file} is outside ${root}`);
    return `${urlPrefix}/${path.split(sep).join('/')}`;
  };
  const pending = entryFiles.map((file) => resolve(file));
  const seen = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    files.set(urlOf(file), text);
    for (const specifier of specifiersOf(text)) {
      if (specifier.startsWith('./') || specifier.startsWith('../')) {
        pending.push(existingFile(resolve(dirname(file), specifier), `${file} imports ${specifier}`));
        continue;
      }
      if (specifier.startsWith('node:') || isBuiltin(specifier)) throw new Error(`${relative(root, file)} imports ${specifier}, a Node builtin that browsers do not have`);
      const target = resolvePackage(specifier, dirname(file));
      const url = urlOf(target);
      if (imports[specifier] !== undefined && imports[specifier] !== url) {
        throw new Error(`${specifier} resolves to two files (${imports[specifier]} and ${url}); one import map cannot hold both`);
      }
      imports[specifier] = url;
      pending.push(target);
    }
  }
  return { files, entries: entryFiles.map((file) => urlOf(resolve(file))), importMap: { imports } };
}

function specifiersOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const pattern of [STATIC_IMPORT, DYNAMIC_IMPORT]) for (const match of text.matchAll(pattern)) found.add(match[1] as string);
  return found;
}

function existingFile(path: string, what: string): string {
  for (const candidate of [path, `${path}.js`, join(path, 'index.js')]) {
    // The real path: a workspace package is a symlink in node_modules, and one file must have one URL.
    if (existsSync(candidate) && statSync(candidate).isFile()) return realpathSync(candidate);
  }
  throw new Error(`${what}: no such file`);
}

/** `name` or `@scope/name`, and the subpath after it (`.` or `./sub`). */
function splitSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const nameParts = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(nameParts).join('/');
  return { name: parts.slice(0, nameParts).join('/'), subpath: rest ? `./${rest}` : '.' };
}

function resolvePackage(specifier: string, fromDir: string): string {
  const { name, subpath } = splitSpecifier(specifier);
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', name);
    if (existsSync(join(packageDir, 'package.json'))) {
      const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
      const target = manifest.exports !== undefined ? exportsTarget(manifest.exports, subpath) : legacyTarget(manifest, subpath);
      if (target === undefined) throw new Error(`${specifier}: ${name} exports nothing a browser can import at ${subpath}`);
      return existingFile(join(packageDir, target), specifier);
    }
    if (dir === dirname(dir)) throw new Error(`${specifier}: package ${name} is not installed`);
  }
}

/** package.json `exports` (subpath map or conditions) for one subpath, with browser conditions. */
function exportsTarget(exports: unknown, subpath: string): string | undefined {
  const isSubpathMap = exports !== null && typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((key) => key.startsWith('.'));
  if (!isSubpathMap) return subpath === '.' ? conditionTarget(exports) : undefined;
  const map = exports as Record<string, unknown>;
  if (map[subpath] !== undefined) return conditionTarget(map[subpath]);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star < 0 || !subpath.startsWith(key.slice(0, star)) || !subpath.endsWith(key.slice(star + 1))) continue;
    const matched = subpath.slice(star, subpath.length - (key.length - star - 1));
    return conditionTarget(value)?.replaceAll('*', matched);
  }
  return undefined;
}

function conditionTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(conditionTarget).find((target) => target !== undefined);
  if (value === null || typeof value !== 'object') return undefined;
  for (const [condition, nested] of Object.entries(value)) {
    if (!CONDITIONS.includes(condition)) continue;
    const target = conditionTarget(nested);
    if (target !== undefined) return target;
  }
  return undefined;
}

function legacyTarget(manifest: Record<string, unknown>, subpath: string): string | undefined {
  if (subpath !== '.') return subpath;
  for (const field of ['browser', 'module', 'main']) if (typeof manifest[field] === 'string') return manifest[field] as string;
  return 'index.js';
}
