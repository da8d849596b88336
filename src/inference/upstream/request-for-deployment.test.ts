import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment, ProviderConfig } from '../../config/catalog.ts';
import type { CanonicalChatRequest, CanonicalMessage } from '../canonical/chat.ts';
import { buildAnthropicMessagesBody } from '../providers/anthropic/build-anthropic-messages-body.ts';
import { buildOpenAIChatBody } from '../providers/openai-compatible/build-openai-chat-body.ts';
import { markSigned } from './reasoning-signer.ts';
import { requestForDeployment } from './request-for-deployment.ts';

const provider = { id: 'p', type: 'openai' } as ProviderConfig;
const deployment = (reasoning: boolean): Deployment => ({ provider, model: 'm', key: 'p/m', weight: 1, priority: 0, reasoning });

const request: CanonicalChatRequest = {
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{}' }],
      reasoning: [{ type: 'thinking', thinking: 'Look it up.', signature: 'sig' }, { type: 'redacted_thinking', data: 'opaque' }],
    },
    { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
  ],
  tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
  reasoning: { effort: 'high', budgetTokens: 2048 },
  maxTokens: 8000,
  stop: [],
  stream: false,
};

describe('requestForDeployment', () => {
  it('leaves the request alone for a deployment that reasons', () => {
    assert.equal(requestForDeployment(deployment(true), request), request);
  });

  it('gives a deployment that reasons only the blocks its own upstream model signed', () => {
    const [q, turn, result] = request.messages as [CanonicalMessage, Extract<CanonicalMessage, { role: 'assistant' }>, CanonicalMessage];
    const signedBy = (model: string): CanonicalChatRequest => ({
      ...request,
      messages: [q, { ...turn, reasoning: [{ type: 'thinking', thinking: 'Look it up.', signature: markSigned('sig', model) }, { type: 'redacted_thinking', data: markSigned('opaque', model) }] }, result],
    });
    assert.deepEqual(requestForDeployment(deployment(true), signedBy('m')), request);
    const other = requestForDeployment(deployment(true), signedBy('another-model'));
    assert.deepEqual(other.messages[1], { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{}' }] });
    assert.deepEqual(other.reasoning, request.reasoning);
  });

  it('drops the reasoning parameters and the history reasoning blocks for one that does not, and nothing else', () => {
    const sent = requestForDeployment(deployment(false), request);
    assert.equal('reasoning' in sent, false);
    assert.deepEqual(sent.messages[1], { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{}' }] });
    const { reasoning: _r, messages: _m, ...others } = request;
    const { messages: _n, ...sentOthers } = sent;
    assert.deepEqual(sentOthers, others);
    assert.deepEqual([sent.messages[0], sent.messages[2]], [request.messages[0], request.messages[2]]);
    // The client's request itself is not changed.
    const original = request.messages[1]!;
    assert.ok('reasoning' in request && original.role === 'assistant' && original.reasoning!.length === 2);
  });

  it('the bodies of both upstream kinds then carry no reasoning parameter', () => {
    const sent = requestForDeployment(deployment(false), request);
    const openai = buildOpenAIChatBody(sent, 'gpt-4.1', false);
    assert.equal('reasoning_effort' in openai, false);
    const { body } = buildAnthropicMessagesBody(sent, 'claude-3-5-haiku', false, 4096);
    assert.equal('thinking' in body, false);
    assert.ok(!JSON.stringify(body.messages).includes('thinking'), 'no thinking blocks in the history');
    // With reasoning, the same request carries both.
    assert.equal(buildOpenAIChatBody(request, 'o4-mini', false).reasoning_effort, 'high');
    assert.deepEqual(buildAnthropicMessagesBody(request, 'claude-opus-4-1', false, 4096).body.thinking, { type: 'enabled', budget_tokens: 2048 });
  });

  it('returns a request without reasoning unchanged', () => {
    const plain: CanonicalChatRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stop: [], stream: false };
    assert.equal(requestForDeployment(deployment(false), plain), plain);
  });
});
