import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureEvents } from '../../../../test/fixtures/load-fixture.ts';
import { ProviderFailure } from '../provider-failure.ts';
import type { ProviderStreamEvent, SseEvent } from '../provider-stream.ts';
import { parseAnthropicStream } from './parse-anthropic-stream.ts';

const ids = () => {
  let n = 0;
  return () => `call_svc${++n}`;
};

async function collect(events: AsyncIterable<SseEvent>, jsonTool: string | null = null): Promise<ProviderStreamEvent[]> {
  const out: ProviderStreamEvent[] = [];
  for await (const e of parseAnthropicStream(events, jsonTool, ids())) out.push(e);
  return out;
}

async function* sse(...events: object[]) {
  for (const e of events) yield { data: JSON.stringify(e) };
}

describe('parseAnthropicStream', () => {
  it('reads the full text sequence with pings, usage at start and end', async () => {
    assert.deepEqual(await collect(fixtureEvents('anthropic-messages-text.sse')), [
      { type: 'reported-usage', usage: { inputTokens: 2048, cachedInputTokens: 1920 } },
      { type: 'text-delta', text: 'Paris' },
      { type: 'text-delta', text: ' is the' },
      { type: 'text-delta', text: ' capital' },
      { type: 'text-delta', text: ' of France' },
      { type: 'text-delta', text: '.' },
      { type: 'reported-usage', usage: { inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 8 } },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('reads text then several tool_use blocks with input_json_delta', async () => {
    assert.deepEqual(await collect(fixtureEvents('anthropic-messages-tool-use.sse')), [
      { type: 'reported-usage', usage: { inputTokens: 120, cachedInputTokens: 64 } },
      { type: 'text-delta', text: "I'll check both." },
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"ci' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'ty": "Paris"}' },
      { type: 'tool-call-start', index: 1, id: 'call_svc2', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"timezone": ' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '"Europe/Paris"}' },
      { type: 'reported-usage', usage: { outputTokens: 42 } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('reads thinking as reasoning and max_tokens as length', async () => {
    const events = await collect(fixtureEvents('anthropic-messages-thinking.sse'));
    assert.deepEqual(
      events.filter((e) => e.type === 'reasoning-delta' || e.type === 'text-delta' || e.type === 'finish'),
      [
        { type: 'reasoning-delta', text: '925 divided' },
        { type: 'reasoning-delta', text: ' by 5 is 185.' },
        { type: 'text-delta', text: '925 / 5 = 185' },
        { type: 'finish', reason: 'length' },
      ],
    );
  });

  it('streams the structured-output tool as text and ends with stop', async () => {
    const events = await collect(
      sse(
        { type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_x', name: 'json_response', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } },
        { type: 'message_stop' },
      ),
      'json_response',
    );
    assert.deepEqual(events, [
      { type: 'reported-usage', usage: { inputTokens: 10, cachedInputTokens: 0 } },
      { type: 'text-delta', text: '{"a":' },
      { type: 'text-delta', text: '1}' },
      { type: 'reported-usage', usage: { outputTokens: 5 } },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('gives a tool without streamed input empty-object arguments', async () => {
    const events = await collect(
      sse(
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_x', name: 'now', input: {} } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
        { type: 'message_stop' },
      ),
    );
    assert.deepEqual(events.slice(0, 2), [
      { type: 'tool-call-start', index: 0, id: 'call_svc1', name: 'now' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
    ]);
  });

  it('fails on an error event after the content before it', async () => {
    const seen: ProviderStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of parseAnthropicStream(fixtureEvents('anthropic-messages-mid-stream-error.sse'), null, ids())) seen.push(e);
      })(),
      (e) => e instanceof ProviderFailure && e.status === 529 && e.message === 'Overloaded',
    );
    assert.deepEqual(seen.at(-1), { type: 'text-delta', text: 'Par' });
  });

  it('fails on a stream that ends before message_stop or a stop reason', async () => {
    await assert.rejects(
      collect(sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } })),
      (e) => e instanceof ProviderFailure && e.status === 502,
    );
  });
});
