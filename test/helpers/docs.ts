import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's documentation as tests read it: README.md and docs/*.md, their fenced blocks,
 * their headings (as GitHub's anchors) and their relative links.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md, then docs/*.md in name order (absolute paths). */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), ...docs];
}

export interface FencedBlock {
  /** Repository-relative path of the page. */
  file: string;
  /** The fence's info string, split: ```ts x404-example browser → lang ts, tag x404-example, kind browser. */
  lang: string;
  tag: string;
  kind: string;
  code: string;
}

const FENCE = /^```(\S*)[ \t]*(\S*)[ \t]*(\S*)[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;

export function fencedBlocks(files = docFiles()): FencedBlock[] {
  return files.flatMap((path) =>
    [...readFileSync(path, 'utf8').matchAll(FENCE)].map((match) => ({
      file: relative(ROOT, path),
      lang: match[1] as string,
      tag: match[2] as string,
      kind: match[3] as string,
      code: match[4] as string,
    })),
  );
}

/** The blocks the tests run: fenced as ```<lang> x404-example [kind]. */
export const runnableBlocks = (files = docFiles()): FencedBlock[] => fencedBlocks(files).filter((block) => block.tag === 'x404-example');

/** The text outside fenced blocks (where headings and links live). */
export function prose(text: string): string {
  return text.replace(FENCE, '');
}

/** GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces as hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a page's headings, with GitHub's -1, -2 … for repeats. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const slug = githubSlug(match[1] as string);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a page (`path`, `path#anchor`, `#anchor`), outside code. */
export function relativeLinks(text: string): string[] {
  const outsideCode = prose(text).replace(/`[^`\n]*`/g, '');
  return [...outsideCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}
