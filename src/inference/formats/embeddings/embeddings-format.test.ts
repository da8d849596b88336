import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { formatEmbeddingsResponse } from './format-embeddings-response.ts';
import { parseEmbeddingsRequest } from './parse-embeddings-request.ts';

function error400(body: unknown): string {
  try {
    parseEmbeddingsRequest(body);
  } catch (e) {
    assert.ok(e instanceof HttpError && e.status === 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

describe('embeddings format', () => {
  it('reads a string or an array input, dimensions and encoding', () => {
    assert.deepEqual(parseEmbeddingsRequest({ model: 'svc-embed', input: 'hi' }), { model: 'svc-embed', encodingFormat: 'float', request: { input: ['hi'] } });
    assert.deepEqual(parseEmbeddingsRequest({ model: 'svc-embed', input: ['a', 'b'], dimensions: 256, encoding_format: 'base64', user: 'u' }), {
      model: 'svc-embed',
      encodingFormat: 'base64',
      request: { input: ['a', 'b'], dimensions: 256, user: 'u' },
    });
  });

  it('names the invalid field', () => {
    assert.equal(error400({ model: 'svc-embed' }), 'input: is required');
    assert.equal(error400({ model: 'svc-embed', input: [1, 2] }), 'input: must be a string or an array of strings');
    assert.equal(error400({ model: 'svc-embed', input: [] }), 'input: must not be empty');
    assert.equal(error400({ model: 'svc-embed', input: ['a', ''] }), 'input[1]: must not be empty');
    assert.equal(error400({ model: 'svc-embed', input: 'a', dimensions: 0 }), 'dimensions: must be >= 1');
    assert.equal(error400({ model: 'svc-embed', input: 'a', encoding_format: 'int8' }), 'encoding_format: must be one of float, base64');
  });

  it('formats float and base64 lists with usage', () => {
    const response = { embeddings: [[0.5, -1.25], [0, 3]], usage: { inputTokens: 4, cachedInputTokens: 0, outputTokens: 0 }, usageEstimated: false };
    assert.deepEqual(formatEmbeddingsResponse(response, { model: 'svc-embed', encodingFormat: 'float' }), {
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.5, -1.25] },
        { object: 'embedding', index: 1, embedding: [0, 3] },
      ],
      model: 'svc-embed',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    const b64 = formatEmbeddingsResponse(response, { model: 'svc-embed', encodingFormat: 'base64' });
    assert.equal(b64.data[0]!.embedding, 'AAAAPwAAoL8=');
  });
});
