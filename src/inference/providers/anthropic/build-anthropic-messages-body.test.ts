import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest, ReasoningBlock } from '../../canonical/chat.ts';
import type { ModelConfig, ProviderConfig } from '../../../config/catalog.ts';
import { anthropicChat } from './anthropic-chat.ts';
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

  it('leaves whitespace-only stop sequences out, which the API refuses; the adapter has the call cut at all of them', () => {
    assert.deepEqual(buildAnthropicMessagesBody({ ...base, stop: ['\n\n', 'END', ' \t'] }, 'm', false, 100).body.stop_sequences, ['END']);
    assert.equal(buildAnthropicMessagesBody({ ...base, stop: ['\n'] }, 'm', false, 100).body.stop_sequences, undefined);
    assert.deepEqual(buildAnthropicMessagesBody({ ...base, stop: ['\nHuman:'] }, 'm', false, 100).body.stop_sequences, ['\nHuman:']);
    const provider = { baseUrl: 'https://api.anthropic.com', apiKey: 'k' } as ProviderConfig;
    const model = { maxOutput: 1000 } as ModelConfig;
    assert.deepEqual(anthropicChat.prepare(provider, 'm', model, { ...base, stop: ['\n\n', 'END'] }, true).cutAt, ['\n\n', 'END']);
    assert.equal('cutAt' in anthropicChat.prepare(provider, 'm', model, { ...base, stop: ['END', '\nHuman:'] }, true), false);
    assert.equal('cutAt' in anthropicChat.prepare(provider, 'm', model, base, true), false);
  });

  it('carries the structured-output tool', () => {
    const r = buildAnthropicMessagesBody({ ...base, responseFormat: { type: 'json_object' } }, 'm', false, 100);
    assert.equal(r.jsonToolName, 'json_response');
    assert.deepEqual(r.body.tool_choice, { type: 'tool', name: 'json_response' });
  });

  it('thinking: an effort gets its budget within half of max_tokens, a client budget stays below max_tokens, none and tiny caps get none', () => {
    const thinking = (reasoning: CanonicalChatRequest['reasoning'], maxTokens?: number) =>
      buildAnthropicMessagesBody({ ...base, ...(reasoning ? { reasoning } : {}), ...(maxTokens ? { maxTokens } : {}) }, 'm', false, 40000).body.thinking;
    assert.deepEqual(thinking({ effort: 'minimal' }), { type: 'enabled', budget_tokens: 1024 });
    assert.deepEqual(thinking({ effort: 'low' }), { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual(thinking({ effort: 'medium' }), { type: 'enabled', budget_tokens: 8192 });
    assert.deepEqual(thinking({ effort: 'high' }), { type: 'enabled', budget_tokens: 16384 });
    assert.deepEqual(thinking({ effort: 'xhigh' }), { type: 'enabled', budget_tokens: 20000 }, 'half of the default 40,000');
    assert.deepEqual(thinking({ effort: 'high' }, 5000), { type: 'enabled', budget_tokens: 2500 });
    assert.equal(thinking({ effort: 'low' }, 2000), undefined, 'half of 2,000 is below the 1,024 minimum');
    assert.equal(thinking({ effort: 'none' }), undefined);
    assert.equal(thinking(undefined), undefined);
    assert.deepEqual(thinking({ budgetTokens: 3000 }, 3500), { type: 'enabled', budget_tokens: 3000 });
    assert.deepEqual(thinking({ budgetTokens: 3000 }, 2500), { type: 'enabled', budget_tokens: 2499 });
    const body = buildAnthropicMessagesBody({ ...base, reasoning: { effort: 'low' }, temperature: 0.5, maxTokens: 8000 }, 'm', false, 100).body;
    assert.equal(body.max_tokens, 8000, 'max_tokens is the client cap, thinking included');
    assert.equal(body.temperature, undefined, 'the API refuses temperature next to thinking');
  });

  it('thinking is left out of a tool-use continuation whose assistant turn has no signed thinking to send back', () => {
    const call = { id: 'call_1', name: 'f', arguments: '{}' };
    const history = (reasoning?: ReasoningBlock[]) => ({
      ...base,
      reasoning: { effort: 'low' as const },
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      messages: [
        ...base.messages,
        { role: 'assistant' as const, content: '', toolCalls: [call], ...(reasoning ? { reasoning } : {}) },
        { role: 'tool' as const, toolCallId: 'call_1', content: 'ok' },
      ],
    });
    assert.equal(buildAnthropicMessagesBody(history(), 'm', false, 32000).body.thinking, undefined);
    assert.equal(buildAnthropicMessagesBody(history([{ type: 'thinking', thinking: 'x', signature: '' }]), 'm', false, 32000).body.thinking, undefined);
    assert.deepEqual(buildAnthropicMessagesBody(history([{ type: 'thinking', thinking: 'x', signature: 'sig' }]), 'm', false, 32000).body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual(buildAnthropicMessagesBody(history([{ type: 'redacted_thinking', data: 'd' }]), 'm', false, 32000).body.thinking, { type: 'enabled', budget_tokens: 2048 });
  });
});
