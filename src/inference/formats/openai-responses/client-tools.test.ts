import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { CUSTOM_INPUT_SCHEMA, CustomInputStream, clientToolDefinitions, customCallArguments, customInputOf, customToolDefinition, upstreamClientTools, allowsMcpTool } from './client-tools.ts';
import { parseResponsesRequest } from './parse-responses-request.ts';
import type { ConversationItem } from './response-items.ts';
import { toCanonicalMessages } from './to-canonical-messages.ts';

const sealer = createReasoningSealers(randomBytes(32))(1);

/** What the stream decodes from the arguments cut into pieces of `size` characters. */
function streamed(args: string, size: number): string {
  const s = new CustomInputStream();
  let out = '';
  for (let i = 0; i < args.length; i += size) out += s.push(args.slice(i, i + size));
  return out;
}

describe('custom tools as function tools', () => {
  it('a custom tool is a function of one string parameter; a grammar is told in the description', () => {
    assert.deepEqual(customToolDefinition({ name: 'shell', format: { type: 'text' } }), { name: 'shell', parameters: CUSTOM_INPUT_SCHEMA });
    assert.deepEqual(customToolDefinition({ name: 'shell', description: 'Runs a command.', format: { type: 'text' } }), {
      name: 'shell',
      description: 'Runs a command.',
      parameters: CUSTOM_INPUT_SCHEMA,
    });
    const lark = customToolDefinition({ name: 'patch', description: 'Applies a patch.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"+' } });
    assert.equal(lark.description, 'Applies a patch.\n\nThe input must match this Lark grammar:\nstart: "x"+');
    const regex = customToolDefinition({ name: 'date', format: { type: 'grammar', syntax: 'regex', definition: '^\\d{4}$' } });
    assert.equal(regex.description, 'The input must match this regular expression:\n^\\d{4}$');
    assert.deepEqual(CUSTOM_INPUT_SCHEMA.required, ['input']);
  });

  it('the call input round-trips through the arguments, whatever it holds', () => {
    for (const input of ['', 'ls -la', 'line 1\nline "2"\t\\ end', '{"not":"json args"}', 'é — 😀 \u0001']) {
      const args = customCallArguments(input);
      assert.equal(customInputOf(args), input);
      for (const size of [1, 3, 7, 1000]) assert.equal(streamed(args, size), input, `pieces of ${size}`);
    }
  });

  it('arguments of another shape still give the model’s text', () => {
    assert.equal(customInputOf('plain text, not JSON'), 'plain text, not JSON');
    assert.equal(customInputOf('{"input": {"a": 1}}'), '{"a":1}');
    assert.equal(customInputOf('{"command": "ls"}'), 'ls');
    assert.equal(customInputOf('{"a": "x", "b": "y"}'), '{"a": "x", "b": "y"}');
    assert.equal(customInputOf('[1]'), '[1]');
    // The stream decodes nothing it does not recognize: the call's end sends the whole input.
    assert.equal(streamed('{"command": "ls"}', 2), '');
    assert.equal(streamed(' { "input" : "a\\u00e9b" } ', 2), 'aéb');
  });

  it('tools go upstream in the order of `tools`; allowed_tools keeps only the allowed ones', () => {
    const tools = [
      { type: 'custom', name: 'shell' },
      { type: 'function', name: 'f', parameters: { type: 'object', properties: {} } },
      { type: 'custom', name: 'patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
    ];
    const all = parseResponsesRequest({ model: 'm', input: 'x', tools }, sealer);
    assert.deepEqual(clientToolDefinitions(all).map((t) => t.name), ['shell', 'f', 'patch']);
    assert.deepEqual(upstreamClientTools(all).map((t) => t.name), ['shell', 'f', 'patch']);
    const allowed = parseResponsesRequest(
      { model: 'm', input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'custom', name: 'patch' }, { type: 'function', name: 'f' }] } },
      sealer,
    );
    assert.deepEqual(upstreamClientTools(allowed).map((t) => t.name), ['f', 'patch']);
    assert.deepEqual(clientToolDefinitions(allowed).map((t) => t.name), ['shell', 'f', 'patch']);
    assert.equal(allowsMcpTool(allowed.toolChoice, 'math', 'add'), false);
    assert.equal(allowsMcpTool(all.toolChoice, 'math', 'add'), true);
  });

  it('custom calls and outputs are the upstream’s tool calls and tool messages', () => {
    const items: ConversationItem[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
      { type: 'custom_tool_call', id: 'ctc_1', status: 'completed', call_id: 'c1', name: 'shell', input: 'ls "a b"' },
      { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{}' },
      { type: 'custom_tool_call_output', call_id: 'c1', output: 'a b' },
      { type: 'function_call_output', call_id: 'c2', output: 'F' },
    ];
    assert.deepEqual(toCanonicalMessages(null, items, (_l, t) => t, sealer), [
      { role: 'user', content: [{ type: 'text', text: 'list files' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'shell', arguments: '{"input":"ls \\"a b\\""}' }, { id: 'c2', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'a b' },
      { role: 'tool', toolCallId: 'c2', content: 'F' },
    ]);
  });
});
