import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { PLAIN_RESILIENCE, PRICES, accountCredits, expectedCost, startShippedWithSdks, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { PNG_BASE64 } from './helpers/images.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { expectRouted, sdkAnswer, streamModel, streamedAnswer, type RoutedAnswer } from './helpers/routing.ts';

/**
 * svc-shiplow, svc-ultra and svc-auto as a user tries them through the official SDKs, on the
 * shipped catalog with its upstreams on the fakes: everyday prompts of every lane in several
 * languages, tools, images, JSON schema, long context, streaming, the routing headers, the bill and
 * the fallbacks (docs/api-decisions.md, "Routing: session 27 audit").
 */

/** Ten everyday prompts of each text lane, in several languages. */
const PROMPTS = {
  code: [
    'How do I reverse a string in Python?',
    'Why does my React component render twice?',
    'Write a bash script that backs up my home folder every night.',
    'Mi consulta SQL tarda mucho, ¿cómo la optimizo? SELECT * FROM pedidos WHERE fecha > now()',
    'Comment centrer une div en CSS ?',
    'Wie kann ich in Git den letzten Commit rückgängig machen?',
    'Pythonでリストを逆順にする方法は？',
    '如何在 JavaScript 中深拷贝一个对象？',
    'Как исправить ошибку "permission denied" при git push?',
    'Can you review this function?\n\nfunction sum(a){let s=0;for(const x of a)s+=x;return s}',
  ],
  math: [
    'What is 15% of 240?',
    'Solve 2x + 7 = 19.',
    'If I invest $1000 at 5% compounded yearly, how much do I have after 10 years?',
    '¿Cuál es el área de un círculo de radio 5 cm?',
    'Combien font 17 fois 23 ?',
    'Wie groß ist die Wahrscheinlichkeit, mit zwei Würfeln eine 7 zu werfen?',
    '求函数 f(x)=x^2-4x+3 的最小值。',
    '三角形の内角の和はなぜ180度ですか？',
    'Докажите, что корень из 2 иррационален.',
    'How many ways can 5 people sit in a row?',
  ],
  multilingual: [
    'Translate "where is the train station?" into German.',
    'How do you say "I love you" in Korean?',
    '¿Qué me recomiendas visitar en Madrid?',
    'Écris un petit poème sur la mer.',
    'Was ist die Hauptstadt von Australien?',
    '今天天气怎么样？给我一些周末活动的建议。',
    'Какие книги стоит прочитать летом?',
    'Qual é a melhor época para visitar Lisboa?',
    'ما هي فوائد شرب الماء؟',
    'Buongiorno, come stai?',
  ],
  general: [
    'Write a birthday message for my sister.',
    'What should I cook for dinner tonight?',
    'Give me tips for a job interview.',
    'Summarize the plot of Hamlet.',
    'How can I sleep better?',
    'Plan a 3-day trip to Rome.',
    'What are the main differences between Windows and macOS for everyday use?',
    'Hello mate',
    'Is macOS better than Windows for photo editing?',
    'Which Android phone has the best camera?',
  ],
} as const;

type TextLane = keyof typeof PROMPTS;
const SHIPLOW: Record<TextLane, string> = { code: 'svc-fast', math: 'svc-pro', multilingual: 'svc-fast', general: 'svc-fast' };
// svc-auto: the cheapest capable candidate, but math and agent requests to svc-pro (its rule).
const AUTO: Record<TextLane, string> = { code: 'svc-fast', math: 'svc-pro', multilingual: 'svc-fast', general: 'svc-fast' };

describe('routing: session 27 audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    ({ g, acct, openai, anthropic } = await startShippedWithSdks(PLAIN_RESILIENCE));
  });
  after(() => g.close());

  const routing = (a: RoutedAnswer) => [a.model, a.header('x-svc-lane'), a.header('x-svc-model')];

  describe('ten everyday prompts of each lane, in several languages', () => {
    for (const lane of Object.keys(PROMPTS) as TextLane[]) {
      it(`${lane}: svc-shiplow, svc-ultra and svc-auto through chat completions`, async () => {
        for (const text of PROMPTS[lane]) {
          const messages = [{ role: 'user' as const, content: text }];
          const shiplow = sdkAnswer(await openai.chat.completions.create({ model: 'svc-shiplow', messages }).withResponse());
          assert.deepEqual(routing(shiplow), ['svc-shiplow', lane, SHIPLOW[lane]], text);
          const ultra = sdkAnswer(await openai.chat.completions.create({ model: 'svc-ultra', messages }).withResponse());
          assert.deepEqual(routing(ultra), ['svc-ultra', lane, 'svc-pro'], text);
          const auto = sdkAnswer(await openai.chat.completions.create({ model: 'svc-auto', messages }).withResponse());
          assert.deepEqual(routing(auto), [AUTO[lane], lane, AUTO[lane]], text);
        }
      });
    }

    it('the same lanes through messages and responses, streamed', async () => {
      for (const lane of Object.keys(PROMPTS) as TextLane[]) {
        const text = PROMPTS[lane][3];
        const m = await streamedAnswer(anthropic.messages.create({ model: 'svc-shiplow', max_tokens: 300, messages: [{ role: 'user', content: text }], stream: true }).withResponse(), streamModel.messages);
        assert.deepEqual(routing(m), ['svc-shiplow', lane, SHIPLOW[lane]], text);
        const r = await streamedAnswer(openai.responses.create({ model: 'svc-ultra', input: text, stream: true }).withResponse(), streamModel.responses);
        assert.deepEqual(routing(r), ['svc-ultra', lane, 'svc-pro'], text);
        const c = await streamedAnswer(openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: text }], stream: true }).withResponse(), streamModel.chat);
        assert.deepEqual(routing(c), [AUTO[lane], lane, AUTO[lane]], text);
      }
    });
  });

  describe('tools, images, JSON schema', () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

    it('tools go to the agent lane, and the tool call comes back, streamed and not', async () => {
      g.anthropic.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const r = await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: '¿Qué tiempo hace en Oslo?' }], tools }).withResponse();
      assert.deepEqual(routing(sdkAnswer(r)), ['svc-shiplow', 'agent', 'svc-pro']);
      assert.equal(r.data.choices[0]!.message.tool_calls?.[0]?.type === 'function' && r.data.choices[0]!.message.tool_calls[0].function.name, 'get_weather');
      const auto = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools, stream: true }).withResponse();
      assert.deepEqual(routing(await streamedAnswer(Promise.resolve(auto), streamModel.chat)), ['svc-pro', 'agent', 'svc-pro']);
      const m = await anthropic.messages
        .create({ model: 'svc-ultra', max_tokens: 300, messages: [{ role: 'user', content: 'Wetter in Oslo?' }], tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }] })
        .withResponse();
      assert.deepEqual(routing(sdkAnswer(m)), ['svc-ultra', 'agent', 'svc-pro']);
    });

    it('an image goes to the vision lane on every model and protocol', async () => {
      const content = [
        { type: 'text' as const, text: 'Qu’est-ce qu’il y a sur cette photo ?' },
        { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      ];
      for (const model of ['svc-shiplow', 'svc-ultra']) {
        const r = await openai.chat.completions.create({ model, messages: [{ role: 'user', content }] }).withResponse();
        assert.deepEqual(routing(sdkAnswer(r)), [model, 'vision', 'svc-vision']);
      }
      const auto = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content }] }).withResponse();
      assert.deepEqual(routing(sdkAnswer(auto)), ['svc-vision', 'vision', 'svc-vision']);
      const m = await anthropic.messages
        .create({ model: 'svc-shiplow', max_tokens: 300, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }, { type: 'text', text: 'Solve the equation in this photo.' }] }] })
        .withResponse();
      assert.deepEqual(routing(sdkAnswer(m)), ['svc-shiplow', 'vision', 'svc-vision']);
    });

    it('a JSON schema answer keeps the lane and comes back as JSON', async () => {
      const schema = { name: 'recipe', strict: true, schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false } };
      for (const model of ['svc-shiplow', 'svc-ultra', 'svc-auto']) {
        const fake = model === 'svc-ultra' ? g.anthropic : g.openai;
        fake.chat.enqueue({ json: { title: 'Tortilla' } });
        const r = await openai.chat.completions
          .create({ model, messages: [{ role: 'user', content: 'Give me a simple Spanish omelette recipe.' }], response_format: { type: 'json_schema', json_schema: schema } })
          .withResponse();
        assert.equal(r.response.headers.get('x-svc-lane'), 'general', model);
        assert.deepEqual(JSON.parse(r.data.choices[0]!.message.content!), { title: 'Tortilla' }, model);
      }
    });
  });

  describe('svc-auto and a request for reasoning', () => {
    const CODE = 'Write a Python function that reverses a linked list.';

    it('a request that asks the model to reason goes to a model that reasons, in every protocol; effort none does not', async () => {
      const chat = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: CODE }], reasoning_effort: 'high' }).withResponse();
      assert.deepEqual(routing(sdkAnswer(chat)), ['svc-pro', 'code', 'svc-pro']);
      const calls = g.anthropic.requests.length;
      const thinking = await anthropic.messages
        .create({ model: 'svc-auto', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: CODE }] })
        .withResponse();
      assert.deepEqual(routing(sdkAnswer(thinking)), ['svc-pro', 'code', 'svc-pro']);
      assert.deepEqual((g.anthropic.requests[calls]!.body as { thinking?: unknown }).thinking, { type: 'enabled', budget_tokens: 2000 }, 'the thinking reached the upstream');
      const responses = await openai.responses.create({ model: 'svc-auto', input: CODE, reasoning: { effort: 'medium' } }).withResponse();
      assert.deepEqual(routing(sdkAnswer(responses)), ['svc-pro', 'code', 'svc-pro']);
      const none = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: CODE }], reasoning_effort: 'none' }).withResponse();
      assert.deepEqual(routing(sdkAnswer(none)), ['svc-fast', 'code', 'svc-fast']);
      // An image still needs the model that sees, which reasons here too.
      const image = await openai.chat.completions
        .create({ model: 'svc-auto', reasoning_effort: 'high', messages: [{ role: 'user', content: [{ type: 'text', text: 'What is wrong in this screenshot?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } }] }] })
        .withResponse();
      assert.deepEqual(routing(sdkAnswer(image)), ['svc-vision', 'vision', 'svc-vision']);
    });
  });

  describe('long context', () => {
    // About 210K tokens by the tokenizer, which svc-auto's rule counts (over its 200,000; over
    // svc-shiplow's 131,072). At 150K tokens svc-auto takes svc-fast (test/routing-28.test.ts).
    const long = 'The quarterly report says sales grew in every region. '.repeat(21_000) + '\nSummarise this report.';

    it('svc-auto sends a prompt over 200K tokens to svc-pro; svc-ultra takes it; svc-shiplow refuses it by its own context', async () => {
      const auto = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: long }] }).withResponse();
      assert.deepEqual(routing(sdkAnswer(auto)), ['svc-pro', 'general', 'svc-pro']);
      const ultra = await openai.chat.completions.create({ model: 'svc-ultra', messages: [{ role: 'user', content: long }] }).withResponse();
      assert.deepEqual(routing(sdkAnswer(ultra)), ['svc-ultra', 'general', 'svc-pro']);
      await assert.rejects(openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: long }] }), (e: { status?: number; error?: unknown }) => {
        assert.equal(e.status, 400);
        assert.match(JSON.stringify(e.error), /exceeds the context of model svc-shiplow \(131072 tokens\)/);
        return true;
      });
    });
  });

  describe('the bill matches what served', () => {
    const usage = { input: 1200, cached: 0, output: 300 };
    let payer: TestAccount;
    before(async () => {
      payer = await createTestAccount(g.t, { credits: 1_000 });
    });

    it('svc-shiplow bills its own prices whichever executor served; svc-auto the chosen model', async () => {
      const openai = g.client(payer.key);
      await expectRouted(g, payer, async () => sdkAnswer(await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: PROMPTS.math[1] }] }).withResponse()), {
        lane: 'math', executor: 'svc-pro', answerModel: 'svc-shiplow', fake: g.anthropic, upstreamModel: 'claude-opus-4-1', usage,
        prices: PRICES['svc-shiplow'], record: { model: 'svc-shiplow', servedModel: 'svc-pro' },
      });
      await expectRouted(g, payer, async () => sdkAnswer(await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: PROMPTS.code[0] }] }).withResponse()), {
        lane: 'code', executor: 'svc-fast', answerModel: 'svc-fast', fake: g.openai, upstreamModel: 'gpt-4.1-mini', usage,
        prices: PRICES['svc-fast'], record: { model: 'svc-auto', servedModel: 'svc-fast' },
      });
    });
  });

  describe('fallbacks when the chosen executor fails', () => {
    const usage = { input: 800, cached: 0, output: 200 };
    let payer: TestAccount;
    let client: OpenAI;
    before(async () => {
      payer = await createTestAccount(g.t, { credits: 1_000 });
      client = g.client(payer.key);
    });

    it("svc-pro's Anthropic deployment down: its OpenAI one serves svc-shiplow's math, billed at svc-shiplow's prices", async () => {
      g.anthropic.chat.enqueue({ error: { status: 500, type: 'api_error', message: 'Internal server error' } });
      await expectRouted(g, payer, async () => sdkAnswer(await client.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: PROMPTS.math[0] }] }).withResponse()), {
        lane: 'math', executor: 'svc-pro', answerModel: 'svc-shiplow', fake: g.openai, upstreamModel: 'gpt-4.1', usage,
        prices: PRICES['svc-shiplow'], record: { model: 'svc-shiplow', servedModel: 'svc-pro' },
      });
    });

    it('both of svc-pro\'s deployments down: svc-fast serves svc-shiplow\'s math and says so', async () => {
      const before = await accountCredits(g.t, payer.id);
      const rows = (await usageRows(g.t, payer.id)).length;
      const calls = g.openai.requests.length;
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ error: { status: 503, message: 'unavailable' } }, { text: 'Six.', usage });
      const r = await client.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: PROMPTS.math[4] }] }).withResponse();
      assert.deepEqual(routing(sdkAnswer(r)), ['svc-shiplow', 'math', 'svc-fast']);
      assert.deepEqual(g.openai.requests.slice(calls).map((q) => (q.body as { model: string }).model), ['gpt-4.1', 'gpt-4.1-mini']);
      const row = (await waitForUsage(g.t, payer.id, rows + 1))[0]!;
      assert.deepEqual([row.model, row.served_model, row.lane, row.provider, row.upstream_model], ['svc-shiplow', 'svc-fast', 'math', 'openai-main', 'gpt-4.1-mini']);
      const cost = expectedCost(PRICES['svc-shiplow'], usage);
      assert.equal(BigInt(row.cost_micro), cost);
      assert.equal(before.credits - (await accountCredits(g.t, payer.id)).credits, cost);
    });

    it("svc-ultra streamed: svc-pro down before the first byte, svc-fast serves the stream", async () => {
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ error: { status: 500, message: 'boom' } });
      const r = await streamedAnswer(openai.chat.completions.create({ model: 'svc-ultra', messages: [{ role: 'user', content: PROMPTS.general[0] }], stream: true }).withResponse(), streamModel.chat);
      assert.deepEqual(routing(r), ['svc-ultra', 'general', 'svc-fast']);
    });

    it("svc-vision's Anthropic deployment down: its OpenAI one answers the image", async () => {
      g.anthropic.chat.enqueue({ error: { status: 500, type: 'api_error', message: 'Internal server error' } });
      const r = await anthropic.messages
        .create({ model: 'svc-ultra', max_tokens: 300, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }, { type: 'text', text: 'What is this?' }] }] })
        .withResponse();
      assert.deepEqual(routing(sdkAnswer(r)), ['svc-ultra', 'vision', 'svc-vision']);
      assert.equal((g.openai.requests.at(-1)!.body as { model: string }).model, 'gpt-4.1');
    });

    it("svc-auto's chosen model down on both deployments: a 5xx naming svc-auto's choice, no routing headers", async () => {
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ error: { status: 503, message: 'unavailable' } });
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-auto', messages: [{ role: 'user', content: PROMPTS.math[1] }] }),
      });
      const body = await r.text();
      assert.ok(r.status >= 500, `${r.status} ${body}`);
      assert.doesNotMatch(body, /claude|gpt|anthropic|openai/i);
      assert.equal(r.headers.get('x-svc-model'), null);
    });
  });
});
