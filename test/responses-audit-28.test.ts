import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

/**
 * POST /v1/responses and its companions walked as a new user of the `openai` SDK would, against
 * both kinds of fake upstream (docs/api-decisions.md, "Responses: session 28 audit").
 */
type Ev = { type: string; sequence_number: number } & Record<string, unknown>;
/** The answer's text (the SDK's stream().finalResponse() has no output_text when nothing is parsed). */
const textOf = (r: OpenAI.Responses.Response) =>
  r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
type UpstreamMessage = { role: string; content: unknown } & Record<string, unknown>;

describe('responses: session 28 audit', () => {
  let g: Gateway;
  let openai: OpenAI;
  let other: OpenAI;

  before(async () => {
    ({ g, openai } = await startWithSdks());
    other = g.client((await createTestAccount(g.t, { credits: 1000 })).key);
  });
  after(async () => {
    await g.close();
  });
  // A test that fails early leaves its scenarios queued; the next test starts from empty queues.
  beforeEach(() => {
    for (const q of [g.openai.chat, g.anthropic.chat]) while (q.next() !== q.otherwise);
  });

  const openaiBody = () => g.openai.requests.at(-1)!.body as Record<string, unknown> & { messages: UpstreamMessage[] };
  const anthropicBody = () => g.anthropic.requests.at(-1)!.body as Record<string, unknown> & { messages: UpstreamMessage[] };

  async function streamed(params: OpenAI.Responses.ResponseCreateParamsStreaming, client = openai) {
    const stream = client.responses.stream(params);
    const events: Ev[] = [];
    stream.on('event', (e) => events.push(e as unknown as Ev));
    const final = await stream.finalResponse();
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i), 'sequence numbers from 0 without gaps');
    return { final, events, types: events.map((e) => e.type) };
  }

  for (const model of ['svc-fast', 'svc-vision']) {
    it(`${model}: a streamed text answer has the documented event sequence, one id, and output_text`, async () => {
      (model === 'svc-fast' ? g.openai : g.anthropic).chat.enqueue({ text: 'Hello there, friend.', usage: { input: 12, cached: 4, output: 5 } });
      const { final, events, types } = await streamed({ model, input: 'hi', stream: true, instructions: 'Be kind.' });
      const core = types.filter((t) => t !== 'response.output_text.delta');
      assert.deepEqual(core, [
        'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
        'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
      ]);
      const ids = events.filter((e) => e.response).map((e) => (e.response as { id: string }).id);
      assert.equal(new Set(ids).size, 1);
      assert.equal(textOf(final), 'Hello there, friend.');
      assert.equal(final.instructions, 'Be kind.');
      assert.equal(final.usage?.input_tokens, 12);
      assert.equal(final.usage?.input_tokens_details.cached_tokens, 4);
      assert.equal(final.usage?.output_tokens, 5);
      assert.equal(final.usage?.total_tokens, 17);
      assert.equal(final.usage?.output_tokens_details.reasoning_tokens, 0);
      const retrieved = await openai.responses.retrieve(final.id);
      assert.equal(retrieved.output_text, 'Hello there, friend.');
      assert.deepEqual(retrieved.usage, final.usage);
      const created = events[0]!.response as OpenAI.Responses.Response;
      assert.equal(created.status, 'in_progress');
      assert.equal(created.instructions, 'Be kind.');
    });
  }

  it('instructions reach the upstream as the system prompt of both kinds and are not carried by previous_response_id', async () => {
    g.openai.chat.enqueue({ text: 'one' });
    const r1 = await openai.responses.create({ model: 'svc-fast', input: 'first', instructions: 'Answer in French.' });
    assert.deepEqual(openaiBody().messages[0], { role: 'system', content: 'Answer in French.' });
    g.anthropic.chat.enqueue({ text: 'two' });
    const r2 = await openai.responses.create({ model: 'svc-vision', input: 'second', previous_response_id: r1.id, instructions: 'Be terse.' });
    assert.equal(r2.output_text, 'two');
    assert.equal(r2.previous_response_id, r1.id);
    const body = anthropicBody();
    assert.ok(JSON.stringify(body.system ?? '').includes('Be terse.'), JSON.stringify(body.system));
    assert.ok(!JSON.stringify(body).includes('Answer in French.'));
    assert.deepEqual(body.messages.map((m) => m.role), ['user', 'assistant', 'user']);
  });

  it('previous_response_id of a deleted, an unstored, a foreign and an unknown response: 400 naming previous_response_id', async () => {
    g.openai.chat.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    const gone = await openai.responses.create({ model: 'svc-fast', input: 'x' });
    assert.deepEqual(await openai.responses.delete(gone.id), { id: gone.id, object: 'response.deleted', deleted: true });
    const unstored = await openai.responses.create({ model: 'svc-fast', input: 'x', store: false });
    assert.equal((unstored as unknown as { store: boolean }).store, false);
    await assert.rejects(openai.responses.retrieve(unstored.id), OpenAI.NotFoundError);
    const foreign = await other.responses.create({ model: 'svc-fast', input: 'x' });
    const seen: string[] = [];
    for (const id of [gone.id, unstored.id, foreign.id, 'resp_doesnotexist']) {
      await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'y', previous_response_id: id }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError || e instanceof OpenAI.NotFoundError, String(e));
        seen.push(`${(e as InstanceType<typeof OpenAI.APIError>).status} ${(e as InstanceType<typeof OpenAI.APIError>).message.replace(id, 'ID')}`);
        return true;
      });
    }
    assert.equal(new Set(seen).size, 1, seen.join('\n'));
    await assert.rejects(other.responses.retrieve(gone.id), OpenAI.NotFoundError);
    await assert.rejects(openai.responses.delete(gone.id), OpenAI.NotFoundError);
    await assert.rejects(openai.responses.delete(foreign.id), OpenAI.NotFoundError);
    await assert.rejects(openai.responses.inputItems.list(foreign.id), OpenAI.NotFoundError);
  });

  it('function tools round trip: function_call item, then function_call_output with previous_response_id, on both kinds', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false }];
    g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }] });
    const r1 = await openai.responses.create({ model: 'svc-fast', input: 'weather in Rome?', tools });
    const call = r1.output.find((o) => o.type === 'function_call')!;
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.name, 'weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Rome' });
    assert.ok(call.call_id && call.id && call.status === 'completed', JSON.stringify(call));
    assert.equal(r1.output_text, '');
    g.anthropic.chat.enqueue({ text: 'Sunny in Rome.' });
    const r2 = await openai.responses.create({ model: 'svc-vision', previous_response_id: r1.id, tools, input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }] });
    assert.equal(r2.output_text, 'Sunny in Rome.');
    const sent = JSON.stringify(anthropicBody().messages);
    assert.ok(sent.includes('tool_use') && sent.includes('tool_result') && sent.includes('sunny'), sent);
    const items = (await openai.responses.inputItems.list(r2.id)).data;
    assert.ok(items.some((i) => i.type === 'function_call_output'), JSON.stringify(items));
  });

  it('streamed function call: added, arguments delta/done, item done, completed', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    g.anthropic.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] });
    const { final, types, events } = await streamed({ model: 'svc-vision', input: 'weather?', tools, stream: true });
    assert.deepEqual(types.filter((t) => t !== 'response.function_call_arguments.delta'), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.function_call_arguments.done', 'response.output_item.done', 'response.completed']);
    const done = events.find((e) => e.type === 'response.function_call_arguments.done')!;
    assert.deepEqual(JSON.parse(done.arguments as string), { city: 'Oslo' });
    assert.equal(done.name, 'weather');
    assert.equal(final.output[0]!.type, 'function_call');
  });

  it('text.format json_schema reaches the upstream and the SDK parses the answer', async () => {
    g.openai.chat.enqueue({ json: { answer: 42 } });
    const format = { type: 'json_schema' as const, name: 'answer', strict: true, schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false } };
    const r = await openai.responses.parse({ model: 'svc-fast', input: 'the answer', text: { format } });
    assert.deepEqual(r.output_parsed, { answer: 42 });
    assert.deepEqual(r.text?.format, { ...format, description: null });
    const rf = openaiBody().response_format as { type: string; json_schema: { name: string } };
    assert.equal(rf.type, 'json_schema');
    assert.equal(rf.json_schema.name, 'answer');
    g.anthropic.chat.enqueue({ json: { answer: 7 } });
    const a = await openai.responses.parse({ model: 'svc-vision', input: 'the answer', text: { format } });
    assert.deepEqual(a.output_parsed, { answer: 7 });
  });

  for (const model of ['svc-fast', 'svc-vision']) {
    it(`${model}: max_output_tokens reaches the upstream; a cut answer is incomplete with reason max_output_tokens, streamed too`, async () => {
      const up = model === 'svc-fast' ? g.openai : g.anthropic;
      up.chat.enqueue({ text: 'cut short', finish: 'length' });
      const r = await openai.responses.create({ model, input: 'long', max_output_tokens: 16 });
      const body = up.requests.at(-1)!.body as Record<string, unknown>;
      assert.equal(body.max_tokens ?? body.max_completion_tokens, 16);
      assert.equal(r.status, 'incomplete');
      assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
      assert.equal(r.max_output_tokens, 16);
      assert.equal(r.output_text, 'cut short');
      assert.equal(r.output[0]!.type === 'message' && r.output[0]!.status, 'incomplete');
      up.chat.enqueue({ text: 'cut short', finish: 'length' });
      const { events, types } = await streamed({ model, input: 'long', max_output_tokens: 16, stream: true });
      assert.equal(types.at(-1), 'response.incomplete');
      // The SDK's accumulator takes only response.completed as the final snapshot: read the event's.
      const final = events.at(-1)!.response as OpenAI.Responses.Response;
      assert.equal(textOf(final), 'cut short');
      assert.equal(final.status, 'incomplete');
      assert.deepEqual(final.incomplete_details, { reason: 'max_output_tokens' });
      assert.deepEqual((await openai.responses.retrieve(final.id)).incomplete_details, { reason: 'max_output_tokens' });
    });
  }

  it('max_output_tokens below 16 or above the model cap: 400 naming the parameter', async () => {
    await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', max_output_tokens: 0 }), (e: unknown) => e instanceof OpenAI.BadRequestError && /max_output_tokens/.test(e.message));
    await assert.rejects(openai.responses.create({ model: 'svc-vision', input: 'x', max_output_tokens: 10_000_000 }), (e: unknown) => e instanceof OpenAI.BadRequestError && /max_output_tokens/.test(e.message));
  });

  it('truncation is echoed: disabled by default, auto when asked; anything else is 400', async () => {
    g.openai.chat.enqueue({ text: 'a' }, { text: 'b' });
    assert.equal((await openai.responses.create({ model: 'svc-fast', input: 'x' })).truncation, 'disabled');
    assert.equal((await openai.responses.create({ model: 'svc-fast', input: 'x', truncation: 'auto' })).truncation, 'auto');
    await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', truncation: 'sometimes' as 'auto' }), (e: unknown) => e instanceof OpenAI.BadRequestError && /truncation/.test(e.message));
  });

  it('metadata: echoed and stored; 16 pairs, 64-char keys and 512-char string values are the limits', async () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v']));
    g.openai.chat.enqueue({ text: 'a' });
    const r = await openai.responses.create({ model: 'svc-fast', input: 'x', metadata: { ...sixteen, k0: 'x'.repeat(512) } });
    assert.equal(Object.keys(r.metadata ?? {}).length, 16);
    assert.deepEqual((await openai.responses.retrieve(r.id)).metadata, r.metadata);
    for (const metadata of [{ ...sixteen, k16: 'v' }, { ['k'.repeat(65)]: 'v' }, { k: 'x'.repeat(513) }, { k: 5 as unknown as string }] as Record<string, string>[]) {
      await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', metadata }), (e: unknown) => e instanceof OpenAI.BadRequestError && /metadata/.test(e.message), JSON.stringify(metadata).slice(0, 80));
    }
  });

  it('reasoning: a reasoning item with its summary before the message, reasoning tokens in usage, include encrypted_content with store false', async () => {
    g.anthropic.chat.enqueue({ reasoning: 'Two plus two is four.', text: '4', usage: { input: 10, cached: 0, output: 20 } });
    const r = await openai.responses.create({ model: 'svc-vision', input: '2+2?', reasoning: { effort: 'low', summary: 'auto' }, store: false, include: ['reasoning.encrypted_content'] });
    assert.deepEqual(r.output.map((o) => o.type), ['reasoning', 'message']);
    const reasoning = r.output[0]!;
    assert.ok(reasoning.type === 'reasoning');
    assert.ok(reasoning.encrypted_content, JSON.stringify(reasoning));
    assert.equal(r.output_text, '4');
    assert.equal(r.reasoning?.effort, 'low');
    g.anthropic.chat.enqueue({ text: 'yes' });
    await openai.responses.create({ model: 'svc-vision', store: false, input: [reasoning as OpenAI.Responses.ResponseInputItem, ...(r.output.slice(1) as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'sure?' }], reasoning: { effort: 'low' } });
    const sent = JSON.stringify(anthropicBody().messages);
    assert.ok(sent.includes('thinking'), sent);

    g.openai.chat.enqueue({ reasoning: 'think', text: 'ok', reasoningTokens: 7, usage: { input: 3, cached: 0, output: 9 } });
    const f = await openai.responses.create({ model: 'svc-fast', input: 'q', reasoning: { effort: 'medium' } });
    assert.equal(f.usage?.output_tokens_details.reasoning_tokens, 7);
  });

  it('streamed reasoning: reasoning item events precede the text, sequence numbers hold', async () => {
    g.anthropic.chat.enqueue({ reasoning: 'Thinking hard.', text: 'Done.' });
    const { final, types } = await streamed({ model: 'svc-vision', input: 'q', stream: true, reasoning: { effort: 'low', summary: 'auto' } });
    assert.deepEqual(final.output.map((o) => o.type), ['reasoning', 'message']);
    assert.equal(textOf(final), 'Done.');
    assert.ok(types.indexOf('response.reasoning_summary_text.delta') > 0 || types.indexOf('response.reasoning_text.delta') > 0, types.join(' '));
  });

  it('input_items: the stored input in order, with ids, paginated with the SDK', async () => {
    g.openai.chat.enqueue({ text: 'a' });
    const r = await openai.responses.create({ model: 'svc-fast', input: [{ role: 'user', content: 'one' }, { role: 'user', content: 'two' }, { role: 'user', content: 'three' }] });
    const page = await openai.responses.inputItems.list(r.id, { limit: 2, order: 'asc' });
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    const all = [];
    for await (const item of openai.responses.inputItems.list(r.id, { limit: 2, order: 'asc' })) all.push(item);
    assert.deepEqual(all.map((i) => i.type === 'message' && (i.content[0] as { text: string }).text), ['one', 'two', 'three']);
    const desc = await openai.responses.inputItems.list(r.id);
    assert.equal(desc.data[0]!.type === 'message' && (desc.data[0]!.content[0] as { text: string }).text, 'three');
  });

  it('include on create and retrieve: the values OpenAI defines are taken, any other is 400 naming the entry', async () => {
    g.openai.chat.enqueue({ text: 'a' });
    const r = await openai.responses.create({ model: 'svc-fast', input: 'x', include: ['message.output_text.logprobs', 'reasoning.encrypted_content'] });
    assert.equal(r.status, 'completed');
    assert.equal((await openai.responses.retrieve(r.id, { include: ['message.output_text.logprobs'] })).id, r.id);
    const typo = ['reasoning.encrypted_contents' as 'reasoning.encrypted_content'];
    const named = (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('include[0]') && e.message.includes('reasoning.encrypted_content');
    await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', include: typo }), named);
    await assert.rejects(openai.responses.retrieve(r.id, { include: typo }), named);
    await assert.rejects(openai.responses.inputItems.list(r.id, { include: typo }), named);
    await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', include: [5 as unknown as 'reasoning.encrypted_content'] }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('include[0]'));
  });

  it('streamed text: every delta names the item added, the done events carry the whole text, response.created has no usage', async () => {
    g.openai.chat.enqueue({ text: 'Several words of text here.' });
    // The raw events: the SDK's stream() grows response.created's object into its snapshot.
    const events: Ev[] = [];
    for await (const e of await openai.responses.create({ model: 'svc-fast', input: 'x', stream: true })) events.push(e as unknown as Ev);
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
    const created = events[0]!.response as OpenAI.Responses.Response;
    assert.equal(created.usage, null);
    assert.deepEqual(created.output, []);
    const added = events.find((e) => e.type === 'response.output_item.added')!;
    const itemId = (added.item as { id: string }).id;
    for (const e of events.filter((x) => 'item_id' in x)) assert.equal(e.item_id, itemId, e.type);
    assert.equal(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join(''), 'Several words of text here.');
    assert.equal(events.find((e) => e.type === 'response.output_text.done')!.text, 'Several words of text here.');
    const done = events.find((e) => e.type === 'response.output_item.done')!.item as OpenAI.Responses.ResponseOutputMessage;
    assert.equal(done.status, 'completed');
    assert.equal(done.id, itemId);
  });

  it('cancel: a response not created in background is 400; unknown and foreign ids are 404; background is refused', async () => {
    g.openai.chat.enqueue({ text: 'a' });
    const r = await openai.responses.create({ model: 'svc-fast', input: 'x' });
    await assert.rejects(openai.responses.cancel(r.id), OpenAI.BadRequestError);
    await assert.rejects(other.responses.cancel(r.id), OpenAI.NotFoundError);
    await assert.rejects(openai.responses.cancel('resp_unknown'), OpenAI.NotFoundError);
    await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', background: true }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('background'));
  });
  describe('chains, tools, echoes and usage', () => {
    const weather: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];

    it('a three-turn chain across both kinds carries every earlier turn, tool calls and outputs included', async () => {
      g.anthropic.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }] });
      const r1 = await openai.responses.create({ model: 'svc-vision', input: 'Rome?', tools: weather });
      const call = r1.output.find((o) => o.type === 'function_call')!;
      assert.ok(call.type === 'function_call');
      g.openai.chat.enqueue({ text: 'Sunny.' });
      const r2 = await openai.responses.create({ model: 'svc-fast', previous_response_id: r1.id, tools: weather, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }] });
      g.anthropic.chat.enqueue({ text: 'You asked about Rome.' });
      const r3 = await openai.responses.create({ model: 'svc-vision', previous_response_id: r2.id, input: 'What did I ask?' });
      assert.equal(r3.output_text, 'You asked about Rome.');
      const sent = anthropicBody().messages;
      assert.deepEqual(sent.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
      assert.ok(JSON.stringify(sent).includes('tool_result'), JSON.stringify(sent));
    });

    it('stateless tool round trip with store false: the function_call item and its output sent back', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: 'Oslo?', tools: weather, store: false });
      const call = r1.output.find((o) => o.type === 'function_call')!;
      assert.ok(call.type === 'function_call');
      const r2 = await openai.responses.create({ model: 'svc-fast', store: false, tools: weather, input: [{ role: 'user', content: 'Oslo?' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'cold' }] });
      assert.equal(r2.output_text, 'Cold.');
      const msgs = openaiBody().messages;
      assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'tool']);
    });

    it('a function_call_output whose call is nowhere in the conversation is 400', async () => {
      await assert.rejects(openai.responses.create({ model: 'svc-fast', tools: weather, input: [{ type: 'function_call_output', call_id: 'call_nowhere', output: 'x' }] }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('call_nowhere'));
    });

    it('parallel function calls, streamed on the OpenAI kind: one output index each, arguments whole', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }, { name: 'weather', arguments: { city: 'Oslo' } }], interleaveToolCalls: true });
      const { events } = await streamed({ model: 'svc-fast', input: 'both', tools: weather, stream: true });
      const final = events.at(-1)!.response as OpenAI.Responses.Response;
      const calls = final.output.filter((o) => o.type === 'function_call');
      assert.deepEqual(calls.map((c) => c.type === 'function_call' && JSON.parse(c.arguments)), [{ city: 'Rome' }, { city: 'Oslo' }]);
      const dones = events.filter((e) => e.type === 'response.function_call_arguments.done');
      assert.deepEqual(dones.map((e) => e.output_index), [0, 1]);
      assert.equal(new Set(calls.map((c) => c.type === 'function_call' && c.call_id)).size, 2);
    });

    it('a tool call cut by max_output_tokens is incomplete', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Reykjavik' } }], finish: 'length' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'x', tools: weather, max_output_tokens: 16 });
      assert.equal(r.status, 'incomplete');
      assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
    });

    it('text.format json_schema streamed: the final text is the JSON', async () => {
      g.anthropic.chat.enqueue({ json: { answer: 3 } });
      const format = { type: 'json_schema' as const, name: 'answer', strict: true, schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false } };
      const stream = openai.responses.stream({ model: 'svc-vision', input: 'x', text: { format } });
      // The SDK's stream parses only zod formats (zodTextFormat); a plain schema's text is the client's to parse.
      const final = await stream.finalResponse();
      assert.deepEqual(JSON.parse(textOf(final)), { answer: 3 });
    });

    it("echoes: temperature, top_p (OpenAI's default 1 when unsent), tool_choice, parallel_tool_calls, user, tools; parallel_tool_calls false reaches the upstream", async () => {
      g.openai.chat.enqueue({ text: 'a' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'x', tools: weather, tool_choice: { type: 'function', name: 'weather' }, parallel_tool_calls: false, temperature: 0.5, top_p: 0.9, user: 'u1' });
      assert.equal(r.temperature, 0.5);
      assert.equal(r.top_p, 0.9);
      assert.deepEqual(r.tool_choice, { type: 'function', name: 'weather' });
      assert.equal(r.parallel_tool_calls, false);
      assert.equal(r.user, 'u1');
      assert.equal(r.tools[0]!.type === 'function' && r.tools[0]!.name, 'weather');
      const body = openaiBody();
      assert.equal(body.parallel_tool_calls, false);
      assert.equal(body.temperature, 0.5);
      assert.deepEqual(body.tool_choice, { type: 'function', function: { name: 'weather' } });
      g.openai.chat.enqueue({ text: 'b' });
      const d = await openai.responses.create({ model: 'svc-fast', input: 'x' });
      assert.equal(d.temperature, 1);
      assert.equal(d.top_p, 1);
      assert.equal(d.tool_choice, 'auto');
      assert.deepEqual(d.tools, []);
      assert.deepEqual(d.metadata, {});
    });

    it('an upstream error: the SDK gets an error and nothing is stored as completed', async () => {
      g.anthropic.chat.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long' } });
      await assert.rejects(openai.responses.create({ model: 'svc-vision', input: 'x' }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 400);
    });

    it('Anthropic usage: cache reads in cached_tokens, cache writes in input_tokens, total the sum', async () => {
      g.anthropic.chat.enqueue({ text: 'a', usage: { input: 100, cached: 30, output: 10, written: 20 } });
      const r = await openai.responses.create({ model: 'svc-vision', input: 'x' });
      assert.equal(r.usage?.input_tokens, 100);
      assert.equal(r.usage?.input_tokens_details.cached_tokens, 30);
      assert.equal(r.usage?.total_tokens, 110);
      g.anthropic.chat.enqueue({ text: 'a', usage: { input: 100, cached: 30, output: 10, written: 20 } });
      const { events } = await streamed({ model: 'svc-vision', input: 'x', stream: true });
      assert.deepEqual((events.at(-1)!.response as OpenAI.Responses.Response).usage, r.usage);
    });

    it('input_items of a continuation list the context it was given (docs/api-decisions.md), instructions not an item', async () => {
      g.openai.chat.enqueue({ text: 'a' }, { text: 'b' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: 'first', instructions: 'Be brief.' });
      const r2 = await openai.responses.create({ model: 'svc-fast', input: 'second', previous_response_id: r1.id });
      const items = (await openai.responses.inputItems.list(r1.id)).data;
      assert.equal(items.length, 1);
      const later = (await openai.responses.inputItems.list(r2.id, { order: 'asc' })).data;
      assert.deepEqual(later.map((i) => i.type === 'message' && (i.content[0] as { text: string }).text), ['first', 'a', 'second']);
    });
    it('streamed with store false: response.created says so, and the id is not retrievable', async () => {
      g.openai.chat.enqueue({ text: 'a' });
      const events: Ev[] = [];
      for await (const e of await openai.responses.create({ model: 'svc-fast', input: 'x', stream: true, store: false })) events.push(e as unknown as Ev);
      const created = events[0]!.response as { id: string; store: boolean };
      assert.equal(created.store, false);
      await assert.rejects(openai.responses.retrieve(created.id), OpenAI.NotFoundError);
    });

    it('a streamed function call opens with empty arguments and status in_progress, and closes completed', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }] });
      const events: Ev[] = [];
      for await (const e of await openai.responses.create({ model: 'svc-fast', input: 'x', stream: true, tools: weather })) events.push(e as unknown as Ev);
      const added = events.find((e) => e.type === 'response.output_item.added')!.item as OpenAI.Responses.ResponseFunctionToolCall;
      assert.equal(added.arguments, '');
      assert.equal(added.status, 'in_progress');
      assert.equal(added.name, 'weather');
      const done = events.find((e) => e.type === 'response.output_item.done')!.item as OpenAI.Responses.ResponseFunctionToolCall;
      assert.equal(done.status, 'completed');
      assert.equal(done.call_id, added.call_id);
      assert.deepEqual(JSON.parse(done.arguments), { city: 'Rome' });
      for (const e of events.filter((x) => x.type.startsWith('response.function_call_arguments'))) assert.equal(e.item_id, added.id);
    });

    it('an incomplete response can be continued', async () => {
      g.openai.chat.enqueue({ text: 'cut', finish: 'length' }, { text: 'rest' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: 'x', max_output_tokens: 16 });
      assert.equal(r1.status, 'incomplete');
      const r2 = await openai.responses.create({ model: 'svc-fast', input: 'go on', previous_response_id: r1.id });
      assert.equal(r2.output_text, 'rest');
      assert.deepEqual(openaiBody().messages.map((m) => m.role), ['user', 'assistant', 'user']);
    });

    it('a function_call_output given as content parts reaches the upstream as the tool result text', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }] });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: 'x', tools: weather });
      const call = r1.output.find((o) => o.type === 'function_call')!;
      assert.ok(call.type === 'function_call');
      g.anthropic.chat.enqueue({ text: 'ok' });
      await openai.responses.create({ model: 'svc-vision', previous_response_id: r1.id, tools: weather, input: [{ type: 'function_call_output', call_id: call.call_id, output: [{ type: 'input_text', text: 'warm' }] }] });
      assert.ok(JSON.stringify(anthropicBody().messages).includes('warm'));
    });
    it('text.verbosity: a value OpenAI defines is taken (not echoed, as decided), any other is 400 naming it', async () => {
      g.openai.chat.enqueue({ text: 'a' });
      const low = await openai.responses.create({ model: 'svc-fast', input: 'x', text: { verbosity: 'low' } });
      assert.deepEqual(low.text, { format: { type: 'text' } });
      await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'x', text: { verbosity: 'loud' as 'low' } }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('text.verbosity'));
    });
  });
});
