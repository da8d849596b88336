import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';

/**
 * POST /v1/responses walked again as a new user of the `openai` SDK would, on both kinds of fake
 * upstream (docs/api-decisions.md, "Responses: session 29 audit").
 */
type Ev = { type: string; sequence_number: number } & Record<string, unknown>;
type UpstreamMessage = { role: string; content: unknown } & Record<string, unknown>;

describe('responses: session 29 audit', () => {
  let g: Gateway;
  let openai: OpenAI;

  before(async () => {
    ({ g, openai } = await startWithSdks());
  });
  after(async () => {
    await g.close();
  });
  // A test that fails early leaves its scenarios queued; the next test starts from empty queues.
  beforeEach(() => {
    for (const q of [g.openai.chat, g.anthropic.chat]) while (q.next() !== q.otherwise);
  });

  const weather: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
  /** An output item without what differs from one response to the next (its ids). */
  const shape = (o: OpenAI.Responses.ResponseOutputItem) => {
    const { id: _id, ...rest } = o as OpenAI.Responses.ResponseOutputItem & { id?: string; call_id?: string };
    return 'call_id' in rest ? { ...rest, call_id: 'call' } : rest;
  };

  async function rawStream(params: Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream'>) {
    const events: Ev[] = [];
    for await (const e of await openai.responses.create({ ...params, stream: true })) events.push(e as unknown as Ev);
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
    return events;
  }

  it('svc-vision: text the model writes after its tool call keeps its place, in the answer as in the stream', async () => {
    const scenario = { text: 'Checking.', toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }], textAfterToolCalls: 'Let me look it up.' };
    g.anthropic.chat.enqueue(scenario, scenario);
    const events = await rawStream({ model: 'svc-vision', input: 'Rome?', tools: weather });
    const streamed = events.at(-1)!.response as OpenAI.Responses.Response;
    const answer = await openai.responses.create({ model: 'svc-vision', input: 'Rome?', tools: weather });
    assert.deepEqual(streamed.output.map((o) => o.type), ['message', 'function_call', 'message']);
    assert.deepEqual(answer.output.map(shape), streamed.output.map(shape));
    assert.equal(answer.output_text, 'Checking.Let me look it up.');
    const { output_text: _t, ...retrieved } = await openai.responses.retrieve(answer.id);
    assert.deepEqual(retrieved, JSON.parse(JSON.stringify({ ...answer, output_text: undefined })));
    const call = answer.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    g.anthropic.chat.enqueue({ text: 'Sunny.' });
    await openai.responses.create({ model: 'svc-vision', previous_response_id: answer.id, tools: weather, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }] });
    const sent = (g.anthropic.requests.at(-1)!.body as { messages: UpstreamMessage[] }).messages;
    assert.deepEqual(sent.map((m) => m.role), ['user', 'assistant', 'user']);
    // The continuation gives the upstream the turn in the model's own order.
    assert.deepEqual((sent[1]!.content as { type: string }[]).map((b) => b.type), ['text', 'tool_use', 'text']);
  });

  describe('an item sent again', () => {
    const refused = (index: number, id: string) => (e: unknown) =>
      e instanceof OpenAI.BadRequestError && e.message.includes(`input[${index}].id`) && e.message.includes(id) && /duplicate/i.test(e.message);

    it('an output item of the previous response sent back next to previous_response_id is 400, nothing sent upstream', async () => {
      g.openai.chat.enqueue({ text: 'First answer.' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: 'one' });
      const message = r1.output[0] as OpenAI.Responses.ResponseOutputMessage;
      const calls = g.openai.requests.length;
      await assert.rejects(
        openai.responses.create({ model: 'svc-fast', previous_response_id: r1.id, input: [message, { role: 'user', content: 'and then?' }] }),
        refused(0, message.id),
      );
      await assert.rejects(
        openai.responses.create({ model: 'svc-fast', previous_response_id: r1.id, input: [{ role: 'user', content: 'and then?' }, { type: 'item_reference', id: message.id }] }),
        refused(1, message.id),
      );
      assert.equal(g.openai.requests.length, calls);
      // By reference without previous_response_id, the item is in the conversation once: taken.
      g.openai.chat.enqueue({ text: 'ok' });
      await openai.responses.create({ model: 'svc-fast', input: [{ role: 'user', content: 'one' }, { type: 'item_reference', id: message.id }, { role: 'user', content: 'and then?' }] });
      assert.deepEqual((g.openai.requests.at(-1)!.body as { messages: UpstreamMessage[] }).messages.at(1), { role: 'assistant', content: 'First answer.' });
    });

    it('a stored input item sent again, and one item twice in an input, are 400 on both kinds', async () => {
      g.anthropic.chat.enqueue({ text: 'Hi.' });
      const r1 = await openai.responses.create({ model: 'svc-vision', input: 'hello' });
      const [userItem] = (await openai.responses.inputItems.list(r1.id)).data;
      assert.ok(userItem?.type === 'message');
      await assert.rejects(
        openai.responses.create({ model: 'svc-vision', previous_response_id: r1.id, input: [userItem as OpenAI.Responses.ResponseInputItem, { role: 'user', content: 'again' }] }),
        refused(0, userItem.id),
      );
      const message = r1.output[0] as OpenAI.Responses.ResponseOutputMessage;
      await assert.rejects(
        openai.responses.create({ model: 'svc-fast', input: [{ role: 'user', content: 'hello' }, { type: 'item_reference', id: message.id }, { type: 'item_reference', id: message.id }] }),
        refused(2, message.id),
      );
      await assert.rejects(
        openai.responses.inputTokens.count({ model: 'svc-fast', previous_response_id: r1.id, input: [{ type: 'item_reference', id: message.id }] }),
        refused(0, message.id),
      );
    });
  });
});
