import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { buildOpenAIChatBody } from './build-openai-chat-body.ts';

const base: CanonicalChatRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  tools: [],
  stop: [],
  stream: false,
};

describe('buildOpenAIChatBody', () => {
  it('sends only what was asked, with the upstream model name', () => {
    assert.deepEqual(buildOpenAIChatBody(base, 'up-model', false), {
      model: 'up-model',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('always asks a stream for the usage chunk', () => {
    const body = buildOpenAIChatBody(base, 'up-model', true);
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
  });

  it('maps tools, tool choice, structured output and sampling parameters', () => {
    const body = buildOpenAIChatBody(
      {
        ...base,
        tools: [{ name: 'f', description: 'F', parameters: { type: 'object' } }, { name: 'g', parameters: { type: 'object' } }],
        toolChoice: { type: 'tool', name: 'g' },
        parallelToolCalls: false,
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
        maxTokens: 64,
        temperature: 0.2,
        topP: 0.5,
        stop: ['END'],
        user: 'u1',
      },
      'up-model',
      false,
    );
    assert.deepEqual(body, {
      model: 'up-model',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [
        { type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'g', parameters: { type: 'object' } } },
      ],
      tool_choice: { type: 'function', function: { name: 'g' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.5,
      stop: ['END'],
      user: 'u1',
    });
  });

  it('drops tool_choice and parallel_tool_calls without tools, keeps json_object', () => {
    const body = buildOpenAIChatBody(
      { ...base, toolChoice: { type: 'auto' }, parallelToolCalls: true, responseFormat: { type: 'json_object' } },
      'm',
      false,
    );
    assert.deepEqual(body, { model: 'm', messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' } });
    assert.equal(buildOpenAIChatBody({ ...base, tools: [{ name: 'f', parameters: {} }], toolChoice: { type: 'required' } }, 'm', false).tool_choice, 'required');
  });

  it('sends reasoning_effort for an effort the client named, not for a thinking budget alone', () => {
    for (const effort of ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const) {
      assert.equal(buildOpenAIChatBody({ ...base, reasoning: { effort } }, 'm', false).reasoning_effort, effort);
    }
    assert.equal(buildOpenAIChatBody({ ...base, reasoning: { effort: 'high', budgetTokens: 4000 } }, 'm', false).reasoning_effort, 'high');
    assert.equal('reasoning_effort' in buildOpenAIChatBody({ ...base, reasoning: { budgetTokens: 4000 } }, 'm', false), false);
  });
});
