import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureText } from '../../../../test/fixtures/load-fixture.ts';
import { parseAnthropicError, statusOfAnthropicError, statusOfAnthropicErrorType } from './parse-anthropic-error.ts';

describe('Anthropic errors', () => {
  it('reads the message of an error body', () => {
    assert.match(parseAnthropicError(fixtureText('anthropic-error-400.json')) as string, /^max_tokens: 100000 > 64000/);
    assert.equal(parseAnthropicError(fixtureText('anthropic-error-529.json')), 'Overloaded');
    assert.equal(parseAnthropicError('upstream connect error'), 'upstream connect error');
  });

  it('maps error types to statuses', () => {
    assert.equal(statusOfAnthropicErrorType('overloaded_error'), 529);
    assert.equal(statusOfAnthropicErrorType('rate_limit_error'), 429);
    assert.equal(statusOfAnthropicErrorType('invalid_request_error'), 400);
    assert.equal(statusOfAnthropicErrorType('something_new'), 500);
  });

  it("reads the out-of-credits 400 as the service's account refused for billing (402)", () => {
    const message = 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.';
    assert.deepEqual(parseAnthropicError(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } })), { message, status: 402 });
    assert.equal(statusOfAnthropicError({ type: 'invalid_request_error', message }), 402);
    // The words alone, under another type, keep that type's status; other 400s stay 400s.
    assert.equal(statusOfAnthropicError({ type: 'api_error', message }), 500);
    assert.equal(statusOfAnthropicError({ type: 'invalid_request_error', message: 'max_tokens: must be positive' }), 400);
  });
});
