import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { OUT_OF_CREDITS } from '../src/inference/billing/billing.ts';
import { fakeEmbedding } from './fakes/fake-openai.ts';
import { fakeRelevance } from './fakes/fake-rerank.ts';
import { startTestApp } from './helpers/app.ts';
import { postJson, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

const PNG_B64 = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
).toString('base64');

describe('embeddings, rerank, images and the typed errors of the openai client', () => {
  let g: Gateway;
  let acct: TestAccount;
  let client: OpenAI;
  before(async () => {
    g = await startGateway();
    acct = await createTestAccount(g.t, { credits: 10_000 });
    client = g.client(acct.key);
  });
  after(() => g.close());

  const post = (path: string, body: unknown, key = acct.key) => postJson(g, key, `/v1${path}`, body);

  describe('POST /v1/embeddings', () => {
    it('answers floats for a string or an array input', async () => {
      const r = await client.embeddings.create({ model: 'svc-embed', input: ['first text here', 'second'], encoding_format: 'float' });
      assert.equal(r.object, 'list');
      assert.equal(r.model, 'svc-embed');
      assert.deepEqual(r.data.map((d) => [d.object, d.index]), [['embedding', 0], ['embedding', 1]]);
      assert.deepEqual(r.data[0]!.embedding, fakeEmbedding('first text here', 8));
      assert.deepEqual(r.data[1]!.embedding, fakeEmbedding('second', 8));
      assert.deepEqual(r.usage, { prompt_tokens: 4, total_tokens: 4 });
      const one = await client.embeddings.create({ model: 'svc-embed', input: 'just one', encoding_format: 'float' });
      assert.equal(one.data.length, 1);
    });

    it('answers base64 (the SDK default), decoded by the SDK to the same floats, with dimensions', async () => {
      const r = await client.embeddings.create({ model: 'svc-embed', input: 'variable length', dimensions: 5 });
      assert.deepEqual(r.data[0]!.embedding, fakeEmbedding('variable length', 5));
      const sent = g.openai.requests.at(-1)!.body as Record<string, unknown>;
      assert.equal(sent.dimensions, 5);
      assert.equal(sent.model, 'text-embedding-3-small');
      const raw = (await (await post('/embeddings', { model: 'svc-embed', input: 'x y', encoding_format: 'base64' })).json()) as { data: { embedding: string }[] };
      assert.equal(typeof raw.data[0]!.embedding, 'string');
      const bytes = Buffer.from(raw.data[0]!.embedding, 'base64');
      const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      assert.deepEqual(Array.from(floats), fakeEmbedding('x y', 8));
    });

    it('refuses bad input naming the field, and chat models', async () => {
      const cases: [unknown, number, string][] = [
        [{ model: 'svc-embed' }, 400, 'input: is required'],
        [{ model: 'svc-embed', input: [1, 2] }, 400, 'input: must be a string or an array of strings'],
        [{ model: 'svc-embed', input: ['a', ''] }, 400, 'input[1]: must not be empty'],
        [{ model: 'svc-embed', input: 'a', encoding_format: 'hex' }, 400, 'encoding_format: must be one of float, base64'],
        [{ model: 'svc-embed', input: 'a', dimensions: 0 }, 400, 'dimensions: must be >= 1'],
        [{ model: 'svc-fast', input: 'a' }, 400, 'model svc-fast does not support /v1/embeddings'],
      ];
      for (const [body, status, error] of cases) {
        const r = await post('/embeddings', body);
        assert.equal(r.status, status, JSON.stringify(body));
        assert.deepEqual(await r.json(), { error });
      }
    });
  });

  describe('POST /v1/rerank', () => {
    const documents = ['the cat sat on the mat', 'dogs chase cats', 'a cat and a dog on the mat', 'nothing relevant'];
    const query = 'cat on the mat';
    const ranked = documents
      .map((d, index) => ({ index, relevance_score: fakeRelevance(query, d) }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);

    for (const flavour of ['jina', 'cohere'] as const) {
      it(`answers the Cohere/Jina v2 shape with top_n and return_documents (${flavour} upstream)`, async () => {
        g.rerank.flavour = flavour;
        const r = await post('/rerank', { model: 'svc-rerank', query, documents, top_n: 2, return_documents: true });
        assert.equal(r.status, 200);
        const body = (await r.json()) as { id: string; model: string; results: unknown[]; usage: { total_tokens: number } };
        assert.match(body.id, /^rerank-[A-Za-z0-9]{24}$/);
        assert.equal(body.model, 'svc-rerank');
        assert.deepEqual(
          body.results,
          ranked.slice(0, 2).map((x) => ({ index: x.index, relevance_score: x.relevance_score, document: { text: documents[x.index] } })),
        );
        assert.ok(body.usage.total_tokens > 0);

        const plain = (await (await post('/rerank', { model: 'svc-rerank', query, documents })).json()) as { results: { index: number; document?: unknown }[] };
        assert.equal(plain.results.length, documents.length);
        assert.ok(plain.results.every((x) => x.document === undefined));
        assert.equal((g.rerank.requests.at(-1)!.body as { model: string }).model, 'rerank-v3.5');
      });
    }

    it('refuses bad input naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ model: 'svc-rerank', documents: ['a'] }, 'query: is required'],
        [{ model: 'svc-rerank', query: 'q', documents: [] }, 'documents: must not be empty'],
        [{ model: 'svc-rerank', query: 'q', documents: ['a', 3] }, 'documents[1]: must be a string or an object with a text string'],
        [{ model: 'svc-rerank', query: 'q', documents: ['a'], top_n: 0 }, 'top_n: must be >= 1'],
      ];
      for (const [body, error] of cases) {
        const r = await post('/rerank', body);
        assert.equal(r.status, 400);
        assert.deepEqual(await r.json(), { error });
      }
    });
  });

  describe('POST /v1/images/generations', () => {
    it('answers base64 images or data URLs, never an upstream URL', async () => {
      const r = await client.images.generate({ model: 'svc-image', prompt: 'a red square', n: 2, response_format: 'b64_json' });
      assert.equal(r.data!.length, 2);
      assert.ok(r.data!.every((d) => d.b64_json === PNG_B64));
      assert.equal((g.openai.requests.at(-1)!.body as { model: string }).model, 'gpt-image-1');

      g.openai.imagesAsUrl = true;
      try {
        const u = await client.images.generate({ model: 'svc-image', prompt: 'a blue square' });
        assert.equal(u.data![0]!.url, `data:image/png;base64,${PNG_B64}`);
        assert.equal(u.data![0]!.revised_prompt, 'a blue square, in soft colours');
      } finally {
        g.openai.imagesAsUrl = false;
      }
    });

    it('refuses bad input naming the field', async () => {
      const r = await post('/images/generations', { model: 'svc-image', prompt: 'x', n: 11 });
      assert.equal(r.status, 400);
      assert.deepEqual(await r.json(), { error: 'n: must be <= 10' });
      const s = await post('/images/generations', { model: 'svc-image', prompt: 'x', size: 'big' });
      assert.deepEqual(await s.json(), { error: 'size: must be auto or WIDTHxHEIGHT, e.g. 1024x1024' });
    });

    it('has its own budget of 10 per minute: the 11th is a RateLimitError', async () => {
      const a = await createTestAccount(g.t, { credits: 10_000 });
      const c = g.client(a.key);
      for (let i = 0; i < 10; i++) await c.images.generate({ model: 'svc-image', prompt: `image ${i}`, response_format: 'b64_json' });
      await assert.rejects(c.images.generate({ model: 'svc-image', prompt: 'one too many' }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.RateLimitError);
        assert.equal(e.error as unknown, 'rate limit exceeded — try again in a minute');
        assert.ok(Number(e.headers?.get('retry-after')) >= 1);
        assert.equal(e.headers?.get('x-ratelimit-remaining-requests'), '0');
        return true;
      });
      // The chat budget is separate.
      g.openai.chat.enqueue({ text: 'still fine' });
      const chat = await c.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(chat.choices[0]!.message.content, 'still fine');
    });
  });

  describe('typed errors of the openai client', () => {
    it('401 AuthenticationError for a bad key', async () => {
      const bad = g.client('svk_' + 'x'.repeat(43));
      await assert.rejects(bad.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.AuthenticationError);
        assert.equal(e.error as unknown, 'unauthorized');
        return true;
      });
      await assert.rejects(bad.embeddings.create({ model: 'svc-embed', input: 'x' }), (e: unknown) => e instanceof OpenAI.AuthenticationError);
    });

    it('403 PermissionDeniedError for an unverified account', async () => {
      const unverified = await createTestAccount(g.t, { credits: 10, verified: false });
      await assert.rejects(g.client(unverified.key).completions.create({ model: 'svc-fast', prompt: 'x' }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.PermissionDeniedError);
        assert.equal(e.error as unknown, 'please verify your email first');
        return true;
      });
    });

    it('404 NotFoundError for an unknown model', async () => {
      await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.NotFoundError);
        assert.equal(e.error as unknown, 'model not found: gpt-4o');
        return true;
      });
      await assert.rejects(client.images.generate({ model: 'svc-nope', prompt: 'x' }), (e: unknown) => e instanceof OpenAI.NotFoundError);
    });

    it('402 APIError for an account without credits, on every endpoint, with no upstream call', async () => {
      const broke = await createTestAccount(g.t);
      const c = g.client(broke.key);
      const calls = () => g.openai.requests.length + g.anthropic.requests.length + g.rerank.requests.length;
      const before = calls();
      const is402 = (e: unknown) => e instanceof OpenAI.APIError && e.status === 402 && (e.error as unknown) === OUT_OF_CREDITS;
      await assert.rejects(c.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }), is402);
      await assert.rejects(c.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }], stream: true }), is402);
      await assert.rejects(c.completions.create({ model: 'svc-shiplow', prompt: 'x' }), is402);
      await assert.rejects(c.embeddings.create({ model: 'svc-embed', input: 'x' }), is402);
      await assert.rejects(c.images.generate({ model: 'svc-image', prompt: 'x' }), is402);
      const rr = await post('/rerank', { model: 'svc-rerank', query: 'q', documents: ['d'] }, broke.key);
      assert.equal(rr.status, 402);
      assert.deepEqual(await rr.json(), { error: OUT_OF_CREDITS });
      assert.equal(calls(), before);
    });

    it('429 RateLimitError after the per-minute budget of the account', async () => {
      const limited = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '2' } });
      try {
        const a = await createTestAccount(limited.t, { credits: 10 });
        const c = limited.client(a.key);
        await c.embeddings.create({ model: 'svc-embed', input: 'one' });
        await c.completions.create({ model: 'svc-fast', prompt: 'two' });
        await assert.rejects(c.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'three' }] }), (e: unknown) => e instanceof OpenAI.RateLimitError);
      } finally {
        await limited.close();
      }
    });
  });
});

describe('images without an images provider', () => {
  it('answers 503 model not available with the shipped catalog and no images upstream', async () => {
    const t = await startTestApp({ env: { OPENAI_API_KEY: 'sk-unused' } });
    try {
      const a = await createTestAccount(t, { credits: 10 });
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/images/generations',
        headers: { authorization: `Bearer ${a.key}` },
        payload: { model: 'svc-image', prompt: 'x' },
      });
      assert.equal(r.statusCode, 503);
      assert.deepEqual(r.json(), { error: 'model svc-image is not available' });
      assert.equal(r.headers['x-ratelimit-limit-requests'], '10');
      // Only an operator clears it: the SDKs are told not to retry (docs/api-decisions.md, "Errors no retry clears").
      assert.equal(r.headers['x-should-retry'], 'false');
    } finally {
      await t.close();
    }
  });
});
