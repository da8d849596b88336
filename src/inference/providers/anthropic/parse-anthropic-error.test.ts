import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureText } from '../../../../test/fixtures/load-fixture.ts';
import { parseAnthropicError, statusOfAnthropicErrorType } from './parse-anthropic-error.ts';

describe('Anthropic errors', () => {
  it('reads the message of an error body', () => {
    assert.match(parseAnthropicError(fixtureText('anthropic-error-400.json')), /^max_tokens: 100000 > 64000/);
    assert.equal(parseAnthropicError(fixtureText('anthropic-error-529.json')), 'Overloaded');
    assert.equal(parseAnthropicError('upstream connect error'), 'upstream connect error');
  });

  it('maps error types to statuses', () => {
    assert.equal(statusOfAnthropicErrorType('overloaded_error'), 529);
    assert.equal(statusOfAnthropicErrorType('rate_limit_error'), 429);
    assert.equal(statusOfAnthropicErrorType('invalid_request_error'), 400);
    assert.equal(statusOfAnthropicErrorType('something_new'), 500);
  });
});
