import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureJson } from '../../../../test/fixtures/load-fixture.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { parseOpenAIChatResponse } from './parse-openai-chat-response.ts';

const ids = () => {
  let n = 0;
  return () => `call_svc${++n}`;
};

describe('parseOpenAIChatResponse', () => {
  it('reads text, finish reason and usage with cached tokens', () => {
    assert.deepEqual(parseOpenAIChatResponse(fixtureJson('openai-chat-text.json'), ids()), {
      text: 'Paris is the capital of France.',
      reasoning: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 8 },
    });
  });

  it('reads a refusal apart from the text, and an empty refusal as none', () => {
    const answer = (refusal: string | null) => ({ choices: [{ message: { role: 'assistant', content: null, refusal }, finish_reason: 'stop' }] });
    const r = parseOpenAIChatResponse(answer('I cannot help.'), ids());
    assert.equal(r.text, '');
    assert.equal(r.refusal, 'I cannot help.');
    assert.equal('refusal' in parseOpenAIChatResponse(answer(''), ids()), false);
    assert.equal('refusal' in parseOpenAIChatResponse(answer(null), ids()), false);
  });

  it('reads several tool calls and reissues their ids', () => {
    const r = parseOpenAIChatResponse(fixtureJson('openai-chat-tool-calls.json'), ids());
    assert.equal(r.text, '');
    assert.equal(r.finishReason, 'tool_calls');
    assert.deepEqual(r.toolCalls, [
      { id: 'call_svc1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_svc2', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
    ]);
  });

  it('fails on an error object or a body without choices', () => {
    assert.throws(() => parseOpenAIChatResponse({ error: { message: 'boom', type: 'server_error' } }), (e) => e instanceof ProviderFailure && e.status === 500 && e.message === 'boom');
    assert.throws(() => parseOpenAIChatResponse({}), (e) => e instanceof ProviderFailure && e.status === 502);
  });
});
