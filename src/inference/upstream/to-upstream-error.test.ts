import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../shared/errors.ts';
import { isUpstreamOverloaded, overloadedAsAnthropic, UpstreamError } from './upstream-error.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { toUpstreamError } from './to-upstream-error.ts';

const redact = (text: string, brand: string) => text.replace(/gpt-4o/g, brand).replace(/OpenAI/g, 'svc');

describe('toUpstreamError', () => {
  it('maps the status and redacts the message, keeping the raw one for logs', () => {
    const e = toUpstreamError(new ProviderFailure(529, 'OpenAI gpt-4o is overloaded'), redact, 'svc-fast');
    assert.ok(e instanceof UpstreamError && e instanceof HttpError);
    assert.equal(e.status, 503);
    assert.equal(e.retryable, true);
    assert.equal(e.message, 'svc svc-fast is overloaded');
    assert.equal(e.clientMessage, e.message);
    assert.deepEqual(e.detail, { upstreamStatus: 529, upstreamMessage: 'OpenAI gpt-4o is overloaded' });
  });

  it('keeps a request error final and replaces credential errors', () => {
    const bad = toUpstreamError(new ProviderFailure(400, 'bad gpt-4o input'), redact, 'svc-fast');
    assert.deepEqual([bad.status, bad.retryable, bad.message], [400, false, 'bad svc-fast input']);
    const auth = toUpstreamError(new ProviderFailure(401, 'Incorrect API key provided: sk-123'), redact, 'svc-fast');
    assert.deepEqual([auth.status, auth.retryable, auth.message], [502, true, 'the upstream refused the service credentials']);
  });

  it('uses a fixed message when redaction leaves nothing, and wraps unknown errors', () => {
    assert.equal(toUpstreamError(new ProviderFailure(503, ''), redact, 'm').message, 'the model is overloaded, try again shortly');
    const odd = toUpstreamError(new TypeError('x is undefined'), redact, 'm');
    assert.deepEqual([odd.status, odd.retryable, odd.message], [502, true, 'the upstream answer could not be read']);
    assert.equal(toUpstreamError(odd, redact, 'm'), odd);
  });

  it('tells the SDKs not to retry a refusal of the service itself (x-should-retry: false), and only that', () => {
    for (const status of [401, 402, 403, 404]) {
      const e = toUpstreamError(new ProviderFailure(status, 'refused'), redact, 'm');
      assert.deepEqual([e.status, e.headers], [502, { 'x-should-retry': 'false' }], String(status));
    }
    for (const status of [500, 502, 503, 529, 504, 408, 400, 413]) {
      assert.equal(toUpstreamError(new ProviderFailure(status, 'x'), redact, 'm').headers['x-should-retry'], undefined, String(status));
    }
    assert.deepEqual(toUpstreamError(new ProviderFailure(429, 'slow down'), redact, 'm').headers, { 'retry-after': '1' });
  });

  it("tells an overloaded upstream (529) from a 503, and restates it as the Messages API's 529 with the same retry-after", () => {
    const overloaded = toUpstreamError(new ProviderFailure(529, 'Overloaded', { retryAfterMs: 2500 }), redact, 'm');
    assert.deepEqual([overloaded.status, overloaded.headers], [503, { 'retry-after': '3' }]);
    assert.equal(isUpstreamOverloaded(overloaded), true);
    const anthropic = overloadedAsAnthropic(overloaded);
    assert.deepEqual([anthropic.status, anthropic.message, anthropic.retryable, anthropic.headers], [529, 'Overloaded', true, { 'retry-after': '3' }]);
    assert.equal(overloadedAsAnthropic(toUpstreamError(new ProviderFailure(529, 'Overloaded'), redact, 'm')).headers['retry-after'], undefined);
    assert.equal(isUpstreamOverloaded(toUpstreamError(new ProviderFailure(503, 'unavailable'), redact, 'm')), false);
    assert.equal(isUpstreamOverloaded(new UpstreamError(503, 'model m is not available', true)), false);
    assert.equal(isUpstreamOverloaded(new HttpError(503, 'service is shutting down')), false);
  });
});
