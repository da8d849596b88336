import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { checkChatIgnoredFields } from './chat-ignored-fields.ts';

function error400(body: Record<string, unknown>): string {
  try {
    checkChatIgnoredFields(body);
  } catch (e) {
    assert.ok(e instanceof HttpError && e.status === 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

describe('chat fields that change nothing', () => {
  it('takes OpenAI values and null', () => {
    checkChatIgnoredFields({});
    checkChatIgnoredFields({ metadata: { a: 'b' }, service_tier: 'priority', store: false, verbosity: 'high', modalities: ['text'] });
    checkChatIgnoredFields({ metadata: null, service_tier: null, store: null, verbosity: null, modalities: null, audio: null });
  });

  it('names the field otherwise; audio output is refused', () => {
    assert.equal(error400({ metadata: { a: 1 } }), 'metadata.a: must be a string');
    assert.equal(error400({ service_tier: 'x' }), 'service_tier: must be one of auto, default, flex, scale, priority');
    assert.equal(error400({ store: 1 }), 'store: must be a boolean');
    assert.equal(error400({ verbosity: 'max' }), 'verbosity: must be one of low, medium, high');
    assert.equal(error400({ modalities: ['audio'] }), 'modalities: audio output is not supported; leave modalities out or send ["text"]');
    assert.equal(error400({ modalities: [1] }), 'modalities[0]: must be one of text, audio');
    assert.equal(error400({ audio: {} }), 'audio: audio output is not supported');
  });
});
