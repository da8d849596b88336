import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { PLAIN_RESILIENCE, UPSTREAM_MODELS, postJson, startShippedWithSdks, waitForUsage, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { PNG_BASE64 } from './helpers/images.ts';

/**
 * svc-ultra and svc-auto change executor between the turns of one conversation; a signed thinking
 * block goes back only to the model that signed it (docs/api-decisions.md, "Routing: session 29").
 * The fake Anthropic upstream refuses a block another model signed, as the API does.
 */
describe('routing: session 29', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    ({ g, acct, openai, anthropic } = await startShippedWithSdks(PLAIN_RESILIENCE));
  });
  after(() => g.close());

  const THOUGHT = 'Subtract 7, then halve: x = 6.';
  const MATH = 'Solve 2x + 7 = 19.';
  const USAGE = { input: 100, cached: 0, output: 10 };
  type Sent = { model: string; thinking?: unknown; messages: { role: string; content: string | { type: string }[] }[] };
  /** What the Anthropic fake was sent by the calls `fn` made. */
  async function sentTo(fn: () => Promise<void>): Promise<Sent[]> {
    const a = g.anthropic.requests.length;
    await fn();
    return g.anthropic.requests.slice(a).map((r) => r.body as Sent);
  }
  const blockTypes = (s: Sent): string[] => s.messages.flatMap((m) => (typeof m.content === 'string' ? ['text'] : m.content.map((b) => b.type)));

  describe('messages', () => {
    const thinking = { type: 'enabled' as const, budget_tokens: 2048 };
    const imageTurn = (text: string): Anthropic.MessageParam => ({
      role: 'user',
      content: [
        { type: 'text', text },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
      ],
    });

    /** svc-ultra's first turn: math on svc-pro (Opus), which thinks; the answer as the client keeps it. */
    async function firstTurn(stream: boolean, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}): Promise<Anthropic.Message> {
      const params = { model: 'svc-ultra', max_tokens: 4096, thinking, messages: [{ role: 'user' as const, content: MATH }], ...extra };
      const r = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      assert.equal(r.content[0]!.type, 'thinking');
      return r;
    }

    for (const stream of [false, true]) {
      const s = stream ? 'streamed' : 'not streamed';
      it(`svc-ultra, Opus's thinking then an image for Sonnet (first turn ${s}): 200 from svc-vision, the block left out`, async () => {
        g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6', usage: USAGE }, { reasoning: 'A pixel.', text: 'One pixel.', usage: USAGE });
        let second!: { data: Anthropic.Message; response: Response };
        const sent = await sentTo(async () => {
          const first = await firstTurn(stream);
          second = await anthropic.messages
            .create({ model: 'svc-ultra', max_tokens: 4096, thinking, messages: [{ role: 'user', content: MATH }, { role: 'assistant', content: first.content }, imageTurn('And what is in this picture?')] })
            .withResponse();
        });
        assert.deepEqual(sent.map((b) => b.model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.vision]);
        assert.equal(second.response.headers.get('x-svc-model'), 'svc-vision');
        assert.equal(second.data.content.find((b) => b.type === 'text')?.text, 'One pixel.');
        assert.ok(!blockTypes(sent[1]!).includes('thinking'), JSON.stringify(sent[1]!.messages));
        assert.deepEqual(sent[1]!.thinking, thinking, 'the new turn still thinks');
      });
    }

    it('svc-ultra, a tool call Opus made while thinking, its result an image for Sonnet: 200, without thinking on that continuation', async () => {
      const tools: Anthropic.Tool[] = [{ name: 'take_photo', description: 'Takes a photo', input_schema: { type: 'object', properties: {} } }];
      g.anthropic.chat.enqueue({ reasoning: THOUGHT, toolCalls: [{ name: 'take_photo', arguments: {} }], usage: USAGE }, { text: 'A pixel.', usage: USAGE });
      let second!: { data: Anthropic.Message; response: Response };
      const sent = await sentTo(async () => {
        const first = await firstTurn(false, { tools, messages: [{ role: 'user', content: 'Take a photo of the room and tell me what is in it.' }] });
        const call = first.content.find((b) => b.type === 'tool_use')!;
        second = await anthropic.messages
          .create({
            model: 'svc-ultra',
            max_tokens: 4096,
            thinking,
            tools,
            messages: [
              { role: 'user', content: 'Take a photo of the room and tell me what is in it.' },
              { role: 'assistant', content: first.content },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }] }] },
            ],
          })
          .withResponse();
      });
      assert.deepEqual(sent.map((b) => b.model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.vision]);
      assert.equal(second.response.headers.get('x-svc-lane'), 'vision');
      assert.equal(second.data.content[0]!.type === 'text' && second.data.content[0].text, 'A pixel.');
      assert.ok(!blockTypes(sent[1]!).includes('thinking'));
      assert.equal(sent[1]!.thinking, undefined, 'no thinking on a tool-use continuation without its own signed block');
    });

    it('svc-ultra, the same executor on the next turn: the signed block goes back to it', async () => {
      g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6', usage: USAGE }, { reasoning: 'Check.', text: 'Yes.', usage: USAGE });
      const sent = await sentTo(async () => {
        const first = await firstTurn(false);
        await anthropic.messages.create({ model: 'svc-ultra', max_tokens: 4096, thinking, messages: [{ role: 'user', content: MATH }, { role: 'assistant', content: first.content }, { role: 'user', content: 'Check it by substituting x.' }] });
      });
      assert.deepEqual(sent.map((b) => b.model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.pro]);
      assert.ok(blockTypes(sent[1]!).includes('thinking'), 'the block Opus signed goes back to Opus');
    });

    it('svc-auto: math on svc-pro, then an image on svc-vision', async () => {
      g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6', usage: USAGE }, { text: 'One pixel.', usage: USAGE });
      const sent = await sentTo(async () => {
        const first = await anthropic.messages.create({ model: 'svc-auto', max_tokens: 4096, thinking, messages: [{ role: 'user', content: MATH }] });
        const r = await anthropic.messages.create({ model: 'svc-auto', max_tokens: 4096, thinking, messages: [{ role: 'user', content: MATH }, { role: 'assistant', content: first.content }, imageTurn('What is in this picture?')] });
        assert.equal(r.model, 'svc-vision');
      });
      assert.deepEqual(sent.map((b) => b.model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.vision]);
      assert.ok(!blockTypes(sent[1]!).includes('thinking'));
    });
  });

  describe('chat completions and responses', () => {
    const imageParts = [
      { type: 'text' as const, text: 'And what is in this picture?' },
      { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ];

    it('chat completions: reasoning_details from Opus sent back on a turn svc-ultra gives Sonnet', async () => {
      g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6', usage: USAGE }, { text: 'One pixel.', usage: USAGE });
      const sent = await sentTo(async () => {
        const first = await openai.chat.completions.create({ model: 'svc-ultra', reasoning_effort: 'low', max_tokens: 8000, messages: [{ role: 'user', content: MATH }] });
        const m = first.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_details?: unknown[] };
        assert.equal(m.reasoning_details?.length, 1);
        const r = await openai.chat.completions
          .create({
            model: 'svc-ultra',
            reasoning_effort: 'low',
            max_tokens: 8000,
            messages: [{ role: 'user', content: MATH }, { role: 'assistant', content: m.content, reasoning_details: m.reasoning_details } as OpenAI.Chat.ChatCompletionAssistantMessageParam, { role: 'user', content: imageParts }],
          })
          .withResponse();
        assert.equal(r.response.headers.get('x-svc-model'), 'svc-vision');
        assert.equal(r.data.choices[0]!.message.content, 'One pixel.');
      });
      assert.deepEqual(sent.map((b) => b.model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.vision]);
      assert.ok(!blockTypes(sent[1]!).includes('thinking'));
    });

    it('responses: previous_response_id of an Opus turn with reasoning, continued with an image on svc-ultra', async () => {
      g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6', usage: USAGE }, { text: 'One pixel.', usage: USAGE });
      const sent = await sentTo(async () => {
        const first = await openai.responses.create({ model: 'svc-ultra', reasoning: { effort: 'low' }, max_output_tokens: 8000, input: MATH });
        assert.ok(first.output.some((i) => i.type === 'reasoning'));
        const r = await openai.responses
          .create({
            model: 'svc-ultra',
            reasoning: { effort: 'low' },
            max_output_tokens: 8000,
            previous_response_id: first.id,
            input: [{ role: 'user', content: [{ type: 'input_text', text: 'And what is in this picture?' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' }] }],
          })
          .withResponse();
        assert.equal(r.response.headers.get('x-svc-model'), 'svc-vision');
        assert.equal(r.data.output_text, 'One pixel.');
      });
      assert.deepEqual(sent.map((b) => b.model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.vision]);
      assert.ok(!blockTypes(sent[1]!).includes('thinking'));
    });
  });

  describe('the usage record of a pipeline request every executor failed', () => {
    /** svc-ultra's whole chain for a math question down: svc-pro (both deployments), svc-fast, then svc-vision of the last lane. */
    function chainDown(): void {
      g.anthropic.chat.enqueue({ error: { status: 500 } }, { error: { status: 500 } });
      g.openai.chat.enqueue({ error: { status: 500 } }, { error: { status: 500 } });
    }

    for (const stream of [false, true]) {
      it(`names the lane the request was routed by (math), not the last lane tried (vision), ${stream ? 'streamed' : 'not streamed'}`, async () => {
        chainDown();
        const rowsBefore = (await waitForUsage(g.t, acct.id, 0)).length;
        const a = g.anthropic.requests.length;
        const r = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-ultra', stream, messages: [{ role: 'user', content: MATH }] });
        await r.text();
        assert.equal(r.status, 502);
        assert.equal(r.headers.get('x-svc-lane'), null);
        assert.deepEqual(g.anthropic.requests.slice(a).map((q) => (q.body as { model: string }).model), [UPSTREAM_MODELS.pro, UPSTREAM_MODELS.vision], 'the chain ended on svc-vision');
        const [row] = await waitForUsage(g.t, acct.id, rowsBefore + 1);
        assert.deepEqual([row!.model, row!.lane, row!.status, BigInt(row!.cost_micro)], ['svc-ultra', 'math', 502, 0n]);
      });
    }
  });
});
