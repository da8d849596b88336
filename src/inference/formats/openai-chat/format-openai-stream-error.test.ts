import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { formatOpenAIStreamError } from './format-openai-stream-error.ts';

describe('formatOpenAIStreamError', () => {
  it('shows an HttpError message with an OpenAI error type', () => {
    assert.deepEqual(formatOpenAIStreamError(new HttpError(503, 'svc-fast is overloaded')), {
      error: { message: 'svc-fast is overloaded', type: 'server_error', param: null, code: null },
    });
    assert.equal(formatOpenAIStreamError(new HttpError(429, 'slow down')).error.type, 'rate_limit_error');
    assert.equal(formatOpenAIStreamError(new HttpError(400, 'bad')).error.type, 'invalid_request_error');
  });

  it('hides the text of unexpected errors', () => {
    assert.equal(formatOpenAIStreamError(new Error('secret internals')).error.message, 'internal error');
  });
});
