import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';

/**
 * Findings of the session 29 audit of the chat protocols, as a new user of the official `openai`
 * and `@anthropic-ai/sdk` clients (docs/api-decisions.md, "Inference: session 29 audit").
 */
describe('inference API, session 29 audit', () => {
  let g: Gateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];
  const lastBody = (f: { requests: { body: unknown }[] }) => f.requests.at(-1)!.body as { messages: { role: string; content: { type: string; id?: string; tool_use_id?: string }[] }[] };

  describe('tool call ids from another provider reach an Anthropic upstream in the form its API takes', () => {
    // Kimi-style and other providers' ids: the API refuses anything outside [a-zA-Z0-9_-].
    const foreignIds = ['functions.lookup:0', 'call|1', 'call 2'];

    it('chat completions (svc-vision): a history with such ids is answered, each call and its result still paired', async () => {
      const r = await openai.chat.completions.create({
        model: 'svc-vision',
        tools,
        messages: [
          { role: 'user', content: 'look up a, b and c' },
          { role: 'assistant', content: null, tool_calls: foreignIds.map((id, i) => ({ id, type: 'function' as const, function: { name: 'lookup', arguments: JSON.stringify({ q: String(i) }) } })) },
          ...foreignIds.map((id) => ({ role: 'tool' as const, tool_call_id: id, content: `result of ${id}` })),
        ],
      });
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      const sent = lastBody(g.anthropic).messages;
      const uses = sent[1]!.content.filter((b) => b.type === 'tool_use').map((b) => b.id!);
      const results = sent[2]!.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id!);
      assert.equal(new Set(uses).size, 3);
      assert.deepEqual(results, uses);
      for (const id of uses) assert.match(id, /^[a-zA-Z0-9_-]+$/);
    });

    it('ids that differ only in a character the API refuses stay distinct', async () => {
      const ids = ['call.1', 'call:1'];
      await openai.chat.completions.create({
        model: 'svc-vision',
        tools,
        messages: [
          { role: 'user', content: 'twice' },
          { role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function' as const, function: { name: 'lookup', arguments: '{"q":"x"}' } })) },
          ...ids.map((id) => ({ role: 'tool' as const, tool_call_id: id, content: id })),
        ],
      });
      const uses = lastBody(g.anthropic).messages[1]!.content.filter((b) => b.type === 'tool_use').map((b) => b.id!);
      assert.equal(new Set(uses).size, 2);
    });

    it('an id the API takes is sent unchanged', async () => {
      await openai.chat.completions.create({
        model: 'svc-vision',
        tools,
        messages: [
          { role: 'user', content: 'once' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01-Ab_c', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
          { role: 'tool', tool_call_id: 'toolu_01-Ab_c', content: 'x' },
        ],
      });
      assert.equal(lastBody(g.anthropic).messages[1]!.content[0]!.id, 'toolu_01-Ab_c');
    });

    it('responses (svc-vision): a function_call and its output with such a call_id are answered', async () => {
      const r = await openai.responses.create({
        model: 'svc-vision',
        store: false,
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
        input: [
          { role: 'user', content: 'look it up' },
          { type: 'function_call', call_id: 'functions.lookup:0', name: 'lookup', arguments: '{"q":"x"}' },
          { type: 'function_call_output', call_id: 'functions.lookup:0', output: 'found' },
        ],
      });
      assert.equal(r.status, 'completed');
    });

    it('messages (svc-vision): tool_use and tool_result with such an id are answered', async () => {
      const m = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 100,
        tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
        messages: [
          { role: 'user', content: 'look it up' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'functions.lookup:0', name: 'lookup', input: { q: 'x' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'functions.lookup:0', content: 'found', is_error: false }] },
        ],
      });
      assert.equal(m.stop_reason, 'end_turn');
    });
  });

  describe('tool call ids longer than OpenAI takes reach an OpenAI-compatible upstream in the form its API takes', () => {
    // 46 characters, as another gateway's ids are (LiteLLM issue #17343); OpenAI takes at most 40.
    const long = 'toolu_vrtx_01AbCdEfGhIjKlMnOpQrStUvWxYz0123456';

    it('chat completions (svc-fast): answered, the call and its result still paired', async () => {
      const r = await openai.chat.completions.create({
        model: 'svc-fast',
        tools,
        messages: [
          { role: 'user', content: 'look it up' },
          { role: 'assistant', content: null, tool_calls: [long, `${long}X`].map((id) => ({ id, type: 'function' as const, function: { name: 'lookup', arguments: '{"q":"x"}' } })) },
          { role: 'tool', tool_call_id: long, content: 'one' },
          { role: 'tool', tool_call_id: `${long}X`, content: 'two' },
        ],
      });
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      const sent = (g.openai.requests.at(-1)!.body as { messages: { tool_calls?: { id: string }[]; tool_call_id?: string }[] }).messages;
      const ids = sent[1]!.tool_calls!.map((c) => c.id);
      assert.deepEqual([sent[2]!.tool_call_id, sent[3]!.tool_call_id], ids);
      assert.equal(new Set(ids).size, 2);
      for (const id of ids) assert.ok(id.length <= 40, id);
    });

    it('messages (svc-fast): answered', async () => {
      const m = await anthropic.messages.create({
        model: 'svc-fast',
        max_tokens: 100,
        tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
        messages: [
          { role: 'user', content: 'look it up' },
          { role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'lookup', input: { q: 'x' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: long, content: 'found' }] },
        ],
      });
      assert.equal(m.stop_reason, 'end_turn');
    });

    it('an id of 40 characters is sent unchanged', async () => {
      const id = long.slice(0, 40);
      await openai.chat.completions.create({
        model: 'svc-fast',
        tools,
        messages: [
          { role: 'user', content: 'once' },
          { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
          { role: 'tool', tool_call_id: id, content: 'x' },
        ],
      });
      const sent = (g.openai.requests.at(-1)!.body as { messages: { tool_calls?: { id: string }[] }[] }).messages;
      assert.equal(sent[1]!.tool_calls![0]!.id, id);
    });
  });
});
