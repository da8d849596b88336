import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { charged } from './helpers/books.ts';
import { catalogYaml, IMAGE_PRICE, startGateway, startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a twelfth audit of the inference API, tried as a new user would with the official
 * `openai` client and plain HTTP (docs/api-decisions.md, "Inference: twelfth audit").
 */
describe('inference API, twelfth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const { post, refused } = auditRequests(() => ({ g, key: acct.key }));
  const imageCalls = () => g.openai.requests.filter((r) => r.path === '/v1/images/generations').length;

  describe('image generation without a model (OpenAI\'s images API has a default model)', () => {
    it('is served by the catalog\'s image model, through the SDK and plain HTTP, billed per image', async () => {
      const before = imageCalls();
      const { charge, row } = await charged(g, acct, async () => {
        // The SDK types `model` as optional, as OpenAI defaults it.
        const r = await openai.images.generate({ prompt: 'a lighthouse at dusk', n: 2, response_format: 'b64_json' });
        assert.equal(r.data?.length, 2);
        assert.ok(r.data?.every((d) => typeof d.b64_json === 'string' && d.b64_json.length > 0));
      });
      assert.equal(imageCalls(), before + 1);
      assert.deepEqual([row.model, row.endpoint, row.image_count, charge], ['svc-image', 'images.generations', 2, 2n * IMAGE_PRICE]);

      for (const body of [{ prompt: 'a cat' }, { model: null, prompt: 'a cat' }]) {
        const r = await post('/v1/images/generations', body);
        assert.equal(r.status, 200, `${JSON.stringify(body)}: ${await r.clone().text()}`);
        const j = (await r.json()) as { data: unknown[] };
        assert.equal(j.data.length, 1);
      }
    });

    it('still names the model field when the catalog has no single image model, and refuses the prompt first', async () => {
      await refused('/v1/images/generations', { model: null }, 'prompt: is required');
      const noImages = await startGateway({
        catalog: (f) => catalogYaml(f).replace(/ {2}- id: svc-image\n(?: {4}.*\n)+/, ''),
      });
      try {
        const a = await createTestAccount(noImages.t, { credits: 100 });
        const r = await noImages.client(a.key).images.generate({ prompt: 'a cat' }).then(() => null, (e: unknown) => e);
        assert.ok(r instanceof OpenAI.BadRequestError, String(r));
        assert.equal(r.error, 'model: is required');
      } finally {
        await noImages.close();
      }
    });
  });

  describe('compressed request bodies', () => {
    const body = JSON.stringify({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });

    it('are a 415 naming the encoding, not a "malformed JSON body", after the key check', async () => {
      for (const encoding of ['gzip', 'deflate', 'br', 'GZIP']) {
        const r = await fetch(`${g.t.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', 'content-encoding': encoding },
          body: gzipSync(body),
        });
        assert.equal(r.status, 415, encoding);
        assert.deepEqual(await r.json(), { error: 'unsupported content-encoding; send the body uncompressed' });
        assert.ok(r.headers.get('x-ratelimit-limit-requests'), 'after the rate-limit check, like every body error');
      }
      const noKey = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(body),
      });
      assert.equal(noKey.status, 401);
    });

    it('`identity` is no encoding', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', 'content-encoding': 'identity' },
        body,
      });
      assert.equal(r.status, 200, await r.clone().text());
    });
  });

  describe('base64 images: the types every upstream takes, labelled as their bytes are', () => {
    const JPEG = '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U';
    const WEBP = 'UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=';
    const SVG = 'PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=';
    const chatImage = (url: string) => [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] }];
    /** The base64 sources the Anthropic upstream got in its last request. */
    const sentSources = () => {
      const body = g.anthropic.requests.at(-1)!.body as { messages: { content: { type: string; source?: { type: string; media_type: string; data: string } }[] }[] };
      return body.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'image' && b.source?.type === 'base64' ? [b.source.media_type] : [])));
    };

    it('a data URI of another type (SVG, BMP) is a 400 naming the field on every protocol, before any upstream call', async () => {
      for (const type of ['image/svg+xml', 'image/bmp', 'image/heic']) {
        const url = `data:${type};base64,${SVG}`;
        const not = `must be a JPEG, PNG, GIF or WebP image, not ${type}`;
        await refused('/v1/chat/completions', { model: 'svc-vision', messages: chatImage(url) }, `messages[0].content[1].image_url.url: ${not}`);
        await refused('/v1/messages', { model: 'svc-ultra', max_tokens: 50, messages: chatImage(url) }, `messages[0].content[1].image_url.url: ${not}`);
        await refused('/v1/messages/count_tokens', { model: 'svc-ultra', messages: chatImage(url) }, `messages[0].content[1].image_url.url: ${not}`);
        await refused(
          '/v1/responses',
          { model: 'svc-vision', input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: url }] }] },
          `input[0].content[1].image_url: ${not}`,
        );
      }
    });

    it('image/jpg (what many clients write) and upper-case schemes and types are read as the image types they name', async () => {
      for (const head of ['data:image/jpg', 'data:IMAGE/JPEG', 'DATA:Image/Jpg', 'Data:image/jpeg']) {
        g.anthropic.chat.enqueue({ text: 'a photo' });
        const c = await openai.chat.completions.create({ model: 'svc-vision', messages: chatImage(`${head};base64,${JPEG}`) as never });
        assert.equal(c.choices[0]!.message.content, 'a photo', head);
        assert.deepEqual(sentSources(), ['image/jpeg'], head);
      }
    });

    it('an image labelled with another type than its bytes is sent to Anthropic as the type of its bytes, on every protocol', async () => {
      const cases: [string, unknown][] = [
        ['/v1/chat/completions', { model: 'svc-vision', messages: chatImage(`data:image/png;base64,${JPEG}`) }],
        ['/v1/messages', { model: 'svc-vision', max_tokens: 50, messages: chatImage(`data:image/png;base64,${JPEG}`) }],
        [
          '/v1/messages',
          { model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: JPEG } }, { type: 'text', text: 'What is this?' }] }] },
        ],
        ['/v1/responses', { model: 'svc-vision', input: [{ role: 'user', content: [{ type: 'input_text', text: 'What?' }, { type: 'input_image', image_url: `data:image/png;base64,${JPEG}` }] }] }],
      ];
      for (const [path, body] of cases) {
        g.anthropic.chat.enqueue({ text: 'a photo' });
        const r = await post(path, body);
        assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
        await r.arrayBuffer();
        assert.deepEqual(sentSources(), ['image/jpeg'], path);
      }
      // A WebP labelled as itself stays as it is; so do bytes of no known type (the label is all there is).
      g.anthropic.chat.enqueue({ text: 'a photo' });
      await openai.chat.completions.create({ model: 'svc-vision', messages: chatImage(`data:image/webp;base64,${WEBP}`) as never });
      assert.deepEqual(sentSources(), ['image/webp']);
    });
  });

  describe('tool parameters: a JSON Schema object, as the document\'s tool definition has it', () => {
    const fn = (parameters: unknown) => ({ type: 'function', function: { name: 'get_weather', description: 'weather', parameters } });

    it('a schema of another type than object is a 400 naming it on every protocol, before any upstream call', async () => {
      for (const type of ['string', 'array', 'null']) {
        const schema = { type };
        await refused('/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], tools: [fn(schema)] }, 'tools[0].function.parameters.type: must be "object"');
        await refused('/v1/messages', { model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], tools: [fn(schema)] }, 'tools[0].function.parameters.type: must be "object"');
        await refused('/v1/messages', { model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'get_weather', input_schema: schema }] }, 'tools[0].input_schema.type: must be "object"');
        await refused('/v1/messages/count_tokens', { model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'get_weather', input_schema: schema }] }, 'tools[0].input_schema.type: must be "object"');
        await refused('/v1/responses', { model: 'svc-fast', input: 'hi', tools: [{ type: 'function', name: 'get_weather', parameters: schema }] }, 'tools[0].parameters.type: must be "object"');
        await refused('/v1/responses', { model: 'svc-fast', input: 'hi', tools: [fn(schema)] }, 'tools[0].function.parameters.type: must be "object"');
      }
    });

    it('a schema that leaves type out (properties alone, or {}) reaches an Anthropic upstream as the object schema it describes', async () => {
      const properties = { city: { type: 'string' } };
      const sentSchema = () => ((g.anthropic.requests.at(-1)!.body as { tools: { input_schema: unknown }[] }).tools[0]!.input_schema);
      for (const [path, body] of [
        ['/v1/chat/completions', { model: 'svc-vision', messages: [{ role: 'user', content: 'weather?' }], tools: [fn({ properties, required: ['city'] })] }],
        ['/v1/messages', { model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: 'weather?' }], tools: [{ name: 'get_weather', input_schema: { properties, required: ['city'] } }] }],
        ['/v1/responses', { model: 'svc-vision', input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { properties, required: ['city'] } }] }],
      ] as const) {
        g.anthropic.chat.enqueue({ text: 'sunny' });
        const r = await post(path, body);
        assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
        await r.arrayBuffer();
        assert.deepEqual(sentSchema(), { type: 'object', properties, required: ['city'] }, path);
      }
      g.anthropic.chat.enqueue({ text: 'sunny' });
      await openai.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: 'weather?' }], tools: [fn({}) as never] });
      assert.deepEqual(sentSchema(), { type: 'object' });
    });
  });
});
