import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { accountCredits, catalogYaml, expectedCost, PRICES, startGateway, usageRows, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { IMAGE_URL_PARTS_TURN, PNG_BASE64 } from './helpers/images.ts';


/** The OpenAI-style message parts the upstream received in its last request. */
type SentMessage = { role: string; content: string | { type: string; text?: string; image_url?: { url: string; detail?: string } }[] };

/**
 * Images sent by an Anthropic client to a vision model served by an OpenAI-compatible upstream:
 * the test catalog with svc-vision on the OpenAI-style fake instead of the Anthropic one.
 */
describe('/inference/v1/messages: images on an OpenAI-compatible upstream', () => {
  let g: Gateway;
  let acct: TestAccount;
  let client: Anthropic;
  let spent: bigint;

  before(async () => {
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' },
      catalog: (f) => {
        const yaml = catalogYaml(f);
        const anthropicVision = 'deployments: [{ provider: main-anthropic, model: claude-sonnet-4-5 }]';
        assert.ok(yaml.includes(anthropicVision));
        return yaml.replace(anthropicVision, 'deployments: [{ provider: main-openai, model: gpt-4.1 }]');
      },
    });
    acct = await createTestAccount(g.t, { credits: 1_000 });
    client = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  });
  after(() => g.close());
  beforeEach(async () => {
    spent = (await accountCredits(g.t, acct.id)).credits;
  });

  /** The balance change since the last check equals the usages at svc-vision's prices. */
  async function assertBilled(usages: { input: number; cached: number; output: number }[]): Promise<void> {
    const { credits } = await accountCredits(g.t, acct.id);
    const want = usages.reduce((n, u) => n + expectedCost(PRICES['svc-vision'], u), 0n);
    assert.equal(spent - credits, want, `charged for ${JSON.stringify(usages)}`);
    const row = (await usageRows(g.t, acct.id))[0]!;
    assert.equal(row.model, 'svc-vision');
    assert.equal(row.endpoint, 'messages');
    spent = credits;
  }

  function sentUser(): SentMessage {
    const body = g.openai.requests.at(-1)!.body as { messages: SentMessage[] };
    return body.messages.find((m) => m.role === 'user')!;
  }

  for (const streamed of [false, true]) {
    const how = streamed ? 'streamed' : 'not streamed';
    it(`an image block by base64 becomes an image_url data URI part, ${how}`, async () => {
      const usage = { input: 812, cached: 0, output: 9 };
      g.openai.chat.enqueue({ text: 'A single pixel.', usage });
      const ask = {
        model: 'svc-vision',
        max_tokens: 100,
        messages: [{ role: 'user' as const, content: [{ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG_BASE64 } }, { type: 'text' as const, text: 'What is this?' }] }],
      };
      const m = streamed ? await client.messages.stream(ask).finalMessage() : await client.messages.create(ask);
      assert.equal((m.content[0] as Anthropic.TextBlock).text, 'A single pixel.');
      assert.equal(m.model, 'svc-vision');
      assert.deepEqual(m.usage.input_tokens, 812);
      assert.deepEqual(sentUser().content, [
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        { type: 'text', text: 'What is this?' },
      ]);
      await assertBilled([usage]);
    });

    it(`an image block by url becomes an image_url part with that url, ${how}`, async () => {
      const usage = { input: 790, cached: 128, output: 6 };
      g.openai.chat.enqueue({ text: 'A cat.', usage });
      const ask = {
        model: 'svc-vision',
        max_tokens: 100,
        messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Describe:' }, { type: 'image' as const, source: { type: 'url' as const, url: 'https://example.com/cat.png' } }] }],
      };
      const m = streamed ? await client.messages.stream(ask).finalMessage() : await client.messages.create(ask);
      assert.equal((m.content[0] as Anthropic.TextBlock).text, 'A cat.');
      assert.equal(m.usage.cache_read_input_tokens, 128);
      assert.deepEqual(sentUser().content, [
        { type: 'text', text: 'Describe:' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      ]);
      await assertBilled([usage]);
    });
  }

  it('the image_url parts of the service message object: by url with its detail, and by data URI', async () => {
    const usage = { input: 1600, cached: 0, output: 11 };
    g.openai.chat.enqueue({ text: 'Two images.', usage });
    const m = await client.messages.create({
      model: 'svc-vision',
      max_tokens: 100,
      messages: [
        IMAGE_URL_PARTS_TURN,
      ],
    });
    assert.equal((m.content[0] as Anthropic.TextBlock).text, 'Two images.');
    assert.deepEqual(sentUser().content, [
      { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg', detail: 'low' } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      { type: 'text', text: 'Compare.' },
    ]);
    await assertBilled([usage]);
  });

  it('a bad image_url part is a 400 naming the field, and costs nothing', async () => {
    await assert.rejects(
      client.messages.create({ model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/x.png' } }] as never }] }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && JSON.stringify(e.error).includes('messages[0].content[0].image_url.url: must be an http(s) URL or a base64 data URI'),
    );
    await assert.rejects(
      client.messages.create({ model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/x.png', detail: 'ultra' } }] as never }] }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && JSON.stringify(e.error).includes('messages[0].content[0].image_url.detail: must be one of auto, low, high'),
    );
    await assertBilled([]);
  });
});
