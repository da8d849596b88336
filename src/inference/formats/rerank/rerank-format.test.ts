import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { formatRerankResponse } from './format-rerank-response.ts';
import { parseRerankRequest } from './parse-rerank-request.ts';

function error400(body: unknown): string {
  try {
    parseRerankRequest(body);
  } catch (e) {
    assert.ok(e instanceof HttpError && e.status === 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

describe('rerank format', () => {
  it('reads string and {text} documents, top_n and return_documents', () => {
    assert.deepEqual(parseRerankRequest({ model: 'svc-rerank', query: 'q', documents: ['a', { text: 'b' }], top_n: 1, return_documents: true }), {
      model: 'svc-rerank',
      returnDocuments: true,
      request: { query: 'q', documents: ['a', 'b'], topN: 1 },
    });
    assert.equal(parseRerankRequest({ model: 'm', query: 'q', documents: ['a'] }).returnDocuments, false);
  });

  it('names the invalid field', () => {
    assert.equal(error400({ model: 'm', documents: ['a'] }), 'query: is required');
    assert.equal(error400({ model: 'm', query: '', documents: ['a'] }), 'query: must not be empty');
    assert.equal(error400({ model: 'm', query: 'q' }), 'documents: is required');
    assert.equal(error400({ model: 'm', query: 'q', documents: [] }), 'documents: must not be empty');
    assert.equal(error400({ model: 'm', query: 'q', documents: ['a', 3] }), 'documents[1]: must be a string or an object with a text string');
    assert.equal(error400({ model: 'm', query: 'q', documents: ['a'], top_n: 0 }), 'top_n: must be >= 1');
    assert.equal(error400({ model: 'm', query: ' \n', documents: ['a'] }), 'query: must not be only whitespace');
    assert.equal(error400({ model: 'm', query: 'q', documents: ['a', ''] }), 'documents[1]: must not be empty');
    assert.equal(error400({ model: 'm', query: 'q', documents: ['\t'] }), 'documents[0]: must not be only whitespace');
    assert.equal(error400({ model: 'm', query: 'q', documents: ['a', { text: '' }] }), 'documents[1].text: must not be empty');
  });

  it('asks for no more results than there are documents', () => {
    assert.equal(parseRerankRequest({ model: 'm', query: 'q', documents: ['a', 'b'], top_n: 5 }).request.topN, 2);
    assert.equal(parseRerankRequest({ model: 'm', query: 'q', documents: ['a', 'b'], top_n: 2 }).request.topN, 2);
    assert.equal(parseRerankRequest({ model: 'm', query: 'q', documents: ['a', 'b'] }).request.topN, undefined);
  });

  it('formats results with or without the document text', () => {
    const response = { results: [{ index: 1, relevanceScore: 0.9 }, { index: 0, relevanceScore: 0.1 }], usage: { inputTokens: 12, cachedInputTokens: 0, outputTokens: 0 }, usageEstimated: true };
    assert.deepEqual(formatRerankResponse(response, { id: 'rerank-1', model: 'svc-rerank', documents: ['a', 'b'], returnDocuments: true }), {
      id: 'rerank-1',
      model: 'svc-rerank',
      results: [
        { index: 1, relevance_score: 0.9, document: { text: 'b' } },
        { index: 0, relevance_score: 0.1, document: { text: 'a' } },
      ],
      usage: { total_tokens: 12 },
    });
    assert.deepEqual(formatRerankResponse(response, { id: 'r', model: 'm', documents: ['a', 'b'], returnDocuments: false }).results[0], { index: 1, relevance_score: 0.9 });
  });
});
