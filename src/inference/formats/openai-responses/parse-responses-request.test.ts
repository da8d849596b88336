import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { encodeReasoningContent } from '../reasoning-content.ts';
import { parseResponsesRequest } from './parse-responses-request.ts';

const sealers = createReasoningSealers(randomBytes(32));
const sealer = sealers(1);
const parse = (body: unknown) => parseResponsesRequest(body, sealer);

function refused(body: unknown, message: string): void {
  assert.throws(
    () => parse(body),
    (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === message,
  );
}

describe('parseResponsesRequest', () => {
  it('takes a string input as one user message, with the defaults', () => {
    const p = parse({ model: 'svc-fast', input: 'hi' });
    assert.deepEqual(p.input, [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]);
    assert.equal(p.store, true);
    assert.equal(p.stream, false);
    assert.deepEqual(p.toolChoice, { type: 'auto' });
    assert.equal(p.parallelToolCalls, true);
    assert.deepEqual(p.textEcho, { format: { type: 'text' } });
  });

  it('reads items, flat function tools, mcp tools, tool_choice, text.format and reasoning', () => {
    const p = parse({
      model: 'm',
      instructions: 'Be brief.',
      previous_response_id: 'resp_1',
      store: false,
      stream: true,
      max_output_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      input: [
        { role: 'developer', content: 'dev' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'https://x.test/a.png', detail: 'low' }] },
        { role: 'assistant', content: 'earlier' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'c1', output: 'done' },
        { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false, reason: 'no' },
        { type: 'item_reference', id: 'msg_1' },
      ],
      tools: [
        { type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: true },
        { type: 'mcp', server_label: 'math', server_url: 'https://mcp.test/mcp', headers: { authorization: 'Bearer t' }, allowed_tools: { tool_names: ['add'] }, require_approval: { never: { tool_names: ['add'] } } },
      ],
      tool_choice: { type: 'mcp', server_label: 'math', name: 'add' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low' },
      metadata: { k: 'v' },
    });
    assert.equal(p.instructions, 'Be brief.');
    assert.equal(p.previousResponseId, 'resp_1');
    assert.equal(p.input.length, 7);
    assert.deepEqual(p.input[2], { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'earlier', annotations: [] }] });
    assert.deepEqual(p.functionTools, [{ name: 'f', parameters: { type: 'object', properties: {} } }]);
    assert.deepEqual(p.mcpServers[0]!.allowed_tools, ['add']);
    assert.deepEqual(p.mcpServers[0]!.require_approval, { default: 'always', always: [], never: ['add'] });
    assert.equal(JSON.stringify(p.toolsEcho).includes('Bearer'), false, 'headers are not echoed');
    assert.deepEqual(p.toolChoice, { type: 'mcp', serverLabel: 'math', name: 'add' });
    assert.deepEqual(p.responseFormat, { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true });
    assert.equal(p.reasoningEffort, 'low');
    assert.deepEqual(p.metadata, { k: 'v' });
  });

  it('also reads function tools in the nested form of the service ({type, function: {name, description, parameters}})', () => {
    const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const p = parse({
      model: 'm',
      input: 'hi',
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: weather } },
        { type: 'function', name: 'flat', parameters: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    assert.deepEqual(p.functionTools, [
      { name: 'get_weather', description: 'Weather now', parameters: weather },
      { name: 'flat', parameters: { type: 'object', properties: {} } },
    ]);
    assert.deepEqual(p.toolsEcho[0], { type: 'function', name: 'get_weather', description: 'Weather now', parameters: weather, strict: true });
    refused({ model: 'm', input: 'hi', tools: [{ type: 'function', function: { name: 'a' } }, { type: 'function', function: { name: 'a' } }] }, 'tools[1].function.name: duplicate tool name a');
    refused({ model: 'm', input: '' }, 'input: must not be empty');
    refused({ model: 'm', input: [] }, 'input: must not be empty');
    refused({ model: 'm', input: 'hi', tools: [{ type: 'function', function: { name: 'a', parameters: 'x' } }] }, 'tools[0].function.parameters: must be a JSON Schema object');
  });

  it('refuses bad fields with a 400 naming them', () => {
    refused(null, 'body: must be a JSON object');
    refused({ model: 42, input: 'x' }, 'model: must be a string');
    // No model is not an error here: the route serves it with the catalog's default (routing/chat-model-id.ts).
    assert.equal(parse({ input: 'x' }).model, undefined);
    refused({ model: 'm' }, 'input: is required');
    refused({ model: 'm', input: 3 }, 'input: must be a string or an array of items');
    refused({ model: 'm', input: [{ type: 'web_search_call' }] }, 'input[0].type: unsupported item type "web_search_call"; expected message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, mcp_approval_response or item_reference');
    refused({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }] }, 'input[0].content[0].image_url: must be an http(s) URL or a data:image/...;base64 URI');
    refused({ model: 'm', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x' }] }] }, 'input[0].content[0].type: images are only allowed in user messages');
    refused({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'bad name' }] }, 'tools[0].name: must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
    refused({ model: 'm', input: 'x', tools: [{ type: 'mcp', server_label: 'a', server_url: 'file:///etc' }] }, 'tools[0].server_url: must be an http(s) URL');
    refused({ model: 'm', input: 'x', tool_choice: { type: 'function', name: 'nope' } }, 'tool_choice.name: no function named "nope" in tools');
    refused({ model: 'm', input: 'x', tool_choice: 'required' }, 'tool_choice: required is only allowed when tools are specified');
    refused({ model: 'm', input: 'x', text: { format: { type: 'xml' } } }, 'text.format.type: must be one of text, json_object, json_schema');
    refused({ model: 'm', input: 'x', reasoning: { effort: 'max' } }, 'reasoning.effort: must be one of none, minimal, low, medium, high, xhigh');
    refused({ model: 'm', input: 'x', max_output_tokens: 0 }, 'max_output_tokens: must be >= 16');
    refused({ model: 'm', input: 'x', max_output_tokens: 15 }, 'max_output_tokens: must be >= 16');
    assert.equal(parse({ model: 'm', input: 'x', max_output_tokens: 16 }).maxOutputTokens, 16);
    refused({ model: 'm', input: 'x', metadata: { a: 1 } }, 'metadata.a: must be a string');
    refused({ model: 'm', input: 'x', background: true }, 'background: is not supported');
  });

  it('reads include reasoning.encrypted_content, and reasoning items sent back with their encrypted_content', () => {
    assert.equal(parse({ input: 'x' }).includeEncryptedReasoning, false);
    assert.equal(parse({ input: 'x', include: ['message.output_text.logprobs'] }).includeEncryptedReasoning, false);
    const content = encodeReasoningContent([{ type: 'thinking', thinking: 't', signature: 's' }], sealer)!;
    const p = parse({
      input: [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 't' }], encrypted_content: content },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: null },
      ],
      include: ['reasoning.encrypted_content'],
    });
    assert.equal(p.includeEncryptedReasoning, true);
    assert.deepEqual(p.input, [
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: content },
      { type: 'reasoning', id: 'rs_2', summary: [] },
    ]);
    refused({ input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAABo-from-elsewhere' }] }, 'input[0].encrypted_content: is not reasoning content this service issued');
    // Changed in one character, issued to another account, or the unsealed form of before.
    const tampered = content.slice(0, 10) + (content[10] === 'A' ? 'B' : 'A') + content.slice(11);
    const otherAccount = encodeReasoningContent([{ type: 'thinking', thinking: 't', signature: 's' }], sealers(2))!;
    const unsealed = Buffer.from(JSON.stringify({ v: 1, b: [{ t: 't', s: 's' }] })).toString('base64url');
    for (const bad of [tampered, otherAccount, unsealed]) {
      refused({ input: [{ role: 'user', content: 'x' }, { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: bad }] }, 'input[1].encrypted_content: is not reasoning content this service issued');
    }
    refused({ input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 7 }] }, 'input[0].encrypted_content: must be a string');
  });
});

