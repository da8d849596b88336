import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest } from './chat.ts';
import { chatRequestFeatures } from './chat-request-features.ts';

const base: CanonicalChatRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  stop: [],
  stream: false,
};

describe('chatRequestFeatures', () => {
  it('reports nothing for plain text', () => {
    assert.deepEqual(chatRequestFeatures(base), { images: false, tools: false, jsonOutput: false });
  });

  it('sees images, tools and structured output', () => {
    const r: CanonicalChatRequest = {
      ...base,
      messages: [{ role: 'user', content: [{ type: 'image', url: 'https://x.test/a.png' }] }],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      responseFormat: { type: 'json_object' },
    };
    assert.deepEqual(chatRequestFeatures(r), { images: true, tools: true, jsonOutput: true });
  });

  it('does not count tools the client switched off', () => {
    const r: CanonicalChatRequest = { ...base, tools: [{ name: 'f', parameters: {} }], toolChoice: { type: 'none' } };
    assert.equal(chatRequestFeatures(r).tools, false);
  });
});
