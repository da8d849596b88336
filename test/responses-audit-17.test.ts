import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

/** The seventeenth inference audit, OpenAI Responses side (docs/api-decisions.md, "Responses: seventeenth audit"). */
/** A response without the fields the SDK adds on its own (output_text, output_parsed, parsed, parsed_arguments). */
function wire(r: object): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (['output_text', 'output_parsed', 'parsed', 'parsed_arguments'].includes(k) ? undefined : v)));
}

type Ev = { type: string; sequence_number: number; response?: Record<string, unknown> } & Record<string, unknown>;

describe('responses: seventeenth audit', () => {
  let g: Gateway;
  let openai: OpenAI;

  before(async () => void ({ g, openai } = await startWithSdks()));
  after(() => g.close());

  const KINDS = [
    { name: 'OpenAI-style', model: 'svc-fast', fake: () => g.openai },
    { name: 'Anthropic', model: 'svc-vision', fake: () => g.anthropic },
  ] as const;

  const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather of a city', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];

  for (const kind of KINDS) {
    describe(kind.name, () => {
      it('responses.stream(): the final response the SDK builds equals a retrieve of the same id', async () => {
        kind.fake().chat.enqueue({ reasoning: 'Think about Paris.', text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], reasoningTokens: 5 });
        const stream = openai.responses.stream({ model: kind.model, input: 'Weather in Paris?', tools, reasoning: { effort: 'low', summary: 'auto' }, metadata: { k: 'v' }, instructions: 'Be brief.' });
        const events: Ev[] = [];
        for await (const e of stream) events.push(e as unknown as Ev);
        const final = await stream.finalResponse();
        const got = await openai.responses.retrieve(final.id);
        assert.deepEqual(wire(final), wire(got));
        assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
      });
    });
  }

  describe('retrieve with include=["reasoning.encrypted_content"]', () => {
    const base = { model: 'svc-vision', tools, reasoning: { effort: 'medium' as const }, max_output_tokens: 30000 };

    it('shows the reasoning items\' encrypted_content although the create did not ask for it; without include it stays hidden', async () => {
      g.anthropic.chat.enqueue({ reasoning: 'Paris weather needs the tool.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
      const first = await openai.responses.create({ ...base, input: 'Weather in Paris?' });
      assert.equal(first.output[0]!.type, 'reasoning');
      assert.equal('encrypted_content' in first.output[0]!, false);
      const plain = await openai.responses.retrieve(first.id);
      assert.deepEqual(wire(plain), wire(first));

      const shown = await openai.responses.retrieve(first.id, { include: ['reasoning.encrypted_content'] });
      const rs = shown.output[0] as OpenAI.Responses.ResponseReasoningItem;
      assert.equal(typeof rs.encrypted_content, 'string');
      // Everything else as created.
      const { encrypted_content: _, ...rest } = rs;
      assert.deepEqual(wire({ ...shown, output: [rest, ...shown.output.slice(1)] }), wire(first));

      // The shown token carries the signed thinking back in a stateless continuation.
      g.anthropic.chat.enqueue({ text: 'Sunny.' });
      const call = shown.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
      const next = await openai.responses.create({
        ...base,
        store: false,
        input: [{ role: 'user', content: 'Weather in Paris?' }, rs, call, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
      });
      assert.equal(next.output_text, 'Sunny.');
      const sent = g.anthropic.requests.at(-1)!.body as { messages: { role: string; content: { type: string; signature?: string }[] }[] };
      const thinking = sent.messages[1]!.content[0]!;
      assert.equal(thinking.type, 'thinking');
      assert.ok(thinking.signature, JSON.stringify(sent));
    });

    it("another account's id is 404 response not found, with include as without", async () => {
      g.openai.chat.enqueue({ text: 'hi' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi' });
      const other = g.client((await createTestAccount(g.t, { credits: 10 })).key);
      for (const query of [{}, { include: ['reasoning.encrypted_content' as const] }]) {
        const e = await other.responses.retrieve(r.id, query).then(() => null, (x: { status?: number; error?: unknown }) => x);
        assert.equal(e?.status, 404);
        // The SDK's `error` is the body's `error` field: the body is {"error": "response not found"}.
        assert.equal(e?.error, 'response not found');
      }
    });

    it('a response without reasoning answers as without include; an unknown include value is ignored as on create', async () => {
      g.openai.chat.enqueue({ text: 'hi' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi' });
      assert.deepEqual(wire(await openai.responses.retrieve(r.id, { include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] })), wire(r));
    });
  });
});
