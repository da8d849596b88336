import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { startGateway, startWithSdks, type Gateway } from './helpers/gateway.ts';
import { auditRequests } from './helpers/spec-audit.ts';
import { createTestAccount, manualClock } from './helpers/inference.ts';

/** The seventeenth inference audit, OpenAI Responses side (docs/api-decisions.md, "Responses: seventeenth audit"). */
/** A response without the fields the SDK adds on its own (output_text, output_parsed, parsed, parsed_arguments). */
function wire(r: object): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (['output_text', 'output_parsed', 'parsed', 'parsed_arguments'].includes(k) ? undefined : v)));
}

type Ev = { type: string; sequence_number: number; response?: Record<string, unknown> } & Record<string, unknown>;

describe('responses: seventeenth audit', () => {
  let g: Gateway;
  let openai: OpenAI;

  let key: string;
  before(async () => {
    const s = await startWithSdks();
    ({ g, openai } = s);
    key = s.acct.key;
  });
  after(() => g.close());

  const audit = auditRequests(() => ({ g, key }));
  const refused = (body: unknown, error: string) => audit.refused('/v1/responses', body, error);

  const KINDS = [
    { name: 'OpenAI-style', model: 'svc-fast', fake: () => g.openai },
    { name: 'Anthropic', model: 'svc-vision', fake: () => g.anthropic },
  ] as const;

  const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather of a city', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];

  /** Streams `params` with the SDK's helper: its events, the final response it built, and a retrieve of that id. */
  async function streamAndRetrieve(params: Record<string, unknown>) {
    const stream = openai.responses.stream(params as Parameters<typeof openai.responses.stream>[0]);
    const events: Ev[] = [];
    for await (const e of stream) events.push(e as unknown as Ev);
    const final = await stream.finalResponse();
    return { events, final, got: await openai.responses.retrieve(final.id) };
  }

  const shell = { type: 'custom' as const, name: 'shell', description: 'Runs a shell command.' };
  const citySchema = { type: 'json_schema' as const, name: 'city', strict: true, schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } };

  for (const kind of KINDS) {
    describe(kind.name, () => {
      const cases = [
        {
          what: 'reasoning, text and a function call',
          scenario: { reasoning: 'Think about Paris.', text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], reasoningTokens: 5 },
          params: { input: 'Weather in Paris?', tools, reasoning: { effort: 'low', summary: 'auto' }, metadata: { k: 'v' }, instructions: 'Be brief.' },
          types: ['reasoning', 'message', 'function_call'],
        },
        {
          what: 'include reasoning.encrypted_content with two parallel calls',
          scenario: { reasoning: 'Two cities.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Rome' } }] },
          params: { input: 'Weather in Paris and Rome?', tools, reasoning: { effort: 'medium' }, max_output_tokens: 30000, include: ['reasoning.encrypted_content'] },
          types: ['reasoning', 'function_call', 'function_call'],
        },
        { what: 'a custom tool call', scenario: { toolCalls: [{ name: 'shell', arguments: { input: 'ls -la' } }] }, params: { input: 'List files', tools: [shell] }, types: ['custom_tool_call'] },
        { what: 'text.format json_schema', scenario: { json: { city: 'Paris' } }, params: { input: 'City?', text: { format: citySchema } }, types: ['message'] },
      ];
      for (const c of cases) {
        it(`responses.stream() (${c.what}): the final response the SDK builds equals a retrieve of the same id`, async () => {
          kind.fake().chat.enqueue(c.scenario);
          const { events, final, got } = await streamAndRetrieve({ model: kind.model, ...c.params });
          assert.deepEqual(wire(final), wire(got));
          assert.equal(got.status, 'completed');
          assert.deepEqual(got.output.map((i) => i.type), c.types);
          assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
          assert.equal(events.at(-1)!.type, 'response.completed');
        });
      }
    });
  }

  describe('a function call the output cap cut (incomplete response)', () => {
    for (const stream of [false, true]) {
      it(`${stream ? 'streamed' : 'not streamed'}: is shown incomplete, and a continuation goes on without it (no output owed, no half arguments upstream)`, async () => {
        g.openai.chat.enqueue({ text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris, the capital of France' } }], finish: 'length' });
        const params = { model: 'svc-fast', input: 'Weather in Paris?', tools, max_output_tokens: 16 };
        const first = stream ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
        const shown = await openai.responses.retrieve(first.id);
        assert.equal(shown.status, 'incomplete');
        assert.deepEqual(shown.incomplete_details, { reason: 'max_output_tokens' });
        assert.deepEqual(shown.output.map((i) => [i.type, 'status' in i ? i.status : undefined]), [['message', 'completed'], ['function_call', 'incomplete']]);
        const cut = shown.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        assert.ok(!cut.arguments.endsWith('}'), cut.arguments);

        g.openai.chat.enqueue({ text: 'It is sunny in Paris.' });
        const next = await openai.responses.create({ model: 'svc-fast', input: 'Go on, with more room.', tools, previous_response_id: first.id });
        assert.equal(next.output_text, 'It is sunny in Paris.');
        const sent = g.openai.requests.at(-1)!.body as { messages: { role: string; content: unknown; tool_calls?: unknown }[] };
        // The text the cap left whole is the model's own; the cut call is not.
        assert.deepEqual(sent.messages.map((m) => [m.role, m.content, m.tool_calls]), [
          ['user', 'Weather in Paris?', undefined],
          ['assistant', 'Let me check.', undefined],
          ['user', 'Go on, with more room.', undefined],
        ]);
        // Nor can an item_reference name it.
        const e = await openai.responses.create({ model: 'svc-fast', tools, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: cut.id }] as never }).then(() => null, (x: { status?: number; error?: unknown }) => x);
        assert.equal(e?.status, 400);
        assert.equal(e?.error, `input[1].id: no stored item ${cut.id}`);
      });
    }
  });

  describe('a tool call sent again with previous_response_id', () => {
    for (const kind of KINDS) {
      it(`${kind.name}: is a 400 naming the item before any upstream call, not the upstream's refusal of a duplicate id`, async () => {
        kind.fake().chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
        const first = await openai.responses.create({ model: kind.model, input: 'Weather in Paris?', tools });
        const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
        const output = { type: 'function_call_output' as const, call_id: call.call_id, output: 'sunny' };
        await refused(
          { model: kind.model, tools, previous_response_id: first.id, input: [call, output] },
          `input[0].call_id: the tool call ${call.call_id} is already in the conversation; send each call once (previous_response_id carries the earlier ones)`,
        );
        // The same call twice in one stateless input too.
        await refused(
          { model: kind.model, tools, store: false, input: [{ role: 'user', content: 'Weather in Paris?' }, call, output, { role: 'user', content: 'again' }, call, output] },
          `input[4].call_id: the tool call ${call.call_id} is already in the conversation; send each call once (previous_response_id carries the earlier ones)`,
        );
        // Sent once, it goes on.
        kind.fake().chat.enqueue({ text: 'Sunny.' });
        const next = await openai.responses.create({ model: kind.model, tools, previous_response_id: first.id, input: [output] });
        assert.equal(next.output_text, 'Sunny.');
      });
    }
  });

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

