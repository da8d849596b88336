import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { FakeServer } from './fakes/fake-server.ts';
import { PRICES, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { assertResponsePaid, type CallUsage } from './helpers/books.ts';

/**
 * `/v1/responses` with `custom` (free-form) tools and `tool_choice: {type: "allowed_tools"}`, through
 * the official `openai` SDK, on an OpenAI-compatible upstream and on an Anthropic one, streamed and
 * not (docs/api-decisions.md, "Responses: allowed tools and custom tools").
 */


const KINDS = [
  { name: 'OpenAI-style', model: 'svc-fast' as const, fake: (g: Gateway) => g.openai, anthropic: false },
  { name: 'Anthropic', model: 'svc-vision' as const, fake: (g: Gateway) => g.anthropic, anthropic: true },
];

/** An input with newlines, quotes and backslashes: what JSON-in-JSON would mangle. */
const PATCH = '*** Begin Patch\n*** Update File: a.txt\n-say "hi"\n+say "hello" \\ bye\n*** End Patch';
const LARK = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';

const TOOLS: OpenAI.Responses.Tool[] = [
  { type: 'custom', name: 'apply_patch', description: 'Applies a patch to the files.', format: { type: 'grammar', syntax: 'lark', definition: LARK } },
  { type: 'custom', name: 'shell', description: 'Runs a shell command.' },
  { type: 'function', name: 'get_time', description: 'Current time in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true },
];

interface SeenTool {
  name: string;
  description?: string;
  parameters: unknown;
}

/** The tools the upstream received in its last request, in either kind's shape. */
function upstreamTools(fake: FakeServer): SeenTool[] {
  const body = fake.requests.at(-1)!.body as { tools?: Record<string, unknown>[] };
  return (body.tools ?? []).map((t) => {
    const f = (t.function ?? t) as { name: string; description?: string; parameters?: unknown; input_schema?: unknown };
    return { name: f.name, ...(f.description === undefined ? {} : { description: f.description }), parameters: f.parameters ?? f.input_schema };
  });
}

/** The tool choice the upstream received in its last request: auto, required, none or tool:<name>. */
function upstreamChoice(fake: FakeServer): string {
  const c = (fake.requests.at(-1)!.body as { tool_choice?: unknown }).tool_choice;
  if (c === undefined || c === 'auto') return 'auto';
  if (typeof c === 'string') return c;
  const o = c as { type: string; name?: string; function?: { name: string } };
  if (o.type === 'any') return 'required';
  if (o.type === 'tool' || o.type === 'function') return `tool:${o.name ?? o.function!.name}`;
  return o.type;
}

/** The tool calls of the upstream's last request's conversation and the results answering them, in either kind's shape. */
function upstreamCalls(fake: FakeServer): { calls: { id: string; name: string; input: unknown }[]; results: { id: string; content: string }[] } {
  const body = fake.requests.at(-1)!.body as { messages: Record<string, unknown>[] };
  const calls: { id: string; name: string; input: unknown }[] = [];
  const results: { id: string; content: string }[] = [];
  for (const m of body.messages) {
    for (const c of (m.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[]) calls.push({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) });
    if (m.role === 'tool') results.push({ id: String(m.tool_call_id), content: String(m.content) });
    if (Array.isArray(m.content)) {
      for (const b of m.content as Record<string, unknown>[]) {
        if (b.type === 'tool_use') calls.push({ id: String(b.id), name: String(b.name), input: b.input });
        if (b.type === 'tool_result') {
          const content = typeof b.content === 'string' ? b.content : (b.content as { text: string }[]).map((p) => p.text).join('');
          results.push({ id: String(b.tool_use_id), content });
        }
      }
    }
  }
  return { calls, results };
}

function textOf(r: OpenAI.Responses.Response): string {
  return r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
}

const customCalls = (r: OpenAI.Responses.Response) => r.output.filter((o): o is OpenAI.Responses.ResponseCustomToolCall => o.type === 'custom_tool_call');

describe('/v1/responses: custom tools and allowed_tools over both upstream kinds', () => {
  let g: Gateway;
  before(async () => {
    g = await startGateway();
  });
  after(() => g.close());

  /** Runs fn and checks the account paid exactly the upstream usages at the brand's prices, one usage row, nothing left held. */
  async function billed(acct: TestAccount, model: keyof typeof PRICES, usages: readonly CallUsage[], fn: () => Promise<unknown>): Promise<void> {
    await assertResponsePaid(g, acct.id, PRICES[model], usages, fn, 'charged the upstream usages');
  }

  for (const kind of KINDS) {
    describe(`${kind.name} (${kind.model})`, () => {
      const u1 = { input: 321, cached: 100, output: 45 };
      const u2 = { input: 654, cached: 0, output: 12 };

      it('a custom tool is a function of one string upstream; its call is a custom_tool_call, answered through previous_response_id', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(acct.key);
        const fake = kind.fake(g);
        fake.chat.enqueue({ toolCalls: [{ name: 'apply_patch', arguments: { input: PATCH } }], usage: u1 }, { text: 'Patched.', usage: u2 });
        let r1!: OpenAI.Responses.Response;
        await billed(acct, kind.model, [u1], async () => {
          r1 = await client.responses.create({ model: kind.model, input: 'Say hello instead of hi in a.txt', tools: TOOLS });
        });
        const seen = upstreamTools(fake);
        assert.deepEqual(seen.map((t) => t.name), ['apply_patch', 'shell', 'get_time']);
        const stringInput = { type: 'object', properties: { input: { type: 'string', description: 'The raw input for the tool, as free text (not JSON-encoded).' } }, required: ['input'], additionalProperties: false };
        assert.deepEqual(seen[0], { name: 'apply_patch', description: `Applies a patch to the files.\n\nThe input must match this Lark grammar:\n${LARK}`, parameters: stringInput });
        assert.deepEqual(seen[1], { name: 'shell', description: 'Runs a shell command.', parameters: stringInput });
        assert.equal(upstreamChoice(fake), 'auto');

        assert.equal(r1.status, 'completed');
        const [call] = customCalls(r1);
        assert.ok(call, 'a custom_tool_call item');
        assert.deepEqual(Object.keys(call).sort(), ['call_id', 'id', 'input', 'name', 'status', 'type']);
        assert.match(call.id!, /^ctc_[A-Za-z0-9]{24}$/);
        assert.match(call.call_id, /^call_/);
        assert.equal(call.name, 'apply_patch');
        assert.equal(call.input, PATCH, 'the input is the text itself, not JSON');
        assert.deepEqual(r1.tools, [
          { type: 'custom', name: 'apply_patch', description: 'Applies a patch to the files.', format: { type: 'grammar', syntax: 'lark', definition: LARK } },
          { type: 'custom', name: 'shell', description: 'Runs a shell command.', format: { type: 'text' } },
          { type: 'function', name: 'get_time', description: 'Current time in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true },
        ]);

        let r2!: OpenAI.Responses.Response;
        await billed(acct, kind.model, [u2], async () => {
          r2 = await client.responses.create({
            model: kind.model,
            previous_response_id: r1.id,
            input: [{ type: 'custom_tool_call_output', call_id: call.call_id, output: 'Done: 1 file changed' }],
            tools: TOOLS,
          });
        });
        assert.equal(textOf(r2), 'Patched.');
        const up = upstreamCalls(fake);
        assert.deepEqual(up.calls, [{ id: call.call_id, name: 'apply_patch', input: { input: PATCH } }], 'the stored call goes back as the function call it was');
        assert.deepEqual(up.results, [{ id: call.call_id, content: 'Done: 1 file changed' }]);
        const stored = await client.responses.retrieve(r1.id);
        assert.deepEqual(customCalls(stored), [call]);
      });

      it('streamed: custom_tool_call_input deltas add up to the input of .done; continued statelessly with the items sent back', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(acct.key);
        const fake = kind.fake(g);
        fake.chat.enqueue({ toolCalls: [{ name: 'shell', arguments: { input: 'grep -n "todo" src/*.ts\necho done' } }], usage: u1 }, { text: 'Two todos.', usage: u2 });
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        let r1!: OpenAI.Responses.Response;
        await billed(acct, kind.model, [u1], async () => {
          const stream = client.responses.stream({ model: kind.model, input: 'Find the todos', tools: TOOLS, store: false });
          stream.on('event', (e) => events.push(e));
          r1 = await stream.finalResponse();
        });
        const [call] = customCalls(r1);
        assert.ok(call);
        assert.equal(call.input, 'grep -n "todo" src/*.ts\necho done');
        events.forEach((e, i) => assert.equal(e.sequence_number, i, 'sequence numbers from 0 without gaps'));
        const types = events.map((e) => e.type);
        const added = types.indexOf('response.output_item.added');
        const firstDelta = types.indexOf('response.custom_tool_call_input.delta');
        const done = types.indexOf('response.custom_tool_call_input.done');
        assert.ok(added >= 0 && added < firstDelta && firstDelta < done && done < types.lastIndexOf('response.output_item.done'), types.join(' '));
        const deltas = events.filter((e): e is OpenAI.Responses.ResponseCustomToolCallInputDeltaEvent => e.type === 'response.custom_tool_call_input.delta');
        if (!kind.anthropic) assert.ok(deltas.length > 1, 'the fake streams the arguments in pieces; the input streams as it comes');
        assert.equal(deltas.map((d) => d.delta).join(''), call.input);
        const doneEvent = events[done] as OpenAI.Responses.ResponseCustomToolCallInputDoneEvent;
        assert.deepEqual({ item_id: doneEvent.item_id, output_index: doneEvent.output_index, input: doneEvent.input }, { item_id: call.id, output_index: 0, input: call.input });
        assert.ok(deltas.every((d) => d.item_id === call.id && d.output_index === 0));
        assert.equal(types.includes('response.function_call_arguments.delta'), false, 'a custom call streams no JSON arguments');
        await assert.rejects(client.responses.retrieve(r1.id), OpenAI.NotFoundError);

        // store: false: the client sends the whole conversation back, the call as it got it.
        // The stream is opened inside billed: its request starts at once, and the usage count must be read before it.
        let r2!: OpenAI.Responses.Response;
        await billed(acct, kind.model, [u2], async () => {
          r2 = await client.responses
            .stream({
              model: kind.model,
              store: false,
              tools: TOOLS,
              input: [{ role: 'user', content: 'Find the todos' }, ...(r1.output as OpenAI.Responses.ResponseInputItem[]), { type: 'custom_tool_call_output', call_id: call.call_id, output: 'a.ts:1: todo\nb.ts:9: todo' }],
            })
            .finalResponse();
        });
        assert.equal(textOf(r2), 'Two todos.');
        const up = upstreamCalls(fake);
        assert.deepEqual(up.calls, [{ id: call.call_id, name: 'shell', input: { input: call.input } }]);
        assert.deepEqual(up.results, [{ id: call.call_id, content: 'a.ts:1: todo\nb.ts:9: todo' }]);
      });

      it('allowed_tools: only the allowed tools go upstream, mode required forces a call among them, every tool is echoed', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(acct.key);
        const fake = kind.fake(g);
        const choice: OpenAI.Responses.ToolChoiceAllowed = { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }, { type: 'custom', name: 'shell' }] };
        for (const stream of [false, true]) {
          fake.chat.enqueue({ toolCalls: [{ name: 'get_time', arguments: { city: 'Oslo' } }] });
          const body = { model: kind.model, input: 'What time is it in Oslo?', tools: TOOLS, tool_choice: choice };
          const r = stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
          assert.deepEqual(upstreamTools(fake).map((t) => t.name), ['shell', 'get_time'], 'apply_patch is not allowed: not sent');
          assert.equal(upstreamChoice(fake), 'required');
          assert.deepEqual(r.tool_choice, choice, 'the choice is echoed as sent');
          assert.deepEqual(r.tools.map((t) => (t as { name: string }).name), ['apply_patch', 'shell', 'get_time'], 'every tool stays declared');
          const fc = r.output.find((o) => o.type === 'function_call');
          assert.equal(fc?.type === 'function_call' && fc.name, 'get_time');
        }
        fake.chat.enqueue({ text: 'It is noon.' });
        await client.responses.create({ model: kind.model, input: 'Time?', tools: TOOLS, tool_choice: { ...choice, mode: 'auto' } });
        assert.equal(upstreamChoice(fake), 'auto');
        assert.deepEqual(upstreamTools(fake).map((t) => t.name), ['shell', 'get_time']);
        // A custom tool named by tool_choice is forced as the function it is upstream.
        fake.chat.enqueue({ toolCalls: [{ name: 'shell', arguments: { input: 'date' } }] });
        const forced = await client.responses.create({ model: kind.model, input: 'Time?', tools: TOOLS, tool_choice: { type: 'custom', name: 'shell' } });
        assert.equal(upstreamChoice(fake), 'tool:shell');
        assert.deepEqual(forced.tool_choice, { type: 'custom', name: 'shell' });
        assert.equal(customCalls(forced)[0]?.input, 'date');
      });
    });
  }

  it('custom calls and outputs must pair, as function calls do (400 before any upstream call)', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    const calls = g.openai.requests.length;
    const bad = async (input: unknown, message: string) =>
      assert.rejects(client.responses.create({ model: 'svc-fast', input, tools: TOOLS } as never), (e: unknown) => e instanceof OpenAI.BadRequestError && String(e.error).includes(message));
    await bad([{ role: 'user', content: 'x' }, { type: 'custom_tool_call_output', call_id: 'call_nope', output: 'x' }], 'input[1].call_id: no tool call found for custom tool call output with call_id call_nope');
    await bad(
      [{ role: 'user', content: 'x' }, { type: 'custom_tool_call', call_id: 'call_1', name: 'shell', input: 'ls' }, { role: 'user', content: 'and?' }],
      'input[1].call_id: no tool output found for custom tool call call_1',
    );
    await assert.rejects(
      client.responses.inputTokens.count({ model: 'svc-fast', tools: TOOLS, input: [{ role: 'user', content: 'x' }, { type: 'custom_tool_call', call_id: 'call_1', name: 'shell', input: 'ls' }, { role: 'user', content: 'and?' }] }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === 'input[1].call_id: no tool output found for custom tool call call_1',
    );
    assert.equal(g.openai.requests.length, calls, 'nothing reached the upstream');
    // A call answered (by either output type) goes through; a call that ends the conversation is the model's to answer.
    g.openai.chat.enqueue({ text: 'ok' }, { text: 'ok' });
    await client.responses.create({ model: 'svc-fast', tools: TOOLS, input: [{ role: 'user', content: 'x' }, { type: 'custom_tool_call', call_id: 'call_1', name: 'shell', input: 'ls' }, { type: 'custom_tool_call_output', call_id: 'call_1', output: 'a' }] });
    await client.responses.create({ model: 'svc-fast', tools: TOOLS, input: [{ role: 'user', content: 'x' }, { type: 'custom_tool_call', call_id: 'call_1', name: 'shell', input: 'ls' }] });
  });

  it('400s name the field for bad custom tools and allowed_tools', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    const bad = async (body: object, message: string) =>
      assert.rejects(client.responses.create({ model: 'svc-fast', input: 'x', ...body } as never), (e: unknown) => e instanceof OpenAI.BadRequestError && String(e.error).includes(message));
    await bad({ tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [] } }, 'tool_choice.tools: must not be empty');
    await bad({ tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'sometimes', tools: [{ type: 'custom', name: 'shell' }] } }, 'tool_choice.mode: must be one of auto, required');
    await bad({ tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'shell' }] } }, 'tool_choice.tools[0].name: no function named "shell" in tools');
    await bad({ tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'custom', name: 'nope' }] } }, 'tool_choice.tools[0].name: no custom tool named "nope" in tools');
    await bad({ tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'image_generation' }] } }, 'tool_choice.tools[0].type: unsupported tool type "image_generation"');
    await bad({ tools: TOOLS, tool_choice: { type: 'custom', name: 'get_time' } }, 'tool_choice.name: no custom tool named "get_time" in tools');
    await bad({ tools: [{ type: 'custom', name: 'get_time' }, TOOLS[2]] }, 'tools[1].name: duplicate tool name "get_time"');
    await bad({ tools: [{ type: 'custom', name: 'x', format: { type: 'grammar', syntax: 'ebnf', definition: 'a' } }] }, 'tools[0].format.syntax: must be one of lark, regex');
    await bad({ tools: [{ type: 'custom', name: 'x', format: { type: 'grammar', syntax: 'regex', definition: '' } }] }, 'tools[0].format.definition: must not be empty');
    await bad({ input: [{ type: 'custom_tool_call', call_id: 'c', name: 'shell' }] }, 'input[0].input: is required');
  });

  it('input_tokens counts custom tools as sent upstream: the grammar in, the tools allowed_tools leaves out not', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const openai = g.client(acct.key);
    const count = async (body: object) => (await openai.responses.inputTokens.count({ model: 'svc-fast', input: 'Patch a.txt', ...body } as never)).input_tokens;
    const none = await count({});
    const shellOnly = await count({ tools: [TOOLS[1]] });
    const all = await count({ tools: TOOLS });
    assert.ok(shellOnly > none, 'a custom tool is counted');
    assert.ok(all > shellOnly + 20, 'the grammar and the other tools are counted');
    assert.equal(await count({ tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'custom', name: 'shell' }] } }), shellOnly);
  });

  it('a custom_tool_call item can be referred to by id (item_reference)', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    g.openai.chat.enqueue({ toolCalls: [{ name: 'shell', arguments: { input: 'uptime' } }] }, { text: 'Up 3 days.' });
    const r1 = await client.responses.create({ model: 'svc-fast', input: 'Uptime?', tools: TOOLS });
    const [call] = customCalls(r1);
    const r2 = await client.responses.create({
      model: 'svc-fast',
      tools: TOOLS,
      input: [{ role: 'user', content: 'Uptime?' }, { type: 'item_reference', id: call!.id! }, { type: 'custom_tool_call_output', call_id: call!.call_id, output: 'up 3 days' }],
    });
    assert.equal(textOf(r2), 'Up 3 days.');
    assert.deepEqual(upstreamCalls(g.openai).calls, [{ id: call!.call_id, name: 'shell', input: { input: 'uptime' } }]);
  });
});
