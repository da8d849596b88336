import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.ts';

describe('convertToAnthropicMessages', () => {
  it('lifts system messages and converts images to base64 and url sources', () => {
    assert.deepEqual(
      convertToAnthropicMessages([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image', url: 'data:image/png;base64,iVBO\nRw0=' }, { type: 'image', url: 'https://img.test/a.jpg', detail: 'low' }] },
        { role: 'system', content: 'Answer in French.' },
      ]),
      {
        system: 'Be brief.\n\nAnswer in French.',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0=' } },
              { type: 'image', source: { type: 'url', url: 'https://img.test/a.jpg' } },
            ],
          },
        ],
      },
    );
  });

  it('labels a base64 image with the type its bytes show, the declared one when they show none', () => {
    const sources = (url: string) => {
      const [m] = convertToAnthropicMessages([{ role: 'user', content: [{ type: 'image', url }] }]).messages;
      return (m!.content[0] as { source: unknown }).source;
    };
    assert.deepEqual(sources('data:image/png;base64,/9j/4AAQSkZJRg=='), { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQSkZJRg==' });
    assert.deepEqual(sources('data:image/jpeg;base64,R0lGODlhAQABAA=='), { type: 'base64', media_type: 'image/gif', data: 'R0lGODlhAQABAA==' });
    assert.deepEqual(sources('data:image/png;base64,UklGRiQAAABXRUJQVlA4'), { type: 'base64', media_type: 'image/webp', data: 'UklGRiQAAABXRUJQVlA4' });
    assert.deepEqual(sources('data:image/gif;base64,iVBORw0KGgoAAAANSUhEUg=='), { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' });
    assert.deepEqual(sources('data:image/webp;base64,AAAA'), { type: 'base64', media_type: 'image/webp', data: 'AAAA' });
  });

  it('keeps the cache control of a user part on its block, last, and leaves blank text out', () => {
    const { messages } = convertToAnthropicMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Context', cacheControl: { type: 'ephemeral' } },
          { type: 'text', text: '  ', cacheControl: { type: 'ephemeral' } },
          { type: 'image', url: 'https://img.test/a.jpg', cacheControl: { type: 'ephemeral' } },
          { type: 'text', text: 'Question' },
        ],
      },
    ]);
    assert.equal(
      JSON.stringify(messages[0]!.content),
      '[{"type":"text","text":"Context","cache_control":{"type":"ephemeral"}},' +
        '{"type":"image","source":{"type":"url","url":"https://img.test/a.jpg"},"cache_control":{"type":"ephemeral"}},' +
        '{"type":"text","text":"Question"}]',
    );
  });

  it('sends tool calls as tool_use and merges tool results into one user turn, results first', () => {
    const out = convertToAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: 'Weather and time?' }] },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_time', arguments: '[1]' },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', content: 'sunny' },
      { role: 'tool', toolCallId: 'call_b', content: '12:00' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
    assert.equal(out.system, undefined);
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Weather and time?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_b', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'call_b', content: '12:00' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('rewrites a tool call id the API refuses (outside [a-zA-Z0-9_-]) the same way in the call and its result', () => {
    const out = convertToAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: 'Look it up' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'functions.lookup:0', name: 'lookup', arguments: '{}' }, { id: 'toolu_01-Ab_c', name: 'lookup', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'functions.lookup:0', content: 'a' },
      { role: 'tool', toolCallId: 'toolu_01-Ab_c', content: 'b' },
    ]);
    const id = 'functions_lookup_0_f70e5c75151c';
    assert.deepEqual(out.messages[1]!.content.map((b) => b.type === 'tool_use' && b.id), [id, 'toolu_01-Ab_c']);
    assert.deepEqual(out.messages[2]!.content.map((b) => b.type === 'tool_result' && b.tool_use_id), [id, 'toolu_01-Ab_c']);
  });

  it('merges consecutive user turns and drops empty text and empty assistant turns', () => {
    const out = convertToAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: '', toolCalls: [] },
      { role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'b' }] },
    ]);
    assert.deepEqual(out.messages, [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }]);
  });

  it('drops whitespace-only text too (the API wants non-whitespace text): parts, assistant text before a tool call, system', () => {
    const out = convertToAnthropicMessages([
      { role: 'system', content: ' \n' },
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: '  ' }] },
      { role: 'assistant', content: '\n\n', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'ok', parts: [{ type: 'text', text: 'ok' }, { type: 'text', text: '\t' }] },
      { role: 'assistant', content: ' ', toolCalls: [] },
    ]);
    assert.equal(out.system, undefined);
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'ok' }] }] },
    ]);
  });
});
