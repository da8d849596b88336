import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../shared/errors.ts';
import { MAX_TERMS, containsPattern, searchTerms } from './search-terms.ts';

describe('searchTerms', () => {
  it('splits on whitespace, drops empties and duplicates', () => {
    assert.deepEqual(searchTerms('  bitcoin   100k bitcoin '), ['bitcoin', '100k']);
    assert.deepEqual(searchTerms('   '), []);
  });

  it('drops a word that occurs inside another word of the query', () => {
    assert.deepEqual(searchTerms('bit bitcoin coin 100 100k'), ['bitcoin', '100k']);
  });

  it(`refuses more than ${MAX_TERMS} words (400), rather than ignoring the rest`, () => {
    assert.equal(searchTerms('a b c d e f g h').length, MAX_TERMS);
    assert.throws(() => searchTerms('a b c d e f g h i'), (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === `Invalid q: at most ${MAX_TERMS} words`);
    // Implied words do not count toward the limit.
    assert.equal(searchTerms('abcd a b c d e f g h i j k').length, MAX_TERMS);
  });
});

describe('containsPattern', () => {
  it('takes LIKE wildcards and the escape character literally', () => {
    assert.equal(containsPattern('50%_a\\b'), '%50\\%\\_a\\\\b%');
    assert.equal(containsPattern('btc'), '%btc%');
  });
});
