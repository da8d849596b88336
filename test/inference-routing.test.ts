import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { PRICES, UPSTREAM_MODELS, catalogYaml, startGateway, usageRows, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { expectRouted, openaiAnswer, type RoutedAnswer } from './helpers/routing.ts';

// A 1x1 PNG.
const PNG_DATA_URI =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const USAGE = { input: 321, cached: 0, output: 45 };
const MINI_PRICES = { input: 100_000n, cached: 25_000n, output: 200_000n };

/**
 * The shared test catalog plus svc-mini (a cheap model with a small context) among svc-auto's
 * candidates, and a second executor in svc-shiplow's general lane.
 */
function routingCatalog(f: Parameters<typeof catalogYaml>[0]): string {
  return catalogYaml(f)
    .replace('candidates: [svc-fast, svc-vision, svc-pro]', 'candidates: [svc-mini, svc-fast, svc-vision, svc-pro]')
    .replace(
      'models:\n',
      `models:
  - id: svc-mini
    type: chat
    context: 2000
    max_output: 1000
    pricing: { input: 0.10, cached_input: 0.025, output: 0.20 }
    deployments: [{ provider: main-openai, model: gpt-4.1-nano }]
`,
    )
    .replace('general: svc-fast }\n  - id: svc-fast', 'general: [svc-fast, svc-pro] }\n  - id: svc-fast');
}

async function streamed(p: Promise<{ data: AsyncIterable<{ model: string }>; response: Response }>): Promise<RoutedAnswer> {
  const { data, response } = await p;
  const models = new Set<string>();
  for await (const c of data) models.add(c.model);
  assert.equal(models.size, 1, 'every chunk names one model');
  return { model: [...models][0]!, header: (n) => response.headers.get(n) };
}

describe('routing pipelines and svc-auto, end to end through the openai SDK', () => {
  let g: Gateway;
  let acct: TestAccount;
  let c: OpenAI;
  before(async () => {
    g = await startGateway({ catalog: routingCatalog, env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 1000 });
    c = g.client(acct.key);
  });
  after(() => g.close());

  const shiplow = (model: string, lane: string, executor: keyof typeof PRICES) => ({
    lane,
    executor,
    answerModel: model,
    usage: USAGE,
    prices: PRICES[model as keyof typeof PRICES],
    record: { model, servedModel: executor },
  });

  describe('svc-shiplow lanes reach their executors, billed at svc-shiplow prices', () => {
    for (const stream of [false, true]) {
      const mode = stream ? 'streamed' : 'not streamed';
      it(`general -> svc-fast, chat completions, ${mode}`, async () => {
        const body = { model: 'svc-shiplow', messages: [{ role: 'user' as const, content: 'Tell me about the weather.' }] };
        await expectRouted(g, acct, () => (stream ? streamed(c.chat.completions.create({ ...body, stream: true }).withResponse()) : c.chat.completions.create(body).withResponse().then(openaiAnswer)), {
          ...shiplow('svc-shiplow', 'general', 'svc-fast'),
          fake: g.openai,
          upstreamModel: UPSTREAM_MODELS.fast,
        });
      });

      it(`vision -> svc-vision (images accepted), chat completions, ${mode}`, async () => {
        const body = {
          model: 'svc-shiplow',
          messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'What is this?' }, { type: 'image_url' as const, image_url: { url: PNG_DATA_URI } }] }],
        };
        await expectRouted(g, acct, () => (stream ? streamed(c.chat.completions.create({ ...body, stream: true }).withResponse()) : c.chat.completions.create(body).withResponse().then(openaiAnswer)), {
          ...shiplow('svc-shiplow', 'vision', 'svc-vision'),
          fake: g.anthropic,
          upstreamModel: UPSTREAM_MODELS.vision,
        });
      });

      it(`agent -> svc-pro, chat completions, ${mode}`, async () => {
        const body = {
          model: 'svc-shiplow',
          messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
          tools: [{ type: 'function' as const, function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        };
        await expectRouted(g, acct, () => (stream ? streamed(c.chat.completions.create({ ...body, stream: true }).withResponse()) : c.chat.completions.create(body).withResponse().then(openaiAnswer)), {
          ...shiplow('svc-shiplow', 'agent', 'svc-pro'),
          fake: g.anthropic,
          upstreamModel: UPSTREAM_MODELS.pro,
        });
      });

      it(`general -> svc-fast and svc-ultra general -> svc-pro, completions, ${mode}`, async () => {
        for (const [model, executor, fake, upstreamModel] of [
          ['svc-shiplow', 'svc-fast', g.openai, UPSTREAM_MODELS.fast],
          ['svc-ultra', 'svc-pro', g.anthropic, UPSTREAM_MODELS.pro],
        ] as const) {
          const body = { model, prompt: 'Once upon a time' };
          await expectRouted(g, acct, () => (stream ? streamed(c.completions.create({ ...body, stream: true }).withResponse()) : c.completions.create(body).withResponse().then(openaiAnswer)), {
            ...shiplow(model, 'general', executor),
            fake,
            upstreamModel,
          });
        }
      });
    }

    it('svc-ultra takes images through its vision lane', async () => {
      const body = { model: 'svc-ultra', messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: { url: PNG_DATA_URI } }] }] };
      await expectRouted(g, acct, () => c.chat.completions.create(body).withResponse().then(openaiAnswer), {
        ...shiplow('svc-ultra', 'vision', 'svc-vision'),
        fake: g.anthropic,
        upstreamModel: UPSTREAM_MODELS.vision,
      });
    });

    it("falls back to the lane's next executor when the first fails, and names the one that served", async () => {
      g.openai.chat.enqueue({ error: { status: 503 } });
      const seenOpenAI = g.openai.requests.length;
      await expectRouted(g, acct, () => c.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'hello' }] }).withResponse().then(openaiAnswer), {
        ...shiplow('svc-shiplow', 'general', 'svc-pro'),
        fake: g.anthropic,
        upstreamModel: UPSTREAM_MODELS.pro,
      });
      assert.equal(g.openai.requests.length, seenOpenAI + 1, 'svc-fast was tried first');
    });

    it('serves chat and completions requests that name no model with svc-shiplow', async () => {
      const none = undefined as unknown as string;
      await expectRouted(g, acct, () => c.chat.completions.create({ model: none, messages: [{ role: 'user', content: 'hi' }] }).withResponse().then(openaiAnswer), {
        ...shiplow('svc-shiplow', 'general', 'svc-fast'),
        fake: g.openai,
        upstreamModel: UPSTREAM_MODELS.fast,
      });
      await expectRouted(g, acct, () => c.completions.create({ model: none, prompt: 'hi' }).withResponse().then(openaiAnswer), {
        ...shiplow('svc-shiplow', 'general', 'svc-fast'),
        fake: g.openai,
        upstreamModel: UPSTREAM_MODELS.fast,
      });
    });
  });

  describe('svc-auto picks a model and bills at its prices', () => {
    const auto = (chosen: string, lane: string, prices: typeof MINI_PRICES) => ({
      lane,
      executor: chosen,
      answerModel: chosen,
      usage: USAGE,
      prices,
      record: { model: 'svc-auto', servedModel: chosen },
    });

    it('the cheap small model for a short question', async () => {
      await expectRouted(g, acct, () => c.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: 'What is the capital of France?' }] }).withResponse().then(openaiAnswer), {
        ...auto('svc-mini', 'general', MINI_PRICES),
        fake: g.openai,
        upstreamModel: 'gpt-4.1-nano',
      });
    });

    it("a long-context model for a prompt longer than the small model's context, streamed", async () => {
      const long = 'Summarise this log line please. '.repeat(400);
      await expectRouted(g, acct, () => streamed(c.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: long }], stream: true }).withResponse()), {
        ...auto('svc-fast', 'general', PRICES['svc-fast']),
        fake: g.openai,
        upstreamModel: UPSTREAM_MODELS.fast,
      });
    });

    it('the vision model for an image', async () => {
      const body = { model: 'svc-auto', messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: { url: PNG_DATA_URI } }] }] };
      await expectRouted(g, acct, () => c.chat.completions.create(body).withResponse().then(openaiAnswer), {
        ...auto('svc-vision', 'vision', PRICES['svc-vision']),
        fake: g.anthropic,
        upstreamModel: UPSTREAM_MODELS.vision,
      });
    });

    it('answers 400 naming the need when no candidate can take the request', async () => {
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-auto', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2_000_000 }),
      });
      assert.equal(r.status, 400);
      assert.match(((await r.json()) as { error: string }).error, /^model svc-auto: no model it chooses from takes this request \(.*2000000 output tokens\)$/);
      assert.equal((await usageRows(g.t, acct.id)).filter((u) => u.status === 400).length, 0, 'refused before any hold');
    });
  });
});
