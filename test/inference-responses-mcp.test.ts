import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import { startSseMcp, startStreamableMcp, type FakeMcp } from './fakes/fake-mcp.ts';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import type { FakeServer } from './fakes/fake-server.ts';
import { accountCredits, expectedCost, PRICES, startGateway, UPSTREAM_MODELS, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { SERVICE_HEADERS } from './helpers/service-headers.ts';
import { assertPaidForUsages, type CallUsage } from './helpers/books.ts';

type Item = OpenAI.Responses.ResponseOutputItem;

function textOf(r: OpenAI.Responses.Response): string {
  return r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
}

function ofType<T extends Item['type']>(r: OpenAI.Responses.Response, type: T): Extract<Item, { type: T }>[] {
  return r.output.filter((o): o is Extract<Item, { type: T }> => o.type === type);
}

function upstreamBody(fake: FakeServer): string {
  return JSON.stringify(fake.requests.at(-1)!.body);
}

describe('/v1/responses with MCP server tools', () => {
  let g: Gateway;
  let closed: Gateway;
  let math: FakeMcp;
  let weather: FakeMcp;
  before(async () => {
    [g, closed, math, weather] = await Promise.all([
      startGateway({ env: { MCP_ALLOW_PRIVATE_NETWORKS: 'true', MCP_CALL_TIMEOUT_MS: '1500', MCP_CONNECT_TIMEOUT_MS: '1500', RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } }),
      startGateway(),
      startStreamableMcp(),
      startSseMcp(),
    ]);
  });
  after(async () => {
    await Promise.all([g.close(), closed.close(), math.close(), weather.close()]);
  });

  async function billed(acct: TestAccount, model: keyof typeof PRICES, usages: readonly CallUsage[], fn: () => Promise<unknown>): Promise<void> {
    const { after } = await assertPaidForUsages(g, acct.id, PRICES[model], usages, fn, 'charged the sum of every upstream call');
    assert.equal(after.reserved, 0n);
  }

  const u1 = { input: 400, cached: 50, output: 30 };
  const u2 = { input: 520, cached: 0, output: 18 };

  const cases = [
    { name: 'streamable HTTP server, OpenAI-style upstream', model: 'svc-fast' as const, fake: (x: Gateway) => x.openai, server: () => math, label: 'math', tool: 'add', args: { a: 2, b: 3 }, result: '5', call: 'add(2,3)' },
    { name: 'SSE server, Anthropic upstream', model: 'svc-vision' as const, fake: (x: Gateway) => x.anthropic, server: () => weather, label: 'weather', tool: 'weather', args: { city: 'Oslo' }, result: 'Sunny and 21C in Oslo', call: 'weather(Oslo)' },
  ];

  for (const c of cases) {
    for (const streamed of [false, true]) {
      it(`${c.name}${streamed ? ', streamed' : ''}: the gateway runs the call and the model answers with its result`, async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        c.fake(g).chat.enqueue({ toolCalls: [{ name: c.tool, arguments: c.args }], usage: u1 }, { text: `The answer is ${c.result}.`, usage: u2 });
        const body: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
          model: c.model,
          input: 'Use the tool',
          tools: [{ type: 'mcp', server_label: c.label, server_url: c.server().url, require_approval: 'never', headers: { authorization: 'Bearer mcp-caller-token' } }],
        };
        const callsBefore = c.server().calls.length;
        let r!: OpenAI.Responses.Response;
        await billed(acct, c.model, [u1, u2], async () => {
          r = streamed ? await g.client(acct.key).responses.stream(body as never).finalResponse() : await g.client(acct.key).responses.create(body);
        });
        assert.deepEqual(r.output.map((o) => o.type), ['mcp_list_tools', 'mcp_call', 'message']);
        const listing = ofType(r, 'mcp_list_tools')[0]!;
        assert.equal(listing.tools.length, 2);
        const call = ofType(r, 'mcp_call')[0]!;
        assert.equal(call.name, c.tool);
        assert.equal(call.output, c.result);
        assert.equal(call.error ?? null, null);
        assert.equal(textOf(r), `The answer is ${c.result}.`);
        assert.deepEqual(c.server().calls.slice(callsBefore), [c.call]);
        assert.ok(upstreamBody(c.fake(g)).includes(c.result), 'the second model call saw the result');
        assert.ok(c.server().headers.some((h) => h.authorization === 'Bearer mcp-caller-token'), "the caller's headers reach the server");
        assert.deepEqual(r.usage?.input_tokens, u1.input + u2.input);
        assert.deepEqual(r.usage?.input_tokens_details.cached_tokens, u1.cached + u2.cached);
        assert.deepEqual(r.usage?.output_tokens, u1.output + u2.output);
      });
    }
  }

  it('a small balance: the partial hold stops the tool rounds before the next call could overdraw it', async () => {
    const acct = await createTestAccount(g.t, { credits: 6 });
    const big = { input: 200, cached: 0, output: 4000 };
    g.openai.chat.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 4, b: 4 } }], usage: big }, { text: 'never asked' });
    const before = await accountCredits(g.t, acct.id);
    const requestsBefore = g.openai.requests.length;
    const r = await g.client(acct.key).responses.create({
      model: 'svc-fast',
      input: 'add',
      max_output_tokens: 5000,
      tools: [{ type: 'mcp', server_label: 'math', server_url: math.url, require_approval: 'never' }],
    });
    assert.equal(r.status, 'incomplete');
    assert.equal(r.incomplete_details?.reason, 'max_tool_calls');
    assert.equal(ofType(r, 'mcp_call')[0]!.output, '8');
    assert.equal(g.openai.requests.length, requestsBefore + 1, 'the second model call was not made');
    g.openai.chat.next();
    const after = await accountCredits(g.t, acct.id);
    assert.equal(before.credits - after.credits, expectedCost(PRICES['svc-fast'], big));
    assert.ok(after.credits >= 0n);
    assert.equal(after.reserved, 0n);
  });

  it('allowed_tools hides the other tool from the listing and from the model', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    g.openai.chat.enqueue({ text: 'Only add.' });
    const r = await g.client(acct.key).responses.create({
      model: 'svc-fast',
      input: 'hi',
      tools: [{ type: 'mcp', server_label: 'math', server_url: math.url, allowed_tools: ['add'], require_approval: 'never' }],
    });
    assert.deepEqual(ofType(r, 'mcp_list_tools')[0]!.tools.map((t) => t.name), ['add']);
    const sent = g.openai.requests.at(-1)!.body as { tools: { function: { name: string } }[] };
    assert.deepEqual(sent.tools.map((t) => t.function.name), ['add']);
  });

  it('tool_choice allowed_tools naming one MCP tool: the listing stays whole, only that tool goes upstream on every round, required only on the first', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    g.openai.chat.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'Five.' });
    const from = g.openai.requests.length;
    const r = await g.client(acct.key).responses.create({
      model: 'svc-fast',
      input: '2+3?',
      tools: [{ type: 'mcp', server_label: 'math', server_url: math.url, require_approval: 'never' }, { type: 'custom', name: 'shell' }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'mcp', server_label: 'math', name: 'add' }] },
    });
    assert.equal(textOf(r), 'Five.');
    assert.deepEqual(ofType(r, 'mcp_list_tools')[0]!.tools.map((t) => t.name).sort(), ['add', 'multiply']);
    assert.equal(ofType(r, 'mcp_call')[0]!.name, 'add');
    const sent = g.openai.requests.slice(from).map((q) => q.body as { tools: { function: { name: string } }[]; tool_choice: unknown });
    assert.equal(sent.length, 2);
    assert.deepEqual(sent.map((b) => b.tools.map((t) => t.function.name)), [['add'], ['add']]);
    assert.deepEqual(sent.map((b) => b.tool_choice), ['required', 'auto']);
  });

  it("require_approval 'always' stops with an approval request, and the approval runs it (listing reused)", async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'math', server_url: math.url, require_approval: 'always' }];
    g.openai.chat.enqueue({ toolCalls: [{ name: 'multiply', arguments: { a: 6, b: 7 } }], usage: u1 }, { text: 'It is 42.', usage: u2 });
    const before = math.calls.length;
    let r1!: OpenAI.Responses.Response;
    await billed(acct, 'svc-fast', [u1], async () => {
      r1 = await client.responses.create({ model: 'svc-fast', input: 'What is 6 times 7?', tools });
    });
    const req = ofType(r1, 'mcp_approval_request')[0]!;
    assert.equal(req.name, 'multiply');
    assert.equal(math.calls.length, before, 'nothing ran before the approval');
    let r2!: OpenAI.Responses.Response;
    await billed(acct, 'svc-fast', [u2], async () => {
      r2 = await client.responses.stream({ model: 'svc-fast', previous_response_id: r1.id, input: [{ type: 'mcp_approval_response', approval_request_id: req.id, approve: true }], tools }).finalResponse();
    });
    assert.deepEqual(r2.output.map((o) => o.type), ['mcp_call', 'message'], 'the listing of the chain is reused');
    assert.equal(ofType(r2, 'mcp_call')[0]!.output, '42');
    assert.equal(ofType(r2, 'mcp_call')[0]!.approval_request_id, req.id);
    assert.equal(textOf(r2), 'It is 42.');
    assert.deepEqual(math.calls.slice(before), ['multiply(6,7)']);
  });

  it('a denied approval tells the model, and nothing runs', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'math', server_url: math.url }];
    g.openai.chat.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] }, { text: 'Fine, no tools.' });
    const before = math.calls.length;
    const r1 = await client.responses.create({ model: 'svc-fast', input: 'add 1 and 1', tools });
    const req = ofType(r1, 'mcp_approval_request')[0]!;
    const r2 = await client.responses.create({ model: 'svc-fast', previous_response_id: r1.id, input: [{ type: 'mcp_approval_response', approval_request_id: req.id, approve: false }], tools });
    assert.equal(textOf(r2), 'Fine, no tools.');
    assert.ok(upstreamBody(g.openai).includes('did not approve'));
    assert.equal(math.calls.length, before);
  });

  it('a slow MCP tool becomes an mcp_call error within the call timeout, and the model continues', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    g.anthropic.chat.enqueue({ toolCalls: [{ name: 'slow', arguments: { city: 'Rome' } }], usage: u1 }, { text: 'The tool failed.', usage: u2 });
    let r!: OpenAI.Responses.Response;
    await billed(acct, 'svc-vision', [u1, u2], async () => {
      r = await g.client(acct.key).responses.create({ model: 'svc-vision', input: 'slowly', tools: [{ type: 'mcp', server_label: 'weather', server_url: weather.url, require_approval: 'never' }] });
    });
    const call = ofType(r, 'mcp_call')[0]!;
    assert.match(call.error ?? '', /time/i);
    assert.equal(call.output ?? null, null);
    assert.equal(textOf(r), 'The tool failed.');
  });

  it('an MCP server that went down becomes an mcp_call error, and the model continues', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    const down = await startStreamableMcp();
    const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'gone', server_url: down.url, require_approval: 'never' }];
    g.openai.chat.enqueue({ text: 'Listed.' });
    const r1 = await client.responses.create({ model: 'svc-fast', input: 'list', tools });
    assert.equal(ofType(r1, 'mcp_list_tools')[0]!.tools.length, 2);
    await down.close();
    g.openai.chat.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'The server is down.' });
    const r2 = await client.responses.create({ model: 'svc-fast', previous_response_id: r1.id, input: 'add 1 and 2', tools });
    const call = ofType(r2, 'mcp_call')[0]!;
    assert.ok(call.error, 'the call has an error');
    assert.equal(textOf(r2), 'The server is down.');
  });

  it('a server_url on a private address is refused when private networks are not allowed', async () => {
    const acct = await createTestAccount(closed.t, { credits: 1000 });
    for (const url of [math.url, 'http://[::1]:9/mcp', 'http://169.254.169.254/latest', 'http://localhost:1/mcp']) {
      await assert.rejects(
        closed.client(acct.key).responses.create({ model: 'svc-fast', input: 'x', tools: [{ type: 'mcp', server_label: 'm', server_url: url, require_approval: 'never' }] }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('tools[0].server_url: not allowed'),
        url,
      );
    }
  });

  describe('the Vercel AI SDK OpenAI provider (responses protocol), unmodified', () => {
    const provider = () => createOpenAI({ baseURL: `${g.t.url}/v1`, apiKey: keyHolder.key });
    const keyHolder = { key: '' };
    before(async () => {
      keyHolder.key = (await createTestAccount(g.t, { credits: 1000 })).key;
    });

    it('text', async () => {
      g.openai.chat.enqueue({ text: 'Hello from the AI SDK.' });
      const r = await generateText({ model: provider()('svc-fast'), prompt: 'hi' });
      assert.equal(r.text, 'Hello from the AI SDK.');
    });

    it('stream', async () => {
      g.anthropic.chat.enqueue({ text: 'Streaming through the AI SDK.' });
      const r = streamText({ model: provider()('svc-vision'), prompt: 'hi' });
      let text = '';
      for await (const t of r.textStream) text += t;
      assert.equal(text, 'Streaming through the AI SDK.');
    });

    it('tool call, then the answer after the tool result', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Lima' } }] }, { text: 'Lima is warm.' });
      const r = await generateText({
        model: provider()('svc-fast'),
        prompt: 'Weather in Lima?',
        tools: { weather: tool({ description: 'Weather in a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `warm in ${city}` }) },
        stopWhen: stepCountIs(3),
      });
      assert.equal(r.text, 'Lima is warm.');
      assert.equal(r.steps[0]!.toolCalls[0]!.toolName, 'weather');
      assert.ok(upstreamBody(g.openai).includes('warm in Lima'));
    });
  });

  it('the leak scan finds nothing of an upstream in responses answers', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const scenario: FakeChatScenario = { text: 'Sunny.', reasoning: 'The user wants weather.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 50, cached: 20, output: 10 } };
    const fn = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const answers: { what: string; headers: [string, string][]; text: string }[] = [];
    const send = async (what: string, body: object) => {
      const r = await fetch(`${g.t.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      answers.push({ what, headers: [...r.headers.entries()], text: await r.text() });
    };
    for (const [model, fake] of [['svc-fast', g.openai], ['svc-vision', g.anthropic], ['svc-pro', g.anthropic]] as const) {
      for (const stream of [false, true]) {
        fake.chat.enqueue({ text: 'Sunny.', reasoning: 'Thinking.' });
        await send(`${model} text ${stream}`, { model, input: 'Weather?', stream });
        fake.chat.enqueue(scenario);
        await send(`${model} tools ${stream}`, { model, input: 'Weather?', stream, tools: fn });
        fake.chat.enqueue({ text: 'Sunny.', streamErrorAfter: { events: 4, message: `Anthropic claude-sonnet-4-5 at ${g.openai.url} failed` } });
        await send(`${model} mid-stream error ${stream}`, { model, input: 'Weather?', stream });
        fake.chat.enqueue({ error: { status: 400, message: `OpenAI gpt-4.1-mini rejected req_abc123 from main-openai` } });
        await send(`${model} 400 ${stream}`, { model, input: 'Weather?', stream });
      }
    }
    g.openai.chat.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] }, { text: 'Two.' });
    await send('mcp', { model: 'svc-fast', input: 'add', tools: [{ type: 'mcp', server_label: 'math', server_url: math.url, require_approval: 'never' }] });
    const ports = [g.openai.url, g.anthropic.url].map((u) => new URL(u).port);
    const forbidden = [
      /openai/i, /anthropic/i, /claude/i, /gpt/i, /fake/i,
      ...Object.values(UPSTREAM_MODELS).map((m) => new RegExp(m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i')), /sonnet/i, /opus/i,
      /localhost/, ...ports.map((p) => new RegExp(`(?<![0-9])${p}(?![0-9])`)),
      /req_/, /msg_/, /toolu_/, /org-/, /sk-/, /main-(openai|anthropic)/,
    ];
    const SERVICE_IDS = /\b(?:resp_|msg_|rs_|fc_|call_|mcp_|mcpl_|mcpr_)[A-Za-z0-9]{24}\b/g;
    assert.ok(answers.length >= 25);
    for (const a of answers) {
      for (const [name, value] of a.headers) {
        assert.ok(SERVICE_HEADERS.has(name), `${a.what}: header ${name}`);
        for (const f of forbidden) assert.ok(!f.test(value), `${a.what}: header ${name}: ${value} matches ${f}`);
      }
      const text = a.text.replaceAll(math.url, '<mcp>').replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>').replace(SERVICE_IDS, '<id>');
      for (const line of text.split('\n')) for (const f of forbidden) assert.ok(!f.test(line), `${a.what}: ${line.slice(0, 300)} matches ${f}`);
    }
  });
});
