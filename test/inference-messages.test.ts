import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import OpenAI from 'openai';
import { openBlockValue } from '../src/inference/formats/anthropic-messages/sealed-tokens.ts';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import { markSigned } from '../src/inference/upstream/reasoning-signer.ts';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import { accountCredits, expectedCost, PRICES, startGateway, UPSTREAM_MODELS, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { IMAGE_URL_PARTS_TURN, PNG_BASE64 } from './helpers/images.ts';

const MSG_ID = /^msg_[A-Za-z0-9]{24}$/;
const CALL_ID = /^call_[A-Za-z0-9]{24}$/;

const weather: Tool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const time: Tool = { name: 'get_time', description: 'Time in a zone', input_schema: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } };
const twoCalls: FakeChatScenario['toolCalls'] = [
  { name: 'get_weather', arguments: { city: 'Paris' } },
  { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
];

/** Both upstream kinds behind the same brand-level behaviour. */
const KINDS = [
  { name: 'an OpenAI-style upstream', model: 'svc-fast' as const, fake: (g: Gateway) => g.openai },
  { name: 'an Anthropic upstream', model: 'svc-vision' as const, fake: (g: Gateway) => g.anthropic },
];

/** The raw SSE of a messages stream: [event, data] pairs, checking every event has its `event:` line. */
function sseEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((e) => e.trim() !== '')
    .map((e) => {
      const lines = e.split('\n');
      assert.match(lines[0]!, /^event: [a-z_]+$/, e);
      assert.match(lines[1]!, /^data: /, e);
      const data = JSON.parse(lines[1]!.slice(6)) as Record<string, unknown>;
      const event = lines[0]!.slice(7);
      assert.equal(data.type, event);
      return { event, data };
    });
}