describe('parseResponsesRequest: custom tools and allowed_tools', () => {
  const f = { type: 'function', name: 'f', parameters: { type: 'object', properties: {} } };
  const shell = { type: 'custom', name: 'shell', description: 'Runs a command.' };
  const patch = { type: 'custom', name: 'patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } };

  it('reads custom tools, echoes them with their format, and takes custom calls and outputs as input', () => {
    const p = parse({
      model: 'm',
      input: [
        { type: 'custom_tool_call', call_id: 'c1', name: 'shell', input: 'ls', id: 'ctc_1' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] },
      ],
      tools: [shell, patch],
      tool_choice: { type: 'custom', name: 'patch' },
    });
    assert.deepEqual(p.customTools, [
      { name: 'shell', description: 'Runs a command.', format: { type: 'text' } },
      { name: 'patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
    ]);
    assert.deepEqual(p.toolsEcho, [
      { type: 'custom', name: 'shell', description: 'Runs a command.', format: { type: 'text' } },
      { type: 'custom', name: 'patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
    ]);
    assert.deepEqual(p.input, [
      { type: 'custom_tool_call', call_id: 'c1', name: 'shell', input: 'ls', id: 'ctc_1' },
      { type: 'custom_tool_call_output', call_id: 'c1', output: 'ab' },
    ]);
    assert.deepEqual(p.toolChoice, { type: 'custom', name: 'patch' });
    assert.deepEqual(parse({ model: 'm', input: 'x', tools: [shell], tool_choice: 'required' }).toolChoice, { type: 'required' });
  });

  it('refuses bad custom tools and custom items, naming the field', () => {
    refused({ model: 'm', input: 'x', tools: [{ type: 'custom' }] }, 'tools[0].name: is required');
    refused({ model: 'm', input: 'x', tools: [{ type: 'custom', name: 'a b' }] }, 'tools[0].name: must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
    refused({ model: 'm', input: 'x', tools: [f, { type: 'custom', name: 'f' }] }, 'tools[1].name: duplicate tool name "f"');
    refused({ model: 'm', input: 'x', tools: [shell, { ...f, name: 'shell' }] }, 'tools[1].name: duplicate tool name "shell"');
    refused({ model: 'm', input: 'x', tools: [{ ...shell, format: { type: 'json' } }] }, 'tools[0].format.type: must be one of text, grammar');
    refused({ model: 'm', input: 'x', tools: [{ ...shell, format: { type: 'grammar', syntax: 'ebnf', definition: 'x' } }] }, 'tools[0].format.syntax: must be one of lark, regex');
    refused({ model: 'm', input: 'x', tools: [{ ...shell, format: { type: 'grammar', syntax: 'regex' } }] }, 'tools[0].format.definition: is required');
    refused({ model: 'm', input: [{ type: 'custom_tool_call', call_id: 'c1', name: 'shell' }] }, 'input[0].input: is required');
    refused({ model: 'm', input: [{ type: 'custom_tool_call_output', output: 'x' }] }, 'input[0].call_id: is required');
    refused({ model: 'm', input: 'x', tools: [shell], tool_choice: { type: 'custom', name: 'nope' } }, 'tool_choice.name: no custom tool named "nope" in tools');
    refused({ model: 'm', input: 'x', tools: [shell], tool_choice: { type: 'function', name: 'shell' } }, 'tool_choice.name: no function named "shell" in tools');
  });

  it('reads allowed_tools and echoes it as sent', () => {
    const choice = { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'f' }, { type: 'custom', name: 'shell' }, { type: 'mcp', server_label: 'math' }] };
    const p = parse({ model: 'm', input: 'x', tools: [f, shell, patch, { type: 'mcp', server_label: 'math', server_url: 'https://mcp.test/mcp' }], tool_choice: choice });
    assert.deepEqual(p.toolChoice, {
      type: 'allowed_tools',
      mode: 'auto',
      tools: [{ kind: 'function', name: 'f' }, { kind: 'custom', name: 'shell' }, { kind: 'mcp', serverLabel: 'math', name: null }],
      echo: choice,
    });
    // Chat completions' nested form names a function too, in the list and as the choice.
    const nested = parse({ model: 'm', input: 'x', tools: [f], tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', function: { name: 'f' } }] } });
    assert.deepEqual((nested.toolChoice as { tools: unknown }).tools, [{ kind: 'function', name: 'f' }]);
    assert.deepEqual(parse({ model: 'm', input: 'x', tools: [f], tool_choice: { type: 'function', function: { name: 'f' } } }).toolChoice, { type: 'function', name: 'f' });
    refused({ model: 'm', input: 'x', tools: [f], tool_choice: { type: 'function', function: { name: 'g' } } }, 'tool_choice.function.name: no function named "g" in tools');
  });

  it('refuses bad allowed_tools, naming the field', () => {
    const body = (tool_choice: unknown) => ({ model: 'm', input: 'x', tools: [f, shell], tool_choice });
    refused(body({ type: 'allowed_tools', tools: [{ type: 'function', name: 'f' }] }), 'tool_choice.mode: is required');
    refused(body({ type: 'allowed_tools', mode: 'none', tools: [{ type: 'function', name: 'f' }] }), 'tool_choice.mode: must be one of auto, required');
    refused(body({ type: 'allowed_tools', mode: 'auto' }), 'tool_choice.tools: is required');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: [] }), 'tool_choice.tools: must not be empty');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: { type: 'function', name: 'f' } }), 'tool_choice.tools: must be an array of tools');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'g' }] }), 'tool_choice.tools[0].name: no function named "g" in tools');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'f' }, { type: 'custom', name: 'f' }] }), 'tool_choice.tools[1].name: no custom tool named "f" in tools');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'mcp', server_label: 'x' }] }), 'tool_choice.tools[0].server_label: no mcp tool with server_label "x" in tools');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'web_search' }] }), 'tool_choice.tools[0].type: unsupported tool type "web_search"; expected function, custom or mcp');
    refused(body({ type: 'allowed_tools', mode: 'auto', tools: [{ name: 'f' }] }), 'tool_choice.tools[0].type: is required');
    refused(body({ type: 'web_search' }), 'tool_choice.type: must be function, custom, mcp or allowed_tools');
    refused({ model: 'm', input: 'x', tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'f' }] } }, 'tool_choice.tools[0].name: no function named "f" in tools');
  });
});
