import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { catalogYaml, startGateway, startWithSdks, UPSTREAM_MODELS, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { PNG_BASE64 } from './helpers/images.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a thirteenth audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * thirteenth audit").
 */
/** A gateway whose svc-vision is served by the OpenAI-compatible fake, and a client of it. */
async function startWithSdksVisionOpenAI(): Promise<{ g: Gateway; openai: OpenAI }> {
  const g = await startGateway({
    catalog: (f) => catalogYaml(f).replace(`deployments: [{ provider: main-anthropic, model: ${UPSTREAM_MODELS.vision} }]`, 'deployments: [{ provider: main-openai, model: gpt-4.1 }]'),
  });
  const acct = await createTestAccount(g.t, { credits: 1000 });
  return { g, openai: g.client(acct.key) };
}

describe('inference API, thirteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const { post, refused, upstreamCalls } = auditRequests(() => ({ g, key: acct.key }));

  describe('count_tokens with thinking (Anthropic\'s count_tokens takes no max_tokens)', () => {
    const messages = [{ role: 'user' as const, content: 'How many primes are below 100?' }];

    it('counts a request with a thinking budget, through the SDK and plain HTTP, with nothing sent upstream', async () => {
      const before = upstreamCalls();
      const plain = await anthropic.messages.countTokens({ model: 'svc-vision', messages });
      for (const thinking of [{ type: 'enabled' as const, budget_tokens: 2048 }, { type: 'enabled' as const, budget_tokens: 1024 }, { type: 'adaptive' as const }]) {
        const c = await anthropic.messages.countTokens({ model: 'svc-vision', messages, thinking });
        assert.equal(c.input_tokens, plain.input_tokens, JSON.stringify(thinking));
      }
      const r = await post('/inference/v1/messages/count_tokens', { model: 'svc-shiplow', messages, thinking: { type: 'enabled', budget_tokens: 16000 } });
      assert.equal(r.status, 200, await r.clone().text());
      assert.ok(((await r.json()) as { input_tokens: number }).input_tokens > 0);
      assert.equal(upstreamCalls(), before);
    });

    it('still refuses what the messages request would: a budget below 1,024, or not below a max_tokens the client gave', async () => {
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', messages, thinking: { type: 'enabled', budget_tokens: 1000 } }, 'thinking.budget_tokens: must be >= 1024');
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', max_tokens: 2048, messages, thinking: { type: 'enabled', budget_tokens: 2048 } }, 'thinking.budget_tokens: must be less than max_tokens');
    });
  });
  describe('output items a response ends before they are whole say `incomplete`', () => {
    type Item = { id: string; type: string; status?: string; content?: { text: string }[] };
    type Final = { id: string; status: string; output: Item[]; incomplete_details: unknown; error: unknown };
    /** The items of `response.output_item.done` and the final response of an SDK stream. */
    async function streamed(body: Record<string, unknown>): Promise<{ done: Item[]; final: Final; types: string[] }> {
      const stream = await openai.responses.create({ ...body, stream: true } as never);
      const done: Item[] = [];
      const types: string[] = [];
      let final: Final | null = null;
      for await (const e of stream as unknown as AsyncIterable<{ type: string; item?: Item; response?: Final }>) {
        types.push(e.type);
        if (e.type === 'response.output_item.done') done.push(e.item!);
        if (e.type === 'response.completed' || e.type === 'response.incomplete' || e.type === 'response.failed') final = e.response!;
      }
      return { done, final: final!, types };
    }

    it('the message cut by max_output_tokens, streamed and not, and as stored', async () => {
      g.openai.chat.enqueue({ text: 'The first primes are 2, 3, 5', finish: 'length' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'List the primes', max_output_tokens: 16 });
      assert.deepEqual([r.status, r.incomplete_details], ['incomplete', { reason: 'max_output_tokens' }]);
      assert.deepEqual(r.output.map((i) => [i.type, 'status' in i ? i.status : undefined]), [['message', 'incomplete']]);
      const stored = await openai.responses.retrieve(r.id);
      assert.deepEqual(stored.output.map((i) => [i.type, 'status' in i ? i.status : undefined]), [['message', 'incomplete']]);

      g.anthropic.chat.enqueue({ text: 'The first primes are 2, 3, 5', finish: 'length' });
      const s = await streamed({ model: 'svc-vision', input: 'List the primes', max_output_tokens: 16 });
      assert.equal(s.types.at(-1), 'response.incomplete');
      assert.deepEqual(s.done.map((i) => [i.type, i.status]), [['message', 'incomplete']]);
      assert.deepEqual(s.final.output.map((i) => [i.type, i.status]), [['message', 'incomplete']]);
      assert.equal(s.final.output[0]!.content![0]!.text, 'The first primes are 2, 3, 5');

      // Continuing from it works: the item is sent back as the assistant's turn.
      g.openai.chat.enqueue({ text: '7, 11' });
      const next = await openai.responses.create({ model: 'svc-fast', input: 'go on', previous_response_id: r.id });
      assert.equal(next.status, 'completed');
      assert.deepEqual(next.output.map((i) => [i.type, 'status' in i ? i.status : undefined]), [['message', 'completed']]);
    });

    it('the message and the function call a stream failure cut short', async () => {
      g.anthropic.chat.enqueue({ text: 'Partial answer that breaks here', streamErrorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' } });
      const s = await streamed({ model: 'svc-vision', input: 'hello' });
      assert.equal(s.types.at(-1), 'response.failed');
      assert.equal(s.final.status, 'failed');
      assert.deepEqual(s.done.map((i) => [i.type, i.status]), [['message', 'incomplete']]);
      assert.deepEqual(s.final.output.map((i) => [i.type, i.status]), [['message', 'incomplete']]);

      const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
      g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris, the capital of France' } }], cutAfter: 4 });
      const c = await streamed({ model: 'svc-fast', input: 'weather in Paris?', tools });
      assert.equal(c.types.at(-1), 'response.failed');
      assert.deepEqual(c.final.output.map((i) => [i.type, i.status]), [['function_call', 'incomplete']]);
      assert.deepEqual(c.done.map((i) => [i.type, i.status]), [['function_call', 'incomplete']]);
    });

    it('whole items of an ended response stay `completed`', async () => {
      g.openai.chat.enqueue({ text: 'Hello there' });
      const s = await streamed({ model: 'svc-fast', input: 'hi' });
      assert.deepEqual(s.done.map((i) => [i.type, i.status]), [['message', 'completed']]);
      assert.deepEqual(s.final.output.map((i) => [i.type, i.status]), [['message', 'completed']]);
    });
  });
  describe('an Anthropic upstream\'s 429 on /v1/messages', () => {
    it('is a 429 carrying the upstream\'s retry-after, which the SDK reads as a RateLimitError', async () => {
      g.anthropic.chat.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit', headers: { 'retry-after': '7' } } });
      const e = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (x: unknown) => x);
      assert.ok(e instanceof Anthropic.RateLimitError, String(e));
      assert.equal(e.headers.get('retry-after'), '7');
      assert.ok(e.requestID, 'request-id');
    });
  });
  describe('images in tool results', () => {
    const png = `data:image/png;base64,${PNG_BASE64}`;
    const tools = [{ type: 'function', name: 'screenshot', parameters: { type: 'object', properties: {} } }];
    const turn = (output: unknown) => [
      { role: 'user', content: 'What is on the screen?' },
      { type: 'function_call', call_id: 'call_shot', name: 'screenshot', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_shot', output },
    ];

    it('a function_call_output of input_text and input_image parts (OpenAI\'s output list) reaches both upstream kinds with its image', async () => {
      const output = [{ type: 'input_text', text: 'The screen:' }, { type: 'input_image', image_url: png }];
      g.anthropic.chat.enqueue({ text: 'A login form.' });
      const r = await openai.responses.create({ model: 'svc-vision', tools: tools as never, input: turn(output) as never });
      assert.equal(r.output_text, 'A login form.');
      const sent = g.anthropic.requests.at(-1)!.body as { messages: { role: string; content: { type: string; tool_use_id?: string; content?: { type: string; text?: string; source?: { type: string; media_type: string } }[] }[] }[] };
      const result = sent.messages.at(-1)!.content[0]!;
      assert.equal(result.type, 'tool_result');
      assert.deepEqual(result.content!.map((b) => [b.type, b.text ?? b.source?.media_type]), [['text', 'The screen:'], ['image', 'image/png']]);

      // Continued by previous_response_id on svc-ultra's vision lane, and on an OpenAI-compatible upstream of a vision model.
      const vision = await startWithSdksVisionOpenAI();
      try {
        vision.g.openai.chat.enqueue({ text: 'A login form.' });
        const v = await vision.openai.responses.create({ model: 'svc-vision', tools: tools as never, input: turn(output) as never });
        assert.equal(v.output_text, 'A login form.');
        const body = vision.g.openai.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
        assert.deepEqual(body.messages.slice(2).map((m) => m.role), ['tool', 'user']);
        assert.match(JSON.stringify(body.messages.at(-1)!.content), /image_url/);
      } finally {
        await vision.g.close();
      }
    });

    it('a stored tool-result image goes back with previous_response_id, and a model without vision refuses the conversation', async () => {
      g.anthropic.chat.enqueue({ text: 'A login form.' });
      const first = await openai.responses.create({ model: 'svc-vision', tools: tools as never, input: turn([{ type: 'input_image', image_url: png }]) as never });
      g.anthropic.chat.enqueue({ text: 'Two fields.' });
      const next = await openai.responses.create({ model: 'svc-vision', tools: tools as never, input: 'How many fields?', previous_response_id: first.id });
      assert.equal(next.output_text, 'Two fields.');
      assert.match(JSON.stringify(g.anthropic.requests.at(-1)!.body), /"tool_result".*"image"/);
      await refused('/v1/responses', { model: 'svc-fast', input: 'How many fields?', previous_response_id: first.id }, 'previous_response_id: the conversation has images and model svc-fast does not accept images');
    });

    it('is refused for a model without vision, naming the part; other part types are named', async () => {
      await refused('/v1/responses', { model: 'svc-fast', tools, input: turn([{ type: 'input_image', image_url: png }]) }, 'input[2]: model svc-fast does not accept images in tool results');
      await refused('/v1/responses', { model: 'svc-vision', tools, input: turn([{ type: 'input_audio', data: 'x' }]) }, 'input[2].output[0].type: unsupported content part type "input_audio"; expected input_text, input_image or input_file');
      await refused('/v1/responses', { model: 'svc-vision', tools, input: turn([{ type: 'input_image', image_url: 'ftp://x/a.png' }]) }, 'input[2].output[0].image_url: must be an http(s) URL or a data:image/...;base64 URI');
    });

    it('a tool_result image on /v1/messages is refused for a model without vision, as a user image is', async () => {
      const messages = [
        { role: 'user', content: 'What is on the screen?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }] }] },
      ];
      const mtools = [{ name: 'screenshot', input_schema: { type: 'object', properties: {} } }];
      await refused('/v1/messages', { model: 'svc-fast', max_tokens: 50, tools: mtools, messages }, 'messages[2]: model svc-fast does not accept images in tool results');
      await refused('/v1/messages/count_tokens', { model: 'svc-fast', tools: mtools, messages }, 'messages[2]: model svc-fast does not accept images in tool results');
    });
  });
});
