import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureJson } from '../../../../test/fixtures/load-fixture.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { buildRerankBody } from './build-rerank-body.ts';
import { parseRerankResponse } from './parse-rerank-response.ts';

describe('rerank codec', () => {
  it('sends query, documents and top_n', () => {
    assert.deepEqual(buildRerankBody({ query: 'q', documents: ['a', 'b'], topN: 1 }, 'up-rerank'), {
      model: 'up-rerank',
      query: 'q',
      documents: ['a', 'b'],
      top_n: 1,
    });
    assert.deepEqual(buildRerankBody({ query: 'q', documents: ['a'] }, 'r'), { model: 'r', query: 'q', documents: ['a'] });
  });

  it('reads Cohere v2 (no token count) and Jina (total_tokens) answers', () => {
    assert.deepEqual(parseRerankResponse(fixtureJson('cohere-rerank-v2.json'), 3, undefined), {
      results: [
        { index: 2, relevanceScore: 0.9990564 },
        { index: 0, relevanceScore: 0.32713068 },
        { index: 1, relevanceScore: 0.0010699 },
      ],
      inputTokens: null,
    });
    const jina = parseRerankResponse(fixtureJson('jina-rerank.json'), 3, 2);
    assert.equal(jina.inputTokens, 815);
    assert.deepEqual(jina.results.map((r) => r.index), [2, 0]);
  });

  it('sorts by score and refuses results pointing outside the documents', () => {
    const r = parseRerankResponse({ results: [{ index: 0, relevance_score: 0.1 }, { index: 1, relevance_score: 0.9 }] }, 2, undefined);
    assert.deepEqual(r.results.map((x) => x.index), [1, 0]);
    assert.throws(() => parseRerankResponse({ results: [{ index: 5, relevance_score: 1 }] }, 2, undefined), ProviderFailure);
    assert.throws(() => parseRerankResponse({}, 2, undefined), ProviderFailure);
  });
});
