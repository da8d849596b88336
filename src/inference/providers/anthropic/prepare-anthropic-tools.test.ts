import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { prepareAnthropicTools } from './prepare-anthropic-tools.ts';

const base: CanonicalChatRequest = { messages: [], tools: [], stop: [], stream: false };
const weather = { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('prepareAnthropicTools', () => {
  it('sends nothing without tools or structured output', () => {
    assert.deepEqual(prepareAnthropicTools(base), { jsonToolName: null });
    assert.deepEqual(prepareAnthropicTools({ ...base, toolChoice: { type: 'auto' } }), { jsonToolName: null });
  });

  it('maps tools to input_schema and every tool choice', () => {
    const tools = [{ name: 'get_weather', description: 'Weather', input_schema: weather.parameters }];
    assert.deepEqual(prepareAnthropicTools({ ...base, tools: [weather] }), { tools, jsonToolName: null });
    assert.deepEqual(prepareAnthropicTools({ ...base, tools: [weather], toolChoice: { type: 'auto' } }).tool_choice, { type: 'auto' });
    assert.deepEqual(prepareAnthropicTools({ ...base, tools: [weather], toolChoice: { type: 'required' } }).tool_choice, { type: 'any' });
    assert.deepEqual(prepareAnthropicTools({ ...base, tools: [weather], toolChoice: { type: 'none' } }).tool_choice, { type: 'none' });
    assert.deepEqual(prepareAnthropicTools({ ...base, tools: [weather], toolChoice: { type: 'tool', name: 'get_weather' } }).tool_choice, {
      type: 'tool',
      name: 'get_weather',
    });
    assert.deepEqual(prepareAnthropicTools({ ...base, tools: [weather], parallelToolCalls: false }).tool_choice, {
      type: 'auto',
      disable_parallel_tool_use: true,
    });
  });

  it('forces a tool carrying the JSON schema for structured output', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    assert.deepEqual(prepareAnthropicTools({ ...base, responseFormat: { type: 'json_schema', name: 'place', schema } }), {
      tools: [{ name: 'json_response', description: 'Give the final answer as this tool input: a JSON object.', input_schema: schema }],
      tool_choice: { type: 'tool', name: 'json_response' },
      jsonToolName: 'json_response',
    });
    const obj = prepareAnthropicTools({ ...base, responseFormat: { type: 'json_object' } });
    assert.deepEqual(obj.tools?.[0]?.input_schema, { type: 'object', additionalProperties: true });
  });

  it('next to client tools, requires one tool call at a time and avoids a name clash', () => {
    const p = prepareAnthropicTools({
      ...base,
      tools: [weather, { name: 'json_response', parameters: { type: 'object' } }],
      responseFormat: { type: 'json_object' },
    });
    assert.equal(p.jsonToolName, 'json_response_1');
    assert.deepEqual(p.tools?.map((t) => t.name), ['get_weather', 'json_response', 'json_response_1']);
    assert.deepEqual(p.tool_choice, { type: 'any', disable_parallel_tool_use: true });
  });

  it('with tools switched off, only the structured-output tool is offered', () => {
    const p = prepareAnthropicTools({ ...base, tools: [weather], toolChoice: { type: 'none' }, responseFormat: { type: 'json_object' } });
    assert.deepEqual(p.tools?.map((t) => t.name), ['json_response']);
    assert.deepEqual(p.tool_choice, { type: 'tool', name: 'json_response' });
  });
});