describe('responses: completed_at is when the response completed, and only a completed one has it', () => {
  const clock = manualClock();
  let g: Gateway;
  let openai: OpenAI;

  before(async () => {
    g = await startGateway({ clock, env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    openai = g.client((await createTestAccount(g.t, { credits: 100_000 })).key);
  });
  after(() => g.close());

  /** Holds the upstream's answer while the clock moves 90 seconds on, then lets it go. */
  async function slowAnswer<T>(fake: 'openai' | 'anthropic', ask: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const waitFor = new Promise<void>((r) => (release = r));
    const before = g[fake].requests.length;
    g[fake].chat.enqueue({ text: 'Done after a while.', waitFor });
    const answer = ask();
    while (g[fake].requests.length === before) await new Promise((r) => setImmediate(r));
    clock.advance(90_000);
    release();
    return answer;
  }

  for (const [fake, model] of [['openai', 'svc-fast'], ['anthropic', 'svc-vision']] as const) {
    it(`${model}: not streamed and streamed, the answer and a retrieve say completed_at 90 s after created_at`, async () => {
      const r = await slowAnswer(fake, () => openai.responses.create({ model, input: 'take your time' }));
      assert.ok(r.completed_at! - r.created_at >= 90, JSON.stringify(r));
      assert.equal((await openai.responses.retrieve(r.id)).completed_at, r.completed_at);

      const events: Ev[] = [];
      await slowAnswer(fake, async () => {
        for await (const e of await openai.responses.create({ model, input: 'take your time', stream: true })) events.push(e as unknown as Ev);
      });
      const created = events[0]!.response!;
      const done = events.at(-1)!.response!;
      assert.equal(created.completed_at, null);
      assert.equal(events[1]!.response!.completed_at, null);
      assert.ok((done.completed_at as number) - (done.created_at as number) >= 90, JSON.stringify(done));
      assert.equal((await openai.responses.retrieve(done.id as string)).completed_at, done.completed_at);
    });
  }

  it('an incomplete and a failed response have completed_at null', async () => {
    g.openai.chat.enqueue({ text: 'The first primes are 2, 3, 5', finish: 'length' });
    const cut = await openai.responses.create({ model: 'svc-fast', input: 'primes', max_output_tokens: 16 });
    assert.equal(cut.status, 'incomplete');
    assert.equal(cut.completed_at, null);

    g.anthropic.chat.enqueue({ text: 'Partial answer that breaks here', streamErrorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' } });
    const events: Ev[] = [];
    for await (const e of await openai.responses.create({ model: 'svc-vision', input: 'hello', stream: true })) events.push(e as unknown as Ev);
    const failed = events.at(-1)!.response!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.completed_at, null);
    assert.equal((await openai.responses.retrieve(failed.id as string)).completed_at, null);
  });
});
