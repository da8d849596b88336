import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureEvents } from '../../../../test/fixtures/load-fixture.ts';
import { ProviderFailure } from '../provider-failure.ts';
import type { ProviderStreamEvent, SseEvent } from '../provider-stream.ts';
import { parseOpenAIChatStream } from './parse-openai-chat-stream.ts';

const ids = () => {
  let n = 0;
  return () => `call_svc${++n}`;
};

async function collect(events: AsyncIterable<SseEvent>): Promise<ProviderStreamEvent[]> {
  const out: ProviderStreamEvent[] = [];
  for await (const e of parseOpenAIChatStream(events, ids())) out.push(e);
  return out;
}

async function* sse(...data: string[]) {
  for (const d of data) yield { data: d };
}

describe('parseOpenAIChatStream', () => {
  it('turns a text stream into text deltas, finish and reported usage', async () => {
    const events = await collect(fixtureEvents('openai-chat-text.sse'));
    assert.deepEqual(events, [
      { type: 'text-delta', text: 'Paris' },
      { type: 'text-delta', text: ' is the' },
      { type: 'text-delta', text: ' capital' },
      { type: 'text-delta', text: ' of France' },
      { type: 'text-delta', text: '.' },
      { type: 'reported-usage', usage: { inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 8 } },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('follows several tool calls by index with argument deltas', async () => {
    const events = await collect(fixtureEvents('openai-chat-tool-calls.sse'));
    assert.deepEqual(events, [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"ci' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'ty":"Pa' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'ris"}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"timezone":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '"Europe/Paris"}' },
      { type: 'reported-usage', usage: { inputTokens: 120, cachedInputTokens: 64, outputTokens: 42 } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('gives interleaved fragments of parallel calls as one call after another, the first as it comes', async () => {
    const call = (index: number, fn: object) => `{"choices":[{"delta":{"tool_calls":[{"index":${index},${JSON.stringify({ function: fn }).slice(1, -1)}}]}}]}`;
    const events = await collect(
      sse(
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":""}},{"index":1,"id":"b","function":{"name":"two","arguments":""}}]}}]}',
        call(0, { arguments: '{"x"' }),
        call(1, { arguments: '{"y"' }),
        call(0, { arguments: ':1}' }),
        call(1, { arguments: ':2}' }),
        '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
      ),
    );
    assert.deepEqual(events, [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'one' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'two' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"y":2}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('a server that sends calls one after another streams each call once its fragments come alone', async () => {
    const events = await collect(
      sse(
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":"{\\"x\\""}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}},{"index":1,"id":"b","function":{"name":"two","arguments":"{\\"y\\""}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2"}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]}}]}',
        '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
      ),
    );
    assert.deepEqual(events, [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'one' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'two' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"y":2' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('a chunk with fragments of the held call and of the streaming one is interleaving', async () => {
    const events = await collect(
      sse(
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":""}},{"index":1,"id":"b","function":{"name":"two","arguments":""}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\\"y\\":2}"}},{"index":0,"function":{"arguments":"{\\"x\\""}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}',
        '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
      ),
    );
    assert.deepEqual(events, [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'one' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'two' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"y":2}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('gives held calls out before text that follows them, and a stream ended by [DONE] alone gives them too', async () => {
    const events = await collect(
      sse(
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":"{}"}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"two","arguments":"{}"}}]}}]}',
        '{"choices":[{"delta":{"content":"Done."}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":2,"id":"c","function":{"name":"three","arguments":"{}"}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":3,"id":"d","function":{"name":"four","arguments":"{}"}}]}}]}',
        '[DONE]',
      ),
    );
    assert.deepEqual(events, [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'one' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'two' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'text-delta', text: 'Done.' },
      { type: 'tool-call-start', index: 2, id: 'call_svc3', name: 'three' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{}' },
      { type: 'tool-call-start', index: 3, id: 'call_svc4', name: 'four' },
      { type: 'tool-call-delta', index: 3, argumentsDelta: '{}' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('renumbers upstream indexes in order of appearance and takes a whole call in one chunk', async () => {
    const events = await collect(
      sse(
        '{"choices":[{"delta":{"tool_calls":[{"index":3,"id":"x","function":{"name":"a","arguments":"{}"}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":5,"id":"y","function":{"name":"b","arguments":"{\\"k\\":1}"}}]},"finish_reason":"tool_calls"}]}',
      ),
    );
    assert.deepEqual(events, [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'a' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'b' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"k":1}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('gives refusal pieces as refusal deltas, also after text chunks that taught it the text template', async () => {
    const c = (delta: object) => JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] });
    const events = await collect(
      sse(
        c({ role: 'assistant', content: null, refusal: '' }),
        c({ content: 'A', refusal: null }),
        c({ content: 'B', refusal: null }),
        c({ content: null, refusal: 'No' }),
        c({ content: '', refusal: ', sorry' }),
        c({ refusal: '.' }),
        JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      ),
    );
    assert.deepEqual(events, [
      { type: 'text-delta', text: 'A' },
      { type: 'text-delta', text: 'B' },
      { type: 'refusal-delta', text: 'No' },
      { type: 'refusal-delta', text: ', sorry' },
      { type: 'refusal-delta', text: '.' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('fails on an error chunk mid-stream, after the content before it', async () => {
    const seen: ProviderStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of parseOpenAIChatStream(fixtureEvents('openai-chat-mid-stream-error.sse'), ids())) seen.push(e);
      })(),
      (e) => e instanceof ProviderFailure && e.status === 500 && /server had an error/.test(e.message),
    );
    assert.deepEqual(seen, [{ type: 'text-delta', text: 'Par' }]);
  });

  it('fails on a stream cut before any finish, but accepts a finish without [DONE]', async () => {
    await assert.rejects(collect(sse('{"choices":[{"delta":{"content":"Hi"}}]}')), (e) => e instanceof ProviderFailure && e.status === 502);
    const ok = await collect(sse('{"choices":[{"delta":{"content":"Hi"},"finish_reason":"length"}]}'));
    assert.deepEqual(ok.at(-1), { type: 'finish', reason: 'length' });
  });

  it('fails on a malformed chunk', async () => {
    await assert.rejects(collect(sse('{not json')), (e) => e instanceof ProviderFailure && e.status === 502);
  });
});
