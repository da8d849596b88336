import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextFreeSlug, slugify } from './slugify.ts';

describe('slugify', () => {
  it('keeps letters and digits joined by single hyphens', () => {
    assert.equal(slugify('Will BTC close above $100,000 in 2026?', 'market'), 'will-btc-close-above-100-000-in-2026');
    assert.equal(slugify('  Élection présidentielle — 2027  ', 'event'), 'election-presidentielle-2027');
  });

  it('falls back when nothing is left and caps the length', () => {
    assert.equal(slugify('???', 'market'), 'market');
    const long = slugify('word '.repeat(40), 'x');
    assert.ok(long.length <= 80);
    assert.ok(!long.endsWith('-'));
  });
});

describe('nextFreeSlug', () => {
  it('appends the first free number', () => {
    assert.equal(nextFreeSlug('a', []), 'a');
    assert.equal(nextFreeSlug('a', ['a']), 'a-2');
    assert.equal(nextFreeSlug('a', ['a', 'a-2', 'a-3']), 'a-4');
  });
});
