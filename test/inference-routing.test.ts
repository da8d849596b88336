import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { PRICES, UPSTREAM_MODELS, catalogYaml, startGateway, usageRows, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { expectRouted, sdkAnswer, streamModel, streamedAnswer, type RoutedAnswer } from './helpers/routing.ts';

// A 1x1 PNG.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG_DATA_URI = `data:image/png;base64,${PNG_BASE64}`;

const USAGE = { input: 321, cached: 0, output: 45 };
const MINI_PRICES = { input: 100_000n, cached: 25_000n, output: 200_000n };

/** The executor of each svc-shiplow lane in the routing catalog: a different brand and upstream model for each. */
const LANE_EXECUTORS = {
  general: { executor: 'svc-fast', fake: 'openai', upstreamModel: UPSTREAM_MODELS.fast },
  vision: { executor: 'svc-vision', fake: 'anthropic', upstreamModel: UPSTREAM_MODELS.vision },
  agent: { executor: 'svc-pro', fake: 'anthropic', upstreamModel: UPSTREAM_MODELS.pro },
  code: { executor: 'svc-coder', fake: 'openai', upstreamModel: 'gpt-5-codex' },
  math: { executor: 'svc-math', fake: 'openai', upstreamModel: 'o4-mini' },
  multilingual: { executor: 'svc-lingo', fake: 'anthropic', upstreamModel: 'claude-haiku-4-5' },
} as const;
type LaneName = keyof typeof LANE_EXECUTORS;

/**
 * The shared test catalog plus svc-mini (a cheap model with a small context) among svc-auto's
 * candidates, and svc-shiplow with its own executor for each lane (a second one in the general
 * lane).
 */
function routingCatalog(f: Parameters<typeof catalogYaml>[0]): string {
  const shiplow = 'pipeline: { code: svc-fast, agent: svc-pro, math: svc-pro, vision: svc-vision, multilingual: svc-fast, general: svc-fast }';
  const yaml = catalogYaml(f);
  assert.ok(yaml.includes(shiplow), "the test catalog's svc-shiplow pipeline");
  return yaml
    .replace('candidates: [svc-fast, svc-vision, svc-pro]', 'candidates: [svc-mini, svc-fast, svc-vision, svc-pro]')
    .replace(shiplow, 'pipeline: { code: svc-coder, agent: svc-pro, math: svc-math, vision: svc-vision, multilingual: svc-lingo, general: [svc-fast, svc-pro] }')
    .replace(
      'models:\n',
      `models:
  - id: svc-mini
    type: chat
    context: 2000
    max_output: 1000
    pricing: { input: 0.10, cached_input: 0.025, output: 0.20 }
    deployments: [{ provider: main-openai, model: gpt-4.1-nano }]
  - id: svc-coder
    type: chat
    context: 400000
    pricing: { input: 1.25, output: 10.00 }
    deployments: [{ provider: main-openai, model: ${LANE_EXECUTORS.code.upstreamModel} }]
  - id: svc-math
    type: chat
    context: 200000
    pricing: { input: 1.10, output: 4.40 }
    deployments: [{ provider: main-openai, model: ${LANE_EXECUTORS.math.upstreamModel} }]
  - id: svc-lingo
    type: chat
    context: 200000
    pricing: { input: 1.00, output: 5.00 }
    deployments: [{ provider: main-anthropic, model: ${LANE_EXECUTORS.multilingual.upstreamModel} }]
`,
    );
}

/** A request of one lane, said the same way in every protocol. */
interface LaneRequest {
  readonly text: string;
  readonly image?: boolean;
  readonly tool?: boolean;
}

const LANE_REQUESTS: Record<LaneName, LaneRequest> = {
  general: { text: 'Tell me about the weather.' },
  vision: { text: 'What is this?', image: true },
  agent: { text: 'What is the weather in Paris?', tool: true },
  code: { text: 'Fix this Python function, it returns the wrong sum:\n\ndef add(a, b):\n    return a - b' },
  math: { text: 'Solve for x: 3x + 7 = 22. Show the steps.' },
  multilingual: { text: '¿Cuáles son los mejores lugares para visitar en Madrid en primavera?' },
};

const CITY_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** Sends a request through one protocol's official SDK; `model` undefined leaves the field out. */
type Send = (model: string | undefined, req: LaneRequest, stream: boolean) => Promise<RoutedAnswer>;

function protocols(openai: () => OpenAI, anthropic: () => Anthropic): { name: string; send: Send }[] {
  return [
    {
      name: 'chat completions',
      send(model, req, stream) {
        const body = {
          model: model as string,
          messages: [{ role: 'user' as const, content: req.image ? [{ type: 'text' as const, text: req.text }, { type: 'image_url' as const, image_url: { url: PNG_DATA_URI } }] : req.text }],
          ...(req.tool ? { tools: [{ type: 'function' as const, function: { name: 'weather', parameters: CITY_SCHEMA } }] } : {}),
        };
        const c = openai().chat.completions;
        return stream ? streamedAnswer(c.create({ ...body, stream: true }).withResponse(), streamModel.chat) : c.create(body).withResponse().then(sdkAnswer);
      },
    },
    {
      name: 'messages',
      send(model, req, stream) {
        const body = {
          model: model as string,
          max_tokens: 200,
          messages: [
            {
              role: 'user' as const,
              content: req.image ? [{ type: 'text' as const, text: req.text }, { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG_BASE64 } }] : req.text,
            },
          ],
          ...(req.tool ? { tools: [{ name: 'weather', input_schema: CITY_SCHEMA as Anthropic.Tool.InputSchema }] } : {}),
        };
        const c = anthropic().messages;
        return stream ? streamedAnswer(c.create({ ...body, stream: true }).withResponse(), streamModel.messages) : c.create(body).withResponse().then(sdkAnswer);
      },
    },
    {
      name: 'responses',
      send(model, req, stream) {
        const body = {
          model: model as string,
          input: req.image
            ? [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: req.text }, { type: 'input_image' as const, image_url: PNG_DATA_URI, detail: 'auto' as const }] }]
            : req.text,
          ...(req.tool ? { tools: [{ type: 'function' as const, name: 'weather', parameters: CITY_SCHEMA, strict: false }] } : {}),
        };
        const c = openai().responses;
        return stream ? streamedAnswer(c.create({ ...body, stream: true }).withResponse(), streamModel.responses) : c.create(body).withResponse().then(sdkAnswer);
      },
    },
  ];
}

