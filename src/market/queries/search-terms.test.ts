import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsPattern, searchTerms } from './search-terms.ts';

describe('searchTerms', () => {
  it('splits on whitespace, drops empties and duplicates', () => {
    assert.deepEqual(searchTerms('  bitcoin   100k bitcoin '), ['bitcoin', '100k']);
    assert.deepEqual(searchTerms('   '), []);
  });

  it('drops a word that occurs inside another word of the query', () => {
    assert.deepEqual(searchTerms('bit bitcoin coin 100 100k'), ['bitcoin', '100k']);
  });

  it('keeps every word, however many: none is left unmatched', () => {
    assert.deepEqual(searchTerms('a1 b2 c3 d4 e5 f6 g7 h8 i9 j10'), ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8', 'i9', 'j10']);
  });
});

describe('containsPattern', () => {
  it('takes LIKE wildcards and the escape character literally', () => {
    assert.equal(containsPattern('50%_a\\b'), '%50\\%\\_a\\\\b%');
    assert.equal(containsPattern('btc'), '%btc%');
  });
});