describe('POST /inference/v1/messages through the Anthropic SDK', () => {
  let g: Gateway;
  let acct: TestAccount;
  let client: Anthropic;
  let spent: bigint;

  /** The balance change since the last check equals the cost recomputed from the newest usage rows. */
  async function assertBilled(model: keyof typeof PRICES, usages: { input: number; cached?: number; output: number }[]) {
    // Settled first: charges and usage rows are written behind the answer, before the lease goes back.
    const { credits } = await accountCredits(g.t, acct.id);
    const rows = await usageRows(g.t, acct.id);
    const want = usages.reduce((n, u) => n + expectedCost(PRICES[model], u), 0n);
    assert.equal(spent - credits, want, `charged for ${JSON.stringify(usages)}`);
    assert.equal(rows[0]!.model, model);
    spent = credits;
  }

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 10_000 });
    client = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    spent = (await accountCredits(g.t, acct.id)).credits;
  });
  after(() => g.close());
  // Every test checks its own charges; the abandoned-stream and failure tests settle after the
  // client saw their end, so each starts from the settled balance.
  let rowCount = 0;
  beforeEach(async () => {
    spent = (await accountCredits(g.t, acct.id)).credits;
    rowCount = (await usageRows(g.t, acct.id)).length;
  });

  for (const kind of KINDS) {
    describe(`over ${kind.name} (${kind.model})`, () => {
      it('messages.create: a msg_ id, the brand id, text and the Anthropic usage shape', async () => {
        kind.fake(g).chat.enqueue({ text: 'Bonjour, le monde.', usage: { input: 31, cached: 11, output: 7 } });
        const m = await client.messages.create({ model: kind.model, max_tokens: 100, messages: [{ role: 'user', content: 'Say hello in French' }] });
        assert.match(m.id, MSG_ID);
        assert.equal(m.type, 'message');
        assert.equal(m.role, 'assistant');
        assert.equal(m.model, kind.model);
        assert.deepEqual(m.content, [{ type: 'text', text: 'Bonjour, le monde.' }]);
        assert.equal(m.stop_reason, 'end_turn');
        assert.equal(m.stop_sequence, null);
        assert.deepEqual(m.usage, {
          input_tokens: 20,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 11,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          output_tokens: 7,
          service_tier: 'standard',
        });
        await assertBilled(kind.model, [{ input: 31, cached: 11, output: 7 }]);
      });

      it('messages.stream: the documented event sequence with event lines, and finalMessage()', async () => {
        kind.fake(g).chat.enqueue({ text: 'Streaming works across both kinds.', usage: { input: 20, cached: 4, output: 9 } });
        const stream = client.messages.stream({ model: kind.model, max_tokens: 100, messages: [{ role: 'user', content: 'stream please' }] });
        let text = '';
        stream.on('text', (t) => (text += t));
        const m = await stream.finalMessage();
        assert.equal(text, 'Streaming works across both kinds.');
        assert.match(m.id, MSG_ID);
        assert.equal(m.model, kind.model);
        assert.deepEqual(m.content, [{ type: 'text', text: 'Streaming works across both kinds.', citations: null }].map(({ citations, ...b }) => (m.content[0] && 'citations' in m.content[0] ? { ...b, citations } : b)));
        assert.equal(m.stop_reason, 'end_turn');
        // The breakdown of cache writes is not known at message_start, and message_delta has no field for it.
        assert.deepEqual(m.usage, { input_tokens: 16, cache_creation_input_tokens: 0, cache_read_input_tokens: 4, cache_creation: null, output_tokens: 9, service_tier: 'standard' });
        await assertBilled(kind.model, [{ input: 20, cached: 4, output: 9 }]);

        kind.fake(g).chat.enqueue({ text: 'raw events', usage: { input: 5, cached: 0, output: 2 } });
        const r = await fetch(`${g.t.url}/inference/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': acct.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model: kind.model, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        });
        assert.equal(r.status, 200);
        assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
        const events = sseEvents(await r.text());
        const names = events.map((e) => e.event);
        assert.equal(names[0], 'message_start');
        assert.equal(names[1], 'content_block_start');
        assert.ok(names.slice(2, -3).every((n) => n === 'content_block_delta'), names.join());
        assert.deepEqual(names.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
        const delta = events.at(-2)!.data as { delta: unknown; usage: unknown };
        assert.deepEqual(delta.delta, { stop_reason: 'end_turn', stop_sequence: null });
        assert.deepEqual(delta.usage, { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 2 });
        await assertBilled(kind.model, [{ input: 5, output: 2 }]);
      });

      for (const streamed of [false, true]) {
        it(`a full tool-use loop (tool_use -> tool_result -> answer), ${streamed ? 'streamed' : 'not streamed'}`, async () => {
          kind.fake(g).chat.enqueue(
            { text: 'Let me check.', toolCalls: twoCalls, usage: { input: 50, cached: 0, output: 20 } },
            { text: 'Sunny in Paris at noon.', usage: { input: 90, cached: 30, output: 8 } },
          );
          const ask = { model: kind.model, max_tokens: 200, tools: [weather, time] };
          const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
          const first = streamed ? await client.messages.stream({ ...ask, messages: history }).finalMessage() : await client.messages.create({ ...ask, messages: history });
          assert.equal(first.stop_reason, 'tool_use');
          const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
          assert.deepEqual(uses.map((u) => [u.name, u.input]), [['get_weather', { city: 'Paris' }], ['get_time', { timezone: 'Europe/Paris' }]]);
          for (const u of uses) assert.match(u.id, CALL_ID);
          assert.deepEqual(first.content[0], { type: 'text', text: 'Let me check.', ...('citations' in first.content[0]! ? { citations: null } : {}) });
          history.push({ role: 'assistant', content: first.content });
          history.push({
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: uses[0]!.id, content: 'sunny, 24C' },
              { type: 'tool_result', tool_use_id: uses[1]!.id, content: [{ type: 'text', text: 'unknown zone' }], is_error: true },
            ],
          });
          const second = streamed ? await client.messages.stream({ ...ask, messages: history }).finalMessage() : await client.messages.create({ ...ask, messages: history });
          assert.equal(second.stop_reason, 'end_turn');
          assert.equal((second.content[0] as Anthropic.TextBlock).text, 'Sunny in Paris at noon.');
          const sent = kind.fake(g).requests.at(-1)!.body as Record<string, unknown>;
          if (kind.model === 'svc-vision') {
            const msgs = sent.messages as { role: string; content: Record<string, unknown>[] }[];
            assert.deepEqual(msgs[2]!.content, [
              { type: 'tool_result', tool_use_id: uses[0]!.id, content: 'sunny, 24C' },
              { type: 'tool_result', tool_use_id: uses[1]!.id, content: 'unknown zone', is_error: true },
            ]);
          } else {
            const msgs = sent.messages as { role: string; tool_call_id?: string; content: unknown }[];
            assert.deepEqual(msgs.slice(2), [
              { role: 'tool', tool_call_id: uses[0]!.id, content: 'sunny, 24C' },
              { role: 'tool', tool_call_id: uses[1]!.id, content: 'unknown zone' },
            ]);
          }
          await assertBilled(kind.model, [{ input: 50, output: 20 }, { input: 90, cached: 30, output: 8 }]);
        });
      }

      it('thinking: blocks come back, and history with them is accepted', async () => {
        kind.fake(g).chat.enqueue({ reasoning: 'The user wants a greeting.', text: 'Hi!', usage: { input: 12, cached: 0, output: 30 } });
        const m = await client.messages.create({
          model: kind.model,
          max_tokens: 4000,
          thinking: { type: 'enabled', budget_tokens: 2000 },
          messages: [{ role: 'user', content: 'Greet me' }],
        });
        const thinking = m.content[0] as Anthropic.ThinkingBlock;
        assert.equal(thinking.type, 'thinking');
        assert.equal(thinking.thinking, 'The user wants a greeting.');
        assert.equal((m.content[1] as Anthropic.TextBlock).text, 'Hi!');
        kind.fake(g).chat.enqueue({ reasoning: 'Again.', text: 'Hello again!', usage: { input: 30, cached: 0, output: 10 } });
        const stream = client.messages.stream({
          model: kind.model,
          max_tokens: 4000,
          thinking: { type: 'enabled', budget_tokens: 2000 },
          messages: [{ role: 'user', content: 'Greet me' }, { role: 'assistant', content: m.content }, { role: 'user', content: 'Again' }],
        });
        let thought = '';
        stream.on('thinking', (d) => (thought += d));
        const again = await stream.finalMessage();
        assert.equal(thought, 'Again.');
        assert.equal(again.content[0]!.type, 'thinking');
        const sent = kind.fake(g).requests.at(-1)!.body as Record<string, unknown>;
        if (kind.model === 'svc-vision') {
          // Both signatures are the service's sealed tokens of the upstream's, marked with the model that signed it (sealed afresh for each answer).
          const sealer = createReasoningSealers(g.t.deps.secretsKey)(acct.id);
          const signed = markSigned('EqQBfakeanthropicsignature', UPSTREAM_MODELS.vision);
          assert.equal(openBlockValue('signature', thinking.signature, sealer), signed);
          assert.equal(openBlockValue('signature', (again.content[0] as Anthropic.ThinkingBlock).signature, sealer), signed);
          // The upstream gets its own signature back, unchanged, and the thinking config.
          assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 2000 });
          const assistant = (sent.messages as { content: unknown[] }[])[1]!.content;
          assert.deepEqual(assistant[0], { type: 'thinking', thinking: 'The user wants a greeting.', signature: 'EqQBfakeanthropicsignature' });
        } else {
          assert.equal(thinking.signature, '');
          assert.equal(sent.thinking, undefined);
        }
        await assertBilled(kind.model, [{ input: 12, output: 30 }, { input: 30, output: 10 }]);
      });

      it('structured output (output_config.format json_schema) answers the JSON as text', async () => {
        kind.fake(g).chat.enqueue({ json: { city: 'Paris', temp: 24 }, usage: { input: 40, cached: 0, output: 12 } });
        const schema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } }, required: ['city', 'temp'], additionalProperties: false };
        const m = await client.messages.create({
          model: kind.model,
          max_tokens: 300,
          output_config: { format: { type: 'json_schema', schema } },
          messages: [{ role: 'user', content: 'Weather as JSON' }],
        });
        assert.equal(m.stop_reason, 'end_turn');
        assert.deepEqual(JSON.parse((m.content[0] as Anthropic.TextBlock).text), { city: 'Paris', temp: 24 });
        await assertBilled(kind.model, [{ input: 40, output: 12 }]);
      });

      it('count_tokens answers {input_tokens} without billing', async () => {
        const r = await client.messages.countTokens({ model: kind.model, system: 'Be brief.', messages: [{ role: 'user', content: 'How many tokens is this?' }], tools: [weather] });
        assert.ok(r.input_tokens > 10 && r.input_tokens < 200, String(r.input_tokens));
        await assertBilled(kind.model, []);
      });

      it('a coding agent: twenty tools, cache_control on system blocks, long history, streamed', async () => {
        const tools: Tool[] = Array.from({ length: 20 }, (_, i) => ({
          name: `tool_${i}`,
          description: `Tool number ${i}`,
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
          ...(i === 19 ? { cache_control: { type: 'ephemeral' as const } } : {}),
        }));
        const history: Anthropic.MessageParam[] = [];
        for (let i = 0; i < 30; i++) {
          history.push({ role: 'user', content: [{ type: 'text', text: `step ${i}: ${'context '.repeat(40)}` }] });
          history.push({ role: 'assistant', content: [{ type: 'text', text: `done ${i}` }, { type: 'tool_use', id: `call_hist${i}`, name: 'tool_1', input: { path: `/src/${i}.ts` } }] });
          history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_hist${i}`, content: `file ${i}` }] });
        }
        history.push({ role: 'user', content: [{ type: 'text', text: 'now fix the bug', cache_control: { type: 'ephemeral' } }] });
        kind.fake(g).chat.enqueue({ text: 'Reading the file.', toolCalls: [{ name: 'tool_3', arguments: { path: '/src/bug.ts' } }], usage: { input: 9000, cached: 8000, output: 25 } });
        const m = await client.messages
          .stream({
            model: kind.model,
            max_tokens: 8000,
            system: [
              { type: 'text', text: 'You are a coding agent.' },
              { type: 'text', text: 'Project instructions: be careful.', cache_control: { type: 'ephemeral' } },
            ],
            tools,
            messages: history,
          })
          .finalMessage();
        assert.equal(m.stop_reason, 'tool_use');
        assert.deepEqual((m.content[1] as Anthropic.ToolUseBlock).input, { path: '/src/bug.ts' });
        const sent = kind.fake(g).requests.at(-1)!.body as Record<string, unknown>;
        if (kind.model === 'svc-vision') {
          assert.deepEqual(sent.system, [
            { type: 'text', text: 'You are a coding agent.' },
            { type: 'text', text: 'Project instructions: be careful.', cache_control: { type: 'ephemeral' } },
          ]);
          assert.deepEqual((sent.tools as Record<string, unknown>[])[19]!.cache_control, { type: 'ephemeral' });
          const last = (sent.messages as { content: Record<string, unknown>[] }[]).at(-1)!;
          assert.deepEqual(last.content.at(-1), { type: 'text', text: 'now fix the bug', cache_control: { type: 'ephemeral' } });
        } else {
          assert.equal((sent.messages as unknown[]).length, 2 + 90 + 1);
          assert.equal((sent.tools as unknown[]).length, 20);
        }
        await assertBilled(kind.model, [{ input: 9000, cached: 8000, output: 25 }]);
      });

      it('a server tool is a 400 naming it', async () => {
        for (const type of ['web_search_20250305', 'code_execution_20250825', 'memory_20250818', 'web_fetch_20250910']) {
          await assert.rejects(
            client.messages.create({ model: kind.model, max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tools: [{ type, name: 'srv' } as unknown as Tool] }),
            (e: unknown) => e instanceof Anthropic.BadRequestError && JSON.stringify(e.error).includes(type),
          );
        }
      });

      it('max_tokens is optional: 4,096 is asked of the upstream', async () => {
        kind.fake(g).chat.enqueue({ text: 'ok', usage: { input: 3, cached: 0, output: 1 } });
        const r = await fetch(`${g.t.url}/inference/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': acct.key, 'content-type': 'application/json' },
          body: JSON.stringify({ model: kind.model, messages: [{ role: 'user', content: 'hi' }] }),
        });
        assert.equal(r.status, 200);
        assert.equal((kind.fake(g).requests.at(-1)!.body as { max_tokens: number }).max_tokens, 4096);
        await assertBilled(kind.model, [{ input: 3, output: 1 }]);
      });
    });
  }

  it('images by base64 and by url reach an Anthropic upstream as image blocks', async () => {
    g.anthropic.chat.enqueue({ text: 'A pixel.' }, { text: 'A cat.' });
    await client.messages.create({
      model: 'svc-vision',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }, { type: 'text', text: 'What is this?' }] }],
    });
    let sent = g.anthropic.requests.at(-1)!.body as { messages: { content: unknown[] }[] };
    assert.deepEqual(sent.messages[0]!.content[0], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } });
    await client.messages.create({
      model: 'svc-vision',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }, { type: 'text', text: 'What is this?' }] }],
    });
    sent = g.anthropic.requests.at(-1)!.body as { messages: { content: unknown[] }[] };
    assert.deepEqual(sent.messages[0]!.content[0], { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } });
    await assertBilled('svc-vision', [{ input: 40, output: 12 }, { input: 40, output: 12 }]);
    // A model without vision refuses images with a 400 naming the block.
    await assert.rejects(
      client.messages.create({ model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }] }] }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && JSON.stringify(e.error).includes('messages[0].content[0]'),
    );
  });

  it('image_url parts (the service message object) reach an Anthropic upstream as image blocks', async () => {
    g.anthropic.chat.enqueue({ text: 'Two images.' });
    await client.messages.create({
      model: 'svc-vision',
      max_tokens: 50,
      messages: [
        IMAGE_URL_PARTS_TURN,
      ],
    });
    const sent = g.anthropic.requests.at(-1)!.body as { messages: { content: unknown[] }[] };
    assert.deepEqual(sent.messages[0]!.content, [
      { type: 'image', source: { type: 'url', url: 'https://example.com/dog.jpg' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
      { type: 'text', text: 'Compare.' },
    ]);
    await assertBilled('svc-vision', [{ input: 40, output: 12 }]);
  });

  it('stop sequences: the one that ended the answer is reported', async () => {
    g.anthropic.chat.enqueue({ text: 'one two', stopSequence: 'three', usage: { input: 10, cached: 0, output: 2 } }, { text: 'one two', stopSequence: 'three', usage: { input: 10, cached: 0, output: 2 } });
    const m = await client.messages.create({ model: 'svc-vision', max_tokens: 50, stop_sequences: ['three'], messages: [{ role: 'user', content: 'count' }] });
    assert.equal(m.stop_reason, 'stop_sequence');
    assert.equal(m.stop_sequence, 'three');
    assert.deepEqual((g.anthropic.requests.at(-1)!.body as { stop_sequences: unknown }).stop_sequences, ['three']);
    const s = await client.messages.stream({ model: 'svc-vision', max_tokens: 50, stop_sequences: ['three'], messages: [{ role: 'user', content: 'count' }] }).finalMessage();
    assert.equal(s.stop_reason, 'stop_sequence');
    assert.equal(s.stop_sequence, 'three');
    g.openai.chat.enqueue({ text: 'one two' });
    await client.messages.create({ model: 'svc-fast', max_tokens: 50, stop_sequences: ['three'], messages: [{ role: 'user', content: 'count' }] });
    assert.deepEqual((g.openai.requests.at(-1)!.body as { stop: unknown }).stop, ['three']);
    const charged = expectedCost(PRICES['svc-vision'], { input: 10, output: 2 }) * 2n + expectedCost(PRICES['svc-fast'], { input: 40, output: 12 });
    const { credits } = await accountCredits(g.t, acct.id);
    assert.equal(spent - credits, charged);
  });

  it('an upstream failure after the first byte is an `event: error` the SDK throws; billed for what was produced', async () => {
    g.anthropic.chat.enqueue({ text: 'partial answer that breaks', streamErrorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' }, usage: { input: 25, cached: 0, output: 10 } });
    const stream = client.messages.stream({ model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] });
    await assert.rejects(stream.finalMessage(), (e: unknown) => e instanceof Anthropic.APIError);
    const rows = await waitForUsage(g.t, acct.id, rowCount + 1);
    // The status the messages protocol states an overloaded upstream with (session 27).
    assert.equal(rows[0]!.status, 529);
    const { credits } = await accountCredits(g.t, acct.id);
    assert.equal(spent - credits, expectedCost(PRICES['svc-vision'], { input: 25, output: rows[0]!.output_tokens }));
  });

  it('an abandoned stream is billed for what the upstream produced', async () => {
    g.anthropic.chat.enqueue({ text: 'a long answer that the client will not wait for', stallAfter: 5, usage: { input: 33, cached: 0, output: 99 } });
    const ac = new AbortController();
    const r = await fetch(`${g.t.url}/inference/v1/messages`, {
      method: 'POST',
      signal: ac.signal,
      headers: { 'x-api-key': acct.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-vision', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const reader = r.body!.getReader();
    await reader.read();
    ac.abort();
    const rows = await waitForUsage(g.t, acct.id, rowCount + 1);
    assert.equal(rows[0]!.status, 499);
    // Input as reported at message_start; output estimated from what was streamed.
    assert.equal(rows[0]!.input_tokens, 33);
    const { credits } = await accountCredits(g.t, acct.id);
    assert.equal(spent - credits, expectedCost(PRICES['svc-vision'], { input: 33, output: rows[0]!.output_tokens }));
  });

  describe('errors before the stream are the documented body with the status the SDK types', () => {
    it('401 AuthenticationError, 404 NotFoundError, 400 BadRequestError, 5xx InternalServerError', async () => {
      const bad = new Anthropic({ apiKey: 'svk_wrong', baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      const base = { max_tokens: 10, messages: [{ role: 'user' as const, content: 'x' }] };
      await assert.rejects(bad.messages.create({ model: 'svc-fast', ...base }), (e: unknown) => e instanceof Anthropic.AuthenticationError && (e.error as { error: string }).error === 'unauthorized');
      await assert.rejects(client.messages.create({ model: 'svc-nope', ...base }), (e: unknown) => e instanceof Anthropic.NotFoundError && (e.error as { error: string }).error === 'model not found: svc-nope');
      await assert.rejects(client.messages.create({ model: 'svc-fast', max_tokens: 10, messages: [] }), (e: unknown) => e instanceof Anthropic.BadRequestError && (e.error as { error: string }).error === 'messages: must not be empty');
      await assert.rejects(client.messages.create({ model: 'svc-embed', ...base }), (e: unknown) => e instanceof Anthropic.BadRequestError);
      g.anthropic.chat.enqueue({ error: { status: 500 } });
      await assert.rejects(client.messages.create({ model: 'svc-vision', ...base }), (e: unknown) => e instanceof Anthropic.InternalServerError && e.status === 502);
      g.anthropic.chat.enqueue({ error: { status: 400, message: 'messages.0: claude-sonnet-4-5 refuses this' } });
      await assert.rejects(client.messages.create({ model: 'svc-vision', ...base }), (e: unknown) => e instanceof Anthropic.BadRequestError && !JSON.stringify(e.error).includes('claude'));
    });

    it('403 PermissionDeniedError, 402 APIError, 429 RateLimitError', async () => {
      const unverified = await createTestAccount(g.t, { credits: 100, verified: false });
      const broke = await createTestAccount(g.t);
      const base = { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user' as const, content: 'x' }] };
      await assert.rejects(
        new Anthropic({ apiKey: unverified.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 }).messages.create(base),
        (e: unknown) => e instanceof Anthropic.PermissionDeniedError,
      );
      await assert.rejects(
        new Anthropic({ apiKey: broke.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 }).messages.create(base),
        (e: unknown) => e instanceof Anthropic.APIError && e.status === 402 && (e.error as { error: string }).error === 'out of credits - please top up at the dashboard',
      );
      const limited = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '1' } });
      try {
        const a = await createTestAccount(limited.t, { credits: 10 });
        const c = new Anthropic({ apiKey: a.key, baseURL: `${limited.t.url}/inference`, maxRetries: 0 });
        await c.messages.countTokens({ model: 'svc-fast', messages: [{ role: 'user', content: 'x' }] });
        await assert.rejects(c.messages.create(base), (e: unknown) => e instanceof Anthropic.RateLimitError);
      } finally {
        await limited.close();
      }
    });
  });

  it('the chat completions clients still work on both upstream kinds', async () => {
    const oa = new OpenAI({ apiKey: acct.key, baseURL: `${g.t.url}/v1`, maxRetries: 0 });
    for (const kind of KINDS) {
      kind.fake(g).chat.enqueue({ reasoning: 'hmm', text: 'still fine', toolCalls: twoCalls });
      const r = await oa.chat.completions.create({
        model: kind.model,
        messages: [{ role: 'user', content: 'x' }],
        tools: [weather, time].map((t) => ({ type: 'function' as const, function: { name: t.name, parameters: t.input_schema } })),
      });
      assert.equal(r.choices[0]!.message.tool_calls?.length, 2);
      kind.fake(g).chat.enqueue({ reasoning: 'hmm', text: 'still fine' });
      let text = '';
      for await (const c of await oa.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'x' }], stream: true })) text += c.choices[0]?.delta.content ?? '';
      assert.equal(text, 'still fine');
    }
  });

  it('/v1/messages answers too, with Authorization: Bearer', async () => {
    g.openai.chat.enqueue({ text: 'bearer works' });
    const c = new Anthropic({ authToken: acct.key, baseURL: g.t.url, maxRetries: 0 });
    const m = await c.messages.create({ model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    assert.equal((m.content[0] as Anthropic.TextBlock).text, 'bearer works');
    void UPSTREAM_MODELS;
  });
});
