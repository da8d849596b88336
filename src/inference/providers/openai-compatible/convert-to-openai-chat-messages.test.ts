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
});
