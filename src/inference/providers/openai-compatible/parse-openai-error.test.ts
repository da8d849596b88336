import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureText } from '../../../../test/fixtures/load-fixture.ts';
import type { ErrorBodyReading } from '../provider-failure.ts';
import { parseOpenAIError, readErrorInAnswer, readOpenAIErrorObject } from './parse-openai-error.ts';

/** A reading that is a message alone (the HTTP status stands). */
function text(reading: ErrorBodyReading): string {
  assert.equal(typeof reading, 'string', JSON.stringify(reading));
  return reading as string;
}

describe('OpenAI error bodies', () => {
  it('reads the message of an error body', () => {
    assert.match(text(parseOpenAIError(fixtureText('openai-error-400.json'))), /^Invalid 'messages\[1\]\.content': string too long/);
    assert.match(text(parseOpenAIError(fixtureText('openai-error-429.json'))), /^Rate limit reached/);
  });

  it('reads insufficient_quota (a 429 from OpenAI) as the 402 it means, in a body and in a stream', () => {
    const body = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };
    assert.deepEqual(parseOpenAIError(JSON.stringify(body)), { message: body.error.message, status: 402 });
    assert.deepEqual(readOpenAIErrorObject(body.error), { message: body.error.message, status: 402 });
  });

  it('reads FastAPI-style bodies and plain text', () => {
    assert.equal(parseOpenAIError('{"detail":"Not Found"}'), 'Not Found');
    assert.equal(parseOpenAIError('{"object":"error","message":"model overloaded","code":503}'), 'model overloaded');
    assert.equal(parseOpenAIError('  <html>502 Bad Gateway</html> '), '<html>502 Bad Gateway</html>');
  });

  it('maps an in-stream error type to a status', () => {
    assert.deepEqual(readOpenAIErrorObject({ message: 'm', type: 'server_error' }), { message: 'm', status: 500 });
    assert.deepEqual(readOpenAIErrorObject({ message: 'm', type: 'tokens', code: 'rate_limit_exceeded' }), { message: 'm', status: null });
    assert.deepEqual(readOpenAIErrorObject({ message: 'm', code: 'rate_limit_exceeded' }), { message: 'm', status: 429 });
    assert.deepEqual(readOpenAIErrorObject({ message: 'm', code: 503 }), { message: 'm', status: 503 });
    // Anthropic's type, as the upstream being overloaded (the messages protocol's 529).
    assert.deepEqual(readOpenAIErrorObject({ message: 'm', type: 'overloaded_error' }), { message: 'm', status: 529 });
    assert.deepEqual(readOpenAIErrorObject('plain'), { message: 'plain', status: null });
    assert.equal(readOpenAIErrorObject(null), null);
  });

  it('finds the error a 200 carries: an error object, or a vLLM-style {"object": "error"} body; nothing in an answer', () => {
    assert.deepEqual(readErrorInAnswer({ error: { message: 'Provider returned error', code: 502 } }), { message: 'Provider returned error', status: 502 });
    assert.deepEqual(readErrorInAnswer({ object: 'error', message: 'out of KV cache', type: 'InternalServerError', param: null, code: 500 } as object), { message: 'out of KV cache', status: 500 });
    assert.deepEqual(readErrorInAnswer({ object: 'error', message: 'too long', type: 'BadRequestError', code: 400 } as object), { message: 'too long', status: 400 });
    assert.equal(readErrorInAnswer({ object: 'chat.completion.chunk', choices: [] } as object), null);
  });
});
