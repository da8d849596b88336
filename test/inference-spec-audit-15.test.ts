import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a fifteenth audit of the inference API, tried with the official `openai` client and
 * plain HTTP (docs/api-decisions.md, "Inference: fifteenth audit").
 */
describe('inference API, fifteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const { refused, upstreamCalls } = auditRequests(() => ({ g, key: acct.key }));

  describe('completions: a prompt is one text', () => {
    it('several prompts or token arrays are a 400 naming prompt, through the SDK and plain HTTP, nothing sent upstream', async () => {
      const before = upstreamCalls();
      await assert.rejects(
        openai.completions.create({ model: 'svc-fast', prompt: ['Once upon', 'In a galaxy'] }),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.message.includes('prompt: several prompts in one request are not supported'),
      );
      await assert.rejects(
        openai.completions.create({ model: 'svc-fast', prompt: [1, 2, 3] }),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.message.includes('prompt: token arrays are not supported'),
      );
      assert.equal(upstreamCalls(), before);
      const several = 'prompt: several prompts in one request are not supported; send one request per prompt';
      const tokens = 'prompt: token arrays are not supported; send the prompt as text';
      await refused('/v1/completions', { model: 'svc-fast', prompt: ['a', 'b'] }, several);
      await refused('/v1/completions', { model: 'svc-fast', prompt: [15339, 1917] }, tokens);
      await refused('/v1/completions', { model: 'svc-fast', prompt: [[15339], [1917]] }, tokens);
      await refused('/v1/completions', { model: 'svc-fast', prompt: [] }, 'prompt: must not be empty');
      await refused('/v1/completions', { model: 'svc-fast', prompt: [{ text: 'a' }] }, 'prompt: must be a string');
    });

    it('a list of one prompt is still that prompt', async () => {
      g.openai.chat.enqueue({ text: ' there was a fox.' });
      const c = await openai.completions.create({ model: 'svc-fast', prompt: ['Once upon a time'] });
      assert.equal(c.choices[0]!.text, ' there was a fox.');
      assert.equal(c.choices[0]!.index, 0);
    });
  });

  describe('chat completions: custom tools, as on responses', () => {
    const patchTool = {
      type: 'custom' as const,
      custom: { name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar' as const, grammar: { syntax: 'lark' as const, definition: 'start: "*** Begin Patch" /.+/s' } } },
    };
    type Sent = { tools: { function: { name: string; description?: string; parameters: unknown } }[]; tool_choice?: unknown; messages: { role: string; tool_calls?: { function: { name: string; arguments: string } }[] }[] };

    it('a custom tool reaches the upstream as a function of one string, and its call comes back as a custom tool call', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'apply_patch', arguments: { input: '*** Begin Patch\nfix\n' } }] });
      const c = await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'fix it' }], tools: [patchTool], tool_choice: { type: 'custom', custom: { name: 'apply_patch' } } });
      const call = c.choices[0]!.message.tool_calls![0]!;
      assert.equal(call.type, 'custom');
      assert.deepEqual(call.type === 'custom' && call.custom, { name: 'apply_patch', input: '*** Begin Patch\nfix\n' });
      assert.match(call.id, /^call_/);
      assert.equal(c.choices[0]!.finish_reason, 'tool_calls');
      const sent = g.openai.requests.at(-1)!.body as Sent;
      assert.equal(sent.tools[0]!.function.name, 'apply_patch');
      assert.deepEqual(sent.tools[0]!.function.parameters, { type: 'object', properties: { input: { type: 'string', description: 'The raw input for the tool, as free text (not JSON-encoded).' } }, required: ['input'], additionalProperties: false });
      assert.match(sent.tools[0]!.function.description!, /^Apply a patch\.\n\nThe input must match this Lark grammar:\nstart: /);
      assert.deepEqual(sent.tool_choice, { type: 'function', function: { name: 'apply_patch' } });

      // The call and its output go back as history: the upstream gets the call as its function call.
      g.openai.chat.enqueue({ text: 'Patched.' });
      const next = await openai.chat.completions.create({
        model: 'svc-fast',
        tools: [patchTool],
        messages: [{ role: 'user', content: 'fix it' }, c.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'Done!' }],
      });
      assert.equal(next.choices[0]!.message.content, 'Patched.');
      const history = (g.openai.requests.at(-1)!.body as Sent).messages[1]!;
      assert.deepEqual(history.tool_calls!.map((t) => t.function), [{ name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\nfix\n' }) }]);
    });

    it('streamed, the call opens with its name and its input arrives as plain text', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'apply_patch', arguments: { input: 'line "one"\nline two' } }] });
      const stream = await openai.chat.completions.create({ model: 'svc-fast', stream: true, messages: [{ role: 'user', content: 'fix it' }], tools: [patchTool] });
      const calls: unknown[] = [];
      let input = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (!choice) continue;
        finish ??= choice.finish_reason;
        for (const d of (choice.delta.tool_calls ?? []) as unknown as { id?: string; type?: string; custom?: { name?: string; input?: string } }[]) {
          if (d.id) calls.push({ type: d.type, name: d.custom?.name });
          input += d.custom?.input ?? '';
        }
      }
      assert.deepEqual(calls, [{ type: 'custom', name: 'apply_patch' }]);
      assert.equal(input, 'line "one"\nline two');
      assert.equal(finish, 'tool_calls');
    });

    it('over an Anthropic upstream too', async () => {
      g.anthropic.chat.enqueue({ toolCalls: [{ name: 'apply_patch', arguments: { input: 'patch' } }] });
      const c = await openai.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: 'fix it' }], tools: [patchTool] });
      const call = c.choices[0]!.message.tool_calls![0]!;
      assert.deepEqual(call.type === 'custom' && call.custom, { name: 'apply_patch', input: 'patch' });
      const sent = g.anthropic.requests.at(-1)!.body as { tools: { name: string; input_schema: { required: string[] } }[] };
      assert.deepEqual(sent.tools.map((t) => [t.name, t.input_schema.required]), [['apply_patch', ['input']]]);
    });

    it('allowed_tools lists custom tools: only those reach the upstream', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const weather = { type: 'function' as const, function: { name: 'weather', parameters: { type: 'object', properties: {} } } };
      await openai.chat.completions.create({
        model: 'svc-fast',
        messages: [{ role: 'user', content: 'x' }],
        tools: [weather, patchTool],
        tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'custom', custom: { name: 'apply_patch' } }] } },
      });
      const sent = g.openai.requests.at(-1)!.body as Sent;
      assert.deepEqual(sent.tools.map((t) => t.function.name), ['apply_patch']);
      assert.equal(sent.tool_choice, 'required');
    });

    it('malformed custom tools and choices are 400s naming the field', async () => {
      const messages = [{ role: 'user', content: 'x' }];
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [{ type: 'custom' }] }, 'tools[0].custom: must be an object');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [{ type: 'custom', custom: { name: 'a b' } }] }, 'tools[0].custom.name: must be 1-64 letters, digits, underscores or dashes');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [{ type: 'custom', custom: { name: 'p', format: { type: 'grammar', grammar: { syntax: 'peg', definition: 'x' } } } }] }, 'tools[0].custom.format.grammar.syntax: must be one of lark, regex');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [patchTool, { type: 'function', function: { name: 'apply_patch' } }] }, 'tools[1].function.name: duplicate tool name apply_patch');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [patchTool], tool_choice: { type: 'custom', custom: { name: 'nope' } } }, 'tool_choice.custom.name: no custom tool named nope in tools');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [patchTool], tool_choice: { type: 'function', function: { name: 'apply_patch' } } }, 'tool_choice.function.name: apply_patch is a custom tool, not a function');
      const allowed = (tools: unknown[]) => ({ type: 'allowed_tools', allowed_tools: { mode: 'auto', tools } });
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools: [patchTool], tool_choice: allowed([{ type: 'custom', custom: { name: 'nope' } }]) }, 'tool_choice.allowed_tools.tools[0].custom.name: no custom tool named nope in tools');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'assistant', tool_calls: [{ id: 'call_1', type: 'custom', custom: { name: 'apply_patch' } }] }] }, 'messages[0].tool_calls[0].custom.input: is required');
    });
  });
});
