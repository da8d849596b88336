import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TERMS, containsPattern, searchTerms } from './search-terms.ts';

describe('searchTerms', () => {
  it('splits on whitespace, drops empties and duplicates', () => {
    assert.deepEqual(searchTerms('  bitcoin   100k bitcoin '), ['bitcoin', '100k']);
    assert.deepEqual(searchTerms('   '), []);
  });

  it(`keeps at most ${MAX_TERMS} words`, () => {
    assert.equal(searchTerms('a b c d e f g h i j').length, MAX_TERMS);
  });
});

describe('containsPattern', () => {
  it('takes LIKE wildcards and the escape character literally', () => {
    assert.equal(containsPattern('50%_a\\b'), '%50\\%\\_a\\\\b%');
    assert.equal(containsPattern('btc'), '%btc%');
  });
});
