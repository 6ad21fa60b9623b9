import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../src/nonce/id-set.js';

const randomId = (): string => randomBytes(16).toString('base64url');

describe('IdSet (the consumed-nonce store\'s table)', () => {
  it('answers as a Set of the ids would through adds, repeats and deletes, across growth and shrinking', () => {
    const set = new IdSet(16);
    const reference = new Set<string>();
    const ids = Array.from({ length: 20_000 }, randomId);
    for (const id of ids) expect(set.add(id)).toBe(!reference.has(id) && reference.add(id) !== undefined);
    expect(set.size).toBe(reference.size);
    // A second use of any of them is refused; fresh ids are not.
    for (const id of ids.slice(0, 2_000)) expect(set.add(id)).toBe(false);
    for (let i = 0; i < 2_000; i++) expect(set.has(randomId())).toBe(false);
    // Delete every other one (backward shifts keep the rest findable), then all: the table shrinks and still answers.
    ids.forEach((id, i) => {
      if (i % 2 === 0) expect(set.delete(id)).toBe(reference.delete(id));
    });
    for (const id of ids) expect(set.has(id)).toBe(reference.has(id));
    expect(set.delete(ids[0]!)).toBe(false);
    for (const id of ids) set.delete(id);
    expect(set.size).toBe(0);
    for (const id of ids.slice(0, 100)) expect(set.add(id)).toBe(true);
  });

  it('tells apart ids that differ in one character or in length', () => {
    const set = new IdSet();
    expect(set.add('AAAAAAAAAAAAAAAAAAAAAA')).toBe(true);
    expect(set.add('AAAAAAAAAAAAAAAAAAAAAB')).toBe(true);
    expect(set.add('AAAAAAAAAAAAAAAAAAAAA')).toBe(true);
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
    expect(set.size).toBe(4);
  });
});