describe('routing pipelines and svc-auto, end to end through the official SDKs', () => {
  let g: Gateway;
  let acct: TestAccount;
  let c: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    g = await startGateway({ catalog: routingCatalog, env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 1000 });
    c = g.client(acct.key);
    anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  });
  after(() => g.close());
  const PROTOCOLS = protocols(
    () => c,
    () => anthropic,
  );

  const shiplow = (model: string, lane: string, executor: string) => ({
    lane,
    executor,
    answerModel: model,
    usage: USAGE,
    prices: PRICES[model as keyof typeof PRICES],
    record: { model, servedModel: executor },
  });
  const laneExecutor = (lane: LaneName) => {
    const e = LANE_EXECUTORS[lane];
    return { ...shiplow('svc-shiplow', lane, e.executor), fake: g[e.fake], upstreamModel: e.upstreamModel };
  };

  describe('svc-shiplow lanes reach their executors, billed at svc-shiplow prices', () => {
    for (const protocol of PROTOCOLS) {
      for (const stream of [false, true]) {
        const mode = stream ? 'streamed' : 'not streamed';
        for (const lane of Object.keys(LANE_EXECUTORS) as LaneName[]) {
          it(`${lane} -> ${LANE_EXECUTORS[lane].executor}, ${protocol.name}, ${mode}`, async () => {
            await expectRouted(g, acct, () => protocol.send('svc-shiplow', LANE_REQUESTS[lane], stream), laneExecutor(lane));
          });
        }
      }

      it(`serves a ${protocol.name} request that names no model with svc-shiplow`, async () => {
        await expectRouted(g, acct, () => protocol.send(undefined, { text: 'hi' }, false), laneExecutor('general'));
      });
    }

    for (const stream of [false, true]) {
      const mode = stream ? 'streamed' : 'not streamed';
      it(`general -> svc-fast and svc-ultra general -> svc-pro, completions, ${mode}`, async () => {
        for (const [model, executor, fake, upstreamModel] of [
          ['svc-shiplow', 'svc-fast', g.openai, UPSTREAM_MODELS.fast],
          ['svc-ultra', 'svc-pro', g.anthropic, UPSTREAM_MODELS.pro],
        ] as const) {
          const body = { model, prompt: 'Once upon a time' };
          await expectRouted(g, acct, () => (stream ? streamedAnswer(c.completions.create({ ...body, stream: true }).withResponse(), streamModel.chat) : c.completions.create(body).withResponse().then(sdkAnswer)), {
            ...shiplow(model, 'general', executor),
            fake,
            upstreamModel,
          });
        }
      });
    }

    it('svc-ultra takes images through its vision lane', async () => {
      const body = { model: 'svc-ultra', messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: { url: PNG_DATA_URI } }] }] };
      await expectRouted(g, acct, () => c.chat.completions.create(body).withResponse().then(sdkAnswer), {
        ...shiplow('svc-ultra', 'vision', 'svc-vision'),
        fake: g.anthropic,
        upstreamModel: UPSTREAM_MODELS.vision,
      });
    });

    it("falls back to the lane's next executor when the first fails, and names the one that served", async () => {
      g.openai.chat.enqueue({ error: { status: 503 } });
      const seenOpenAI = g.openai.requests.length;
      await expectRouted(g, acct, () => c.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'hello' }] }).withResponse().then(sdkAnswer), {
        ...shiplow('svc-shiplow', 'general', 'svc-pro'),
        fake: g.anthropic,
        upstreamModel: UPSTREAM_MODELS.pro,
      });
      assert.equal(g.openai.requests.length, seenOpenAI + 1, 'svc-fast was tried first');
    });

    it('serves completions requests that name no model with svc-shiplow', async () => {
      const none = undefined as unknown as string;
      await expectRouted(g, acct, () => c.completions.create({ model: none, prompt: 'hi' }).withResponse().then(sdkAnswer), laneExecutor('general'));
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

    for (const protocol of PROTOCOLS) {
      it(`the cheap small model for a short question, ${protocol.name}`, async () => {
        await expectRouted(g, acct, () => protocol.send('svc-auto', { text: 'What is the capital of France?' }, false), {
          ...auto('svc-mini', 'general', MINI_PRICES),
          fake: g.openai,
          upstreamModel: 'gpt-4.1-nano',
        });
      });

      it(`a long-context model for a prompt longer than the small model's context, ${protocol.name}, streamed`, async () => {
        // About 4,300 tokens by the reservation's estimate: over svc-mini's 2,000.
        const long = 'Summarise this log line please. '.repeat(400);
        await expectRouted(g, acct, () => protocol.send('svc-auto', { text: long }, true), {
          ...auto('svc-fast', 'general', PRICES['svc-fast']),
          fake: g.openai,
          upstreamModel: UPSTREAM_MODELS.fast,
        });
      });

      it(`the vision model for an image, ${protocol.name}`, async () => {
        await expectRouted(g, acct, () => protocol.send('svc-auto', { text: 'What is this?', image: true }, false), {
          ...auto('svc-vision', 'vision', PRICES['svc-vision']),
          fake: g.anthropic,
          upstreamModel: UPSTREAM_MODELS.vision,
        });
      });
    }

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
