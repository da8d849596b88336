import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { buildAnthropicMessagesBody } from './build-anthropic-messages-body.ts';

const base: CanonicalChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
  ],
  tools: [],
  stop: [],
  stream: false,
};

describe('buildAnthropicMessagesBody', () => {
  it('always sends max_tokens, with the default when the client gave none', () => {
    assert.deepEqual(buildAnthropicMessagesBody(base, 'up-claude', false, 4096), {
      body: { model: 'up-claude', max_tokens: 4096, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
      jsonToolName: null,
    });
    assert.equal(buildAnthropicMessagesBody({ ...base, maxTokens: 10 }, 'm', false, 4096).body.max_tokens, 10);
  });

  it('maps sampling, stop sequences, user and streaming', () => {
    const { body } = buildAnthropicMessagesBody({ ...base, temperature: 1.6, topP: 0.5, stop: ['END'], user: 'u1' }, 'm', true, 100);
    assert.equal(body.temperature, 1);
    assert.equal(body.top_p, undefined);
    assert.deepEqual(body.stop_sequences, ['END']);
    assert.deepEqual(body.metadata, { user_id: 'u1' });
    assert.equal(body.stream, true);
    assert.equal(buildAnthropicMessagesBody({ ...base, topP: 0.5 }, 'm', false, 100).body.top_p, 0.5);
  });

  it('carries the structured-output tool', () => {
    const r = buildAnthropicMessagesBody({ ...base, responseFormat: { type: 'json_object' } }, 'm', false, 100);
    assert.equal(r.jsonToolName, 'json_response');
    assert.deepEqual(r.body.tool_choice, { type: 'tool', name: 'json_response' });
  });
});
