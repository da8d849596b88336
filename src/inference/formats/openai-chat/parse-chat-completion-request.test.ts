import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import type { ReasoningBlock } from '../../canonical/chat.ts';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { parseChatCompletionRequest as parseWith } from './parse-chat-completion-request.ts';
import { detailOf } from './reasoning-details.ts';

const sealers = createReasoningSealers(randomBytes(32));
const sealer = sealers(1);
const parseChatCompletionRequest = (body: unknown) => parseWith(body, sealer);

function error400(body: unknown): string {
  try {
    parseChatCompletionRequest(body);
  } catch (e) {
    assert.ok(e instanceof HttpError, String(e));
    assert.equal(e.status, 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

const user = (content: unknown) => ({ model: 'svc-fast', messages: [{ role: 'user', content }] });

describe('parseChatCompletionRequest', () => {
  it('reads a minimal request', () => {
    const r = parseChatCompletionRequest(user('Hello'));
    assert.equal(r.model, 'svc-fast');
    assert.equal(r.includeUsage, false);
    assert.deepEqual(r.request, {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      tools: [],
      stop: [],
      stream: false,
    });
  });

  it('reads every supported field of a full conversation', () => {
    const r = parseChatCompletionRequest({
      model: 'svc-vision',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image_url', image_url: { url: 'https://img.test/a.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
      ],
      tools: [
        { type: 'function', function: { name: 'look', description: 'Look', parameters: { type: 'object', properties: { x: { type: 'number' } } } } },
        { type: 'function', function: { name: 'noargs' } },
      ],
      tool_choice: { type: 'function', function: { name: 'look' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
      max_tokens: 100,
      max_completion_tokens: 50,
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      user: 'u-1',
      seed: 7,
      logprobs: false,
    });
    assert.equal(r.includeUsage, true);
    assert.deepEqual(r.request, {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Use tools.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image', url: 'https://img.test/a.png', detail: 'low' },
            { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'look', arguments: '{"x":1}' }] },
        { role: 'tool', toolCallId: 'call_1', content: 'a cat' },
      ],
      tools: [
        { name: 'look', description: 'Look', parameters: { type: 'object', properties: { x: { type: 'number' } } } },
        { name: 'noargs', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'tool', name: 'look' },
      parallelToolCalls: false,
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
      maxTokens: 50,
      temperature: 0.5,
      topP: 0.9,
      stop: ['END'],
      stream: true,
      user: 'u-1',
    });
  });

  it('reads json_object and drops the text response format', () => {
    assert.deepEqual(parseChatCompletionRequest({ ...user('x in JSON'), response_format: { type: 'json_object' } }).request.responseFormat, { type: 'json_object' });
    assert.equal(error400({ ...user('x'), response_format: { type: 'json_object' } }), "messages: must contain the word 'json' in some form, to use 'response_format' of type 'json_object'");
    assert.equal(parseChatCompletionRequest({ ...user('x'), response_format: { type: 'text' } }).request.responseFormat, undefined);
  });

  it('refuses stream_options on a request that does not stream, as OpenAI does; null is none', () => {
    assert.equal(error400({ ...user('x'), stream_options: { include_usage: true } }), 'stream_options: is only allowed when stream is true');
    assert.equal(error400({ ...user('x'), stream: false, stream_options: {} }), 'stream_options: is only allowed when stream is true');
    assert.equal(parseChatCompletionRequest({ ...user('x'), stream_options: null }).includeUsage, false);
    assert.equal(parseChatCompletionRequest({ ...user('x'), stream: true, stream_options: { include_usage: false } }).includeUsage, false);
  });

  it('names the offending field', () => {
    assert.equal(error400('x'), 'body: must be a JSON object');
    assert.equal(error400({ model: 42, messages: [] }), 'model: must be a string');
    // No model is not an error here: the route serves it with the catalog's default (routing/chat-model-id.ts).
    assert.equal(parseChatCompletionRequest({ messages: [{ role: 'user', content: 'x' }] }).model, undefined);
    assert.equal(error400({ model: 'svc-fast' }), 'messages: is required');
    assert.equal(error400({ model: 'svc-fast', messages: [] }), 'messages: must not be empty');
    assert.equal(error400({ model: 'svc-fast', messages: [{ role: 'robot', content: 'x' }] }), 'messages[0].role: must be one of system, developer, user, assistant, tool');
    assert.equal(error400(user(42)), 'messages[0].content: must be a string or an array of content parts');
    assert.equal(error400(user([])), 'messages[0].content: must not be empty');
    assert.equal(error400(user([{ type: 'input_audio' }])), 'messages[0].content[0].type: unsupported content part type "input_audio"; expected text, image_url or file');
    assert.equal(error400(user([{ type: 'image_url', image_url: { url: 'ftp://x' } }])), 'messages[0].content[0].image_url.url: must be an http(s) URL or a base64 data URI');
    assert.equal(error400(user([{ type: 'text' }])), 'messages[0].content[0].text: is required');
    assert.equal(
      error400({ model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }] }] }),
      'messages[0].tool_calls[0].function.arguments: must be a JSON string',
    );
    assert.equal(error400({ model: 'm', messages: [{ role: 'tool', content: 'x' }] }), 'messages[0].tool_call_id: is required');
    assert.equal(error400({ ...user('x'), tools: [{ type: 'function', function: { name: 'bad name' } }] }), 'tools[0].function.name: must be 1-64 letters, digits, underscores or dashes');
    assert.equal(error400({ ...user('x'), tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] }), 'tools[0].function.parameters: must be a JSON Schema object');
    assert.equal(error400({ ...user('x'), tool_choice: 'sometimes' }), 'tool_choice: must be one of auto, none, required or a function choice');
    const f = { type: 'function', function: { name: 'f' } };
    assert.equal(error400({ ...user('x'), tools: [f], tool_choice: { type: 'function', function: { name: 'g' } } }), 'tool_choice.function.name: no tool named g in tools');
    for (const tool_choice of ['auto', 'none', 'required', { type: 'function', function: { name: 'g' } }]) {
      assert.equal(error400({ ...user('x'), tool_choice }), 'tool_choice: is only allowed when tools are specified');
    }
    for (const parallel_tool_calls of [true, false]) {
      assert.equal(error400({ ...user('x'), parallel_tool_calls }), 'parallel_tool_calls: is only allowed when tools are specified');
      assert.equal(error400({ ...user('x'), tools: [], parallel_tool_calls }), 'parallel_tool_calls: is only allowed when tools are specified');
    }
    assert.equal(error400({ ...user('x'), parallel_tool_calls: 'yes' }), 'parallel_tool_calls: must be a boolean');
    assert.equal(parseChatCompletionRequest({ ...user('x'), parallel_tool_calls: null }).request.parallelToolCalls, undefined);
    assert.equal(error400({ ...user('x'), response_format: { type: 'yaml' } }), 'response_format.type: must be one of text, json_object, json_schema');
    assert.equal(error400({ ...user('x'), response_format: { type: 'json_schema' } }), 'response_format.json_schema: must be an object');
    assert.equal(error400({ ...user('x'), max_tokens: 0 }), 'max_tokens: must be >= 1');
    assert.equal(error400({ ...user('x'), temperature: 2.5 }), 'temperature: must be <= 2');
    assert.equal(error400({ ...user('x'), stop: ['a', 'b', 'c', 'd', 'e'] }), 'stop: must have at most 4 items');
    assert.equal(error400({ ...user('x'), n: 2 }), 'n: only 1 is supported');
    assert.equal(error400({ ...user('x'), stream: 'yes' }), 'stream: must be a boolean');
  });

  describe('reasoning_details on assistant messages', () => {
    const signed: ReasoningBlock = { type: 'thinking', thinking: 'Look it up.', signature: 'EqQBsig' };
    const redacted: ReasoningBlock = { type: 'redacted_thinking', data: 'EmwKopaque' };
    const call = { id: 'call_1', type: 'function', function: { name: 'get', arguments: '{}' } };
    /** A tool-use turn sent back with these reasoning_details. */
    const turn = (details: unknown) => ({
      model: 'svc-vision',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, reasoning: 'Look it up.', reasoning_details: details, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    const assistant = (details: unknown) => parseChatCompletionRequest(turn(details)).request.messages[1];

    it('gives the blocks of the service’s entries back, in order, first in their turn', () => {
      const details = [detailOf(signed, 0, sealer), detailOf(redacted, 1, sealer)];
      assert.deepEqual(assistant(details), { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get', arguments: '{}' }], reasoning: [signed, redacted] });
      // The token holds the block: a text changed beside it, or left out, does not change what goes back.
      assert.deepEqual(assistant([{ ...details[0], text: 'changed' }, { ...details[1], format: undefined }])!, assistant(details));
      // A stream's entries sent back one by one, a token twice: each block once.
      const pieces = [{ type: 'reasoning.text', text: 'Look', format: 'svc-reasoning-v1', index: 0 }, { type: 'reasoning.text', text: ' it up.', format: 'svc-reasoning-v1', index: 0 }];
      assert.deepEqual((assistant([...pieces, details[0], details[0], details[1]]) as { reasoning: unknown }).reasoning, [signed, redacted]);
    });

    it('leaves out what is not the service’s to send: text without a token, other formats, other types; none left is no reasoning', () => {
      const foreign = [
        { type: 'reasoning.text', text: 'Look it up.', signature: 'EqQBsig', format: 'anthropic-claude-v1', index: 0 },
        { type: 'reasoning.encrypted', data: 'gAAAAABo', format: 'openai-responses-v1', index: 1 },
        { type: 'reasoning.summary', summary: 'Looked it up.', format: 'svc-reasoning-v1', index: 2 },
        { type: 'reasoning.text', text: 'unsigned', format: 'svc-reasoning-v1', index: 3 },
        { type: 'reasoning.text', text: 'null signature', signature: null, index: 4 },
      ];
      assert.deepEqual(assistant(foreign), { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get', arguments: '{}' }] });
      assert.deepEqual(assistant([]), assistant(null));
    });

    it('refuses a token the service did not issue to this account: 400 naming the field', () => {
      const token = detailOf(signed, 0, sealer) as { signature: string };
      const data = (detailOf(redacted, 0, sealer) as { data: string }).data;
      const flip = (t: string) => t.slice(0, 12) + (t[12] === 'A' ? 'B' : 'A') + t.slice(13);
      for (const bad of [flip(token.signature), (detailOf(signed, 0, sealers(2)) as { signature: string }).signature, (detailOf(signed, 0, createReasoningSealers(randomBytes(32))(1)) as { signature: string }).signature, 'EqQBsig']) {
        assert.equal(error400(turn([{ ...token, signature: bad }])), 'messages[1].reasoning_details[0].signature: is not reasoning content this service issued');
        assert.equal(error400(turn([{ type: 'reasoning.text', text: 'x', signature: bad }])), 'messages[1].reasoning_details[0].signature: is not reasoning content this service issued', 'no format is the service’s');
      }
      assert.equal(error400(turn([token, { type: 'reasoning.encrypted', data: flip(data), format: 'svc-reasoning-v1', index: 1 }])), 'messages[1].reasoning_details[1].data: is not reasoning content this service issued');
      assert.equal(error400(turn({ type: 'reasoning.text' })), 'messages[1].reasoning_details: must be an array');
      assert.equal(error400(turn(['x'])), 'messages[1].reasoning_details[0]: must be an object');
      assert.equal(error400(turn([{ text: 'x' }])), 'messages[1].reasoning_details[0].type: is required');
      assert.equal(error400(turn([{ type: 'reasoning.encrypted', format: 'svc-reasoning-v1' }])), 'messages[1].reasoning_details[0].data: is required');
      assert.equal(error400(turn([{ type: 'reasoning.text', signature: 7 }])), 'messages[1].reasoning_details[0].signature: must be a string');
    });
  });
});
