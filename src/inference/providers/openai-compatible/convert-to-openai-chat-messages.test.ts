import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertToOpenAIChatMessages } from './convert-to-openai-chat-messages.ts';

describe('convertToOpenAIChatMessages', () => {
  it('sends a lone text part as a string and mixed content as parts', () => {
    assert.deepEqual(
      convertToOpenAIChatMessages([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', url: 'https://img.test/a.png', detail: 'high' },
            { type: 'image', url: 'data:image/png;base64,AAAA' },
          ],
        },
      ]),
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'https://img.test/a.png', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    );
  });

  it('sends assistant tool calls with null content and tool results by call id', () => {
    assert.deepEqual(
      convertToOpenAIChatMessages([
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"a":1}' }] },
        { role: 'tool', toolCallId: 'call_1', content: 'ok' },
        { role: 'assistant', content: 'Done.', toolCalls: [] },
      ]),
      [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
        { role: 'assistant', content: 'Done.' },
      ],
    );
  });

  it('cuts a tool call id over 40 characters to 40 the same way in the call and its result, and keeps one of 40', () => {
    const long = 'toolu_vrtx_01AbCdEfGhIjKlMnOpQrStUvWxYz0123456';
    const forty = long.slice(0, 40);
    const out = convertToOpenAIChatMessages([
      { role: 'user', content: [{ type: 'text', text: 'Look it up' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: long, name: 'lookup', arguments: '{}' }, { id: forty, name: 'lookup', arguments: '{}' }] },
      { role: 'tool', toolCallId: long, content: 'a' },
      { role: 'tool', toolCallId: forty, content: 'b' },
    ]);
    const cut = 'toolu_vrtx_01AbCdEfGhIjKlMn_eee13fdbabac';
    assert.deepEqual(out[1], {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: cut, type: 'function', function: { name: 'lookup', arguments: '{}' } },
        { id: forty, type: 'function', function: { name: 'lookup', arguments: '{}' } },
      ],
    });
    assert.deepEqual(out.slice(2), [
      { role: 'tool', tool_call_id: cut, content: 'a' },
      { role: 'tool', tool_call_id: forty, content: 'b' },
    ]);
  });
});
