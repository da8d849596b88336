import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { buildCatalog, type Catalog, type ModelConfig } from '../src/config/catalog.ts';
import type { CanonicalChatRequest, StreamPart } from '../src/inference/canonical/chat.ts';
import { createId } from '../src/inference/canonical/create-id.ts';
import { formatEmbeddingsResponse } from '../src/inference/formats/embeddings/format-embeddings-response.ts';
import { parseEmbeddingsRequest } from '../src/inference/formats/embeddings/parse-embeddings-request.ts';
import { formatImageResponse } from '../src/inference/formats/images/format-image-response.ts';
import { parseImageRequest } from '../src/inference/formats/images/parse-image-request.ts';
import { createChatChunkFormatter } from '../src/inference/formats/openai-chat/create-chat-chunk-formatter.ts';
import { formatChatCompletion } from '../src/inference/formats/openai-chat/format-chat-completion.ts';
import { formatOpenAIStreamError } from '../src/inference/formats/openai-chat/format-openai-stream-error.ts';
import { parseChatCompletionRequest } from '../src/inference/formats/openai-chat/parse-chat-completion-request.ts';
import { formatRerankResponse } from '../src/inference/formats/rerank/format-rerank-response.ts';
import { parseRerankRequest } from '../src/inference/formats/rerank/parse-rerank-request.ts';
import { decodeReasoningContent } from '../src/inference/formats/reasoning-content.ts';
import { markSigned } from '../src/inference/upstream/reasoning-signer.ts';
import { encodeSseData, SSE_DONE } from '../src/inference/formats/sse.ts';
import { decodeFloat32Base64 } from '../src/inference/canonical/float32-base64.ts';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import { createUpstreams, type Upstreams } from '../src/inference/upstream/create-upstreams.ts';
import type { UpstreamTarget } from '../src/inference/upstream/upstream-target.ts';
import type { ChatStream } from '../src/inference/upstream/start-chat-stream.ts';
import { UpstreamError } from '../src/inference/upstream/upstream-error.ts';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, type FakeAnthropic } from './fakes/fake-anthropic.ts';
import { FAKE_OPENAI_KEY, fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from './fakes/fake-openai.ts';
import { FAKE_RERANK_KEY, startFakeRerank, type FakeRerank } from './fakes/fake-rerank.ts';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';

/**
 * Nothing a client sees may contain any of these: provider names, upstream models, hosts, ids.
 * "fake" is matched as the fakes spell it: bare, a random service-issued id contains it about once in 40,000.
 */
const FORBIDDEN = [
  /openai/i, /anthropic/i, /claude/i, /gpt/i, /sonnet/i, /dall-e/i, /cohere/i, /jina/i, /text-embedding/i, /rerank-v3/i,
  /fake[- ]|fake(openai|anthropic|rerank|cohere)/i, /127\.0\.0\.1/, /req_/, /msg_/, /toolu_/, /org-/, /main-(openai|anthropic|rerank|images)/, /sk-/,
];

function assertNoLeak(value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const f of FORBIDDEN) assert.doesNotMatch(text, f, `leaks ${f}: ${text.slice(0, 400)}`);
}

/** Service-issued tool-call ids differ per call; compare answers with them normalised. */
const sameIds = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(/call_[A-Za-z0-9]{24}/g, 'call_ID')) as T;

/** Seals the reasoning blocks of the chat answers formatted here, as the chat route's does for an account. */
const sealer = createReasoningSealers(randomBytes(32))(1);

const user = (text: string): CanonicalChatRequest['messages'][number] => ({ role: 'user', content: [{ type: 'text', text }] });

const weatherTools: CanonicalChatRequest['tools'] = [
  { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } },
];

interface Collected {
  parts: StreamPart[];
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finish: string | undefined;
  usage: Extract<StreamPart, { type: 'usage' }> | undefined;
}

async function collect(stream: ChatStream): Promise<Collected> {
  const out: Collected = { parts: [], text: '', toolCalls: [], finish: undefined, usage: undefined };
  for await (const p of stream) {
    out.parts.push(p);
    if (p.type === 'text-delta') out.text += p.text;
    if (p.type === 'tool-call-start') out.toolCalls[p.index] = { id: p.id, name: p.name, arguments: '' };
    if (p.type === 'tool-call-delta') out.toolCalls[p.index]!.arguments += p.argumentsDelta;
    if (p.type === 'finish') out.finish = p.reason;
    if (p.type === 'usage') out.usage = p;
  }
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof UpstreamError, `expected an UpstreamError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a failure');
}

describe('inference adapters against fake upstreams', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let rerank: FakeRerank;
  let catalog: Catalog;
  let up: Upstreams;
  let pro: ModelConfig;
  let viaAnthropic: UpstreamTarget;
  let viaOpenAI: UpstreamTarget;
  const target = (modelId: string, deployment = 0): UpstreamTarget => {
    const model = catalog.models.get(modelId)!;
    return { model, deployment: model.deployments[deployment]! };
  };

  before(async () => {
    [openai, anthropic, rerank] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeRerank()]);
    catalog = buildCatalog(
      {
        providers: [
          { id: 'main-anthropic', type: 'anthropic', base_url: anthropic.url, api_key: FAKE_ANTHROPIC_KEY },
          { id: 'main-openai', type: 'openai', base_url: openai.baseUrl, api_key: FAKE_OPENAI_KEY, connections: 4 },
          { id: 'main-rerank', type: 'rerank', base_url: rerank.baseUrl, api_key: FAKE_RERANK_KEY },
          { id: 'main-images', type: 'images', base_url: openai.baseUrl, api_key: FAKE_OPENAI_KEY },
          { id: 'slow-openai', type: 'openai', base_url: openai.baseUrl, api_key: FAKE_OPENAI_KEY, timeout_ms: 250 },
          { id: 'dead-openai', type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'k' },
          { id: 'unset-openai', type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: '${SVC_TEST_UNSET_KEY}' },
        ],
        models: [
          {
            id: 'svc-pro',
            type: 'chat',
            max_output: 64000,
            deployments: [
              { provider: 'main-anthropic', model: 'claude-sonnet-4-5' },
              { provider: 'main-openai', model: 'gpt-4.1-mini' },
              { provider: 'slow-openai', model: 'gpt-4.1-mini' },
              { provider: 'dead-openai', model: 'gpt-4.1' },
              { provider: 'unset-openai', model: 'gpt-4.1' },
            ],
          },
          { id: 'svc-embed', type: 'embedding', deployments: [{ provider: 'main-openai', model: 'text-embedding-3-small' }] },
          { id: 'svc-rerank', type: 'rerank', deployments: [{ provider: 'main-rerank', model: 'rerank-v3.5' }] },
          { id: 'svc-image', type: 'image', deployments: [{ provider: 'main-images', model: 'dall-e-3' }] },
        ],
      },
      {},
    );
    up = createUpstreams(catalog);
    pro = catalog.models.get('svc-pro')!;
    viaAnthropic = target('svc-pro', 0);
    viaOpenAI = target('svc-pro', 1);
  });

  after(async () => {
    await up.close();
    await Promise.all([openai.close(), anthropic.close(), rerank.close()]);
  });

  /** The same scenario on both upstreams, non-streamed. */
  async function bothChat(request: CanonicalChatRequest, scenario: FakeChatScenario) {
    anthropic.chat.enqueue(scenario);
    openai.chat.enqueue(scenario);
    return { a: await up.chat(viaAnthropic, request), o: await up.chat(viaOpenAI, request) };
  }

  async function bothStream(request: CanonicalChatRequest, scenario: FakeChatScenario) {
    anthropic.chat.enqueue(scenario);
    openai.chat.enqueue(scenario);
    return { a: await collect(await up.chatStream(viaAnthropic, request)), o: await collect(await up.chatStream(viaOpenAI, request)) };
  }

  const identity = { id: 'chatcmpl-test', model: 'svc-pro', created: 1763000000 };
  const usage = { input: 2048, cached: 1920, output: 9 };

  describe('equivalent answers from an OpenAI and an Anthropic deployment', () => {
    it('text, with cached-token usage', async () => {
      const request: CanonicalChatRequest = { messages: [{ role: 'system', content: 'Be brief.' }, user('Capital of France?')], tools: [], stop: [], stream: false };
      const { a, o } = await bothChat(request, { text: 'Paris is the capital of France.', usage });
      const expected = {
        text: 'Paris is the capital of France.',
        reasoning: '',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 9 },
        usageEstimated: false,
      };
      assert.deepEqual(a, expected);
      assert.deepEqual(o, expected);
      assert.deepEqual(formatChatCompletion(a, identity, sealer), formatChatCompletion(o, identity, sealer));
      assertNoLeak(formatChatCompletion(a, identity, sealer));

      const sentA = anthropic.requests.at(-1)!;
      assert.equal(sentA.headers['x-api-key'], FAKE_ANTHROPIC_KEY);
      assert.equal(sentA.headers['anthropic-version'], '2023-06-01');
      assert.deepEqual(sentA.body, {
        model: 'claude-sonnet-4-5',
        max_tokens: 32000,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }],
      });
      const sentO = openai.requests.at(-1)!;
      assert.equal(sentO.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);
      assert.deepEqual(sentO.body, {
        model: 'gpt-4.1-mini',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Capital of France?' },
        ],
      });
    });

    it('text, streamed: the same parts and the same OpenAI chunks', async () => {
      const request: CanonicalChatRequest = { messages: [user('Capital of France?')], tools: [], stop: [], stream: true };
      const { a, o } = await bothStream(request, { text: 'Paris is the capital of France.', usage });
      assert.deepEqual(a.parts, o.parts);
      assert.equal(a.text, 'Paris is the capital of France.');
      assert.equal(a.finish, 'stop');
      assert.deepEqual(a.usage, { type: 'usage', usage: { inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 9 }, estimated: false });
      const chunks = (parts: StreamPart[]) => {
        const f = createChatChunkFormatter({ ...identity, includeUsage: true, sealer });
        return parts.flatMap((p) => f.format(p));
      };
      assert.deepEqual(chunks(a.parts), chunks(o.parts));
      assertNoLeak(chunks(a.parts));
      assert.deepEqual(openai.requests.at(-1)!.body, {
        model: 'gpt-4.1-mini',
        messages: [{ role: 'user', content: 'Capital of France?' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(openai.requests.at(-1)!.headers.accept, 'text/event-stream');
      assert.equal((anthropic.requests.at(-1)!.body as { stream?: boolean }).stream, true);
    });

    const toolScenario: FakeChatScenario = {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
      ],
      usage: { input: 300, cached: 0, output: 40 },
    };
    const toolRequest: CanonicalChatRequest = { messages: [user('Weather and time in Paris?')], tools: weatherTools, toolChoice: { type: 'auto' }, stop: [], stream: false };

    it('several tool calls', async () => {
      const { a, o } = await bothChat(toolRequest, toolScenario);
      for (const r of [a, o]) {
        assert.equal(r.finishReason, 'tool_calls');
        assert.deepEqual(r.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [
          ['get_weather', { city: 'Paris' }],
          ['get_time', { timezone: 'Europe/Paris' }],
        ]);
        for (const c of r.toolCalls) assert.match(c.id, /^call_[A-Za-z0-9]{24}$/);
      }
      assert.deepEqual(sameIds(formatChatCompletion(a, identity, sealer)), sameIds(formatChatCompletion(o, identity, sealer)));
      assertNoLeak(formatChatCompletion(a, identity, sealer));
      const sentA = anthropic.requests.at(-1)!.body as Record<string, unknown>;
      assert.deepEqual(sentA.tools, weatherTools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })));
      assert.deepEqual(sentA.tool_choice, { type: 'auto' });
      const sentO = openai.requests.at(-1)!.body as Record<string, unknown>;
      assert.deepEqual(sentO.tools, weatherTools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
      assert.equal(sentO.tool_choice, 'auto');
    });

    it('several tool calls, streamed with argument deltas', async () => {
      const { a, o } = await bothStream({ ...toolRequest, stream: true }, toolScenario);
      assert.deepEqual(sameIds(a.parts), sameIds(o.parts));
      assert.ok(a.parts.filter((p) => p.type === 'tool-call-delta').length > 2, 'arguments arrive in pieces');
      assert.deepEqual(a.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [
        ['get_weather', { city: 'Paris' }],
        ['get_time', { timezone: 'Europe/Paris' }],
      ]);
      assert.equal(a.finish, 'tool_calls');
      assert.deepEqual(a.usage?.usage, { inputTokens: 300, cachedInputTokens: 0, outputTokens: 40 });
    });

    it('tool results in the conversation reach both upstreams in their shapes', async () => {
      const request: CanonicalChatRequest = {
        messages: [
          user('Weather in Paris?'),
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
          { role: 'tool', toolCallId: 'call_abc', content: 'sunny, 21C' },
        ],
        tools: weatherTools,
        stop: [],
        stream: false,
      };
      const { a, o } = await bothChat(request, { text: 'It is sunny.' });
      assert.equal(a.text, o.text);
      assert.deepEqual((anthropic.requests.at(-1)!.body as { messages: unknown }).messages, [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc', content: 'sunny, 21C' }] },
      ]);
      assert.deepEqual((openai.requests.at(-1)!.body as { messages: unknown[] }).messages.slice(1), [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_abc', content: 'sunny, 21C' },
      ]);
    });

    it('JSON output from a json_schema, plain and streamed', async () => {
      const schema = { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'] };
      const request: CanonicalChatRequest = { messages: [user('Where is the Eiffel tower?')], tools: [], responseFormat: { type: 'json_schema', name: 'place', schema }, stop: [], stream: false };
      const scenario = { json: { city: 'Paris', country: 'France' }, usage: { input: 50, cached: 0, output: 15 } };
      const { a, o } = await bothChat(request, scenario);
      for (const r of [a, o]) {
        assert.deepEqual(JSON.parse(r.text), { city: 'Paris', country: 'France' });
        assert.equal(r.finishReason, 'stop');
        assert.deepEqual(r.toolCalls, []);
      }
      const sentA = anthropic.requests.at(-1)!.body as Record<string, unknown>;
      assert.deepEqual(sentA.tool_choice, { type: 'tool', name: 'json_response' });
      assert.deepEqual((sentA.tools as { input_schema: unknown }[])[0]!.input_schema, schema);
      assert.deepEqual((openai.requests.at(-1)!.body as Record<string, unknown>).response_format, { type: 'json_schema', json_schema: { name: 'place', schema } });

      const s = await bothStream({ ...request, stream: true }, scenario);
      for (const r of [s.a, s.o]) {
        assert.deepEqual(JSON.parse(r.text), { city: 'Paris', country: 'France' });
        assert.equal(r.finish, 'stop');
        assert.equal(r.parts.some((p) => p.type === 'tool-call-start'), false);
      }
    });

    it('finish reason length', async () => {
      const request: CanonicalChatRequest = { messages: [user('Count to a million')], tools: [], maxTokens: 5, stop: [], stream: false };
      const { a, o } = await bothChat(request, { text: 'One, two', finish: 'length' });
      assert.equal(a.finishReason, 'length');
      assert.equal(o.finishReason, 'length');
      assert.equal((anthropic.requests.at(-1)!.body as { max_tokens: number }).max_tokens, 5);
      assert.equal((openai.requests.at(-1)!.body as { max_tokens: number }).max_tokens, 5);
      const s = await bothStream({ ...request, stream: true }, { text: 'One, two', finish: 'length' });
      assert.equal(s.a.finish, 'length');
      assert.equal(s.o.finish, 'length');
    });

    it("Anthropic thinking arrives as reasoning; the OpenAI format gives it as reasoning and reasoning_details, the signature sealed", async () => {
      anthropic.chat.enqueue({ reasoning: 'The user wants a number.', text: '42' });
      const s = await collect(await up.chatStream(viaAnthropic, { messages: [user('Answer?')], tools: [], stop: [], stream: true }));
      assert.equal(s.parts.filter((p) => p.type === 'reasoning-delta').map((p) => (p as { text: string }).text).join(''), 'The user wants a number.');
      assert.equal(s.text, '42');
      const f = createChatChunkFormatter({ ...identity, includeUsage: false, sealer });
      const deltas = s.parts.flatMap((p) => f.format(p)).map((c) => (c as { choices: { delta: { reasoning?: string; reasoning_details?: { text: string; signature?: string; format: string; index: number }[] } }[] }).choices[0]!.delta);
      assert.equal(deltas.map((d) => d.reasoning ?? '').join(''), 'The user wants a number.');
      const details = deltas.flatMap((d) => d.reasoning_details ?? []);
      assert.ok(details.every((d) => d.format === 'svc-reasoning-v1' && d.index === 0));
      assert.equal(details.map((d) => d.text).join(''), 'The user wants a number.');
      const signature = details.at(-1)!.signature!;
      // The upstream's signature, marked with the model that signed it.
      assert.deepEqual(decodeReasoningContent(signature, sealer), [{ type: 'thinking', thinking: 'The user wants a number.', signature: markSigned('EqQBfakeanthropicsignature', viaAnthropic.deployment.model) }]);
      // The token is random bytes, which may spell anything; checked for its shape, then taken out.
      assert.match(signature, /^[A-Za-z0-9_-]{40,}$/);
      const text = JSON.stringify(deltas).replace(/"signature":"[A-Za-z0-9_-]+"/g, '"signature":"<sealed>"');
      assertNoLeak(text);
      assert.doesNotMatch(text, /EqQB/);
    });
  });

  describe('usage', () => {
    it('is estimated with the tokenizer when a stream ends without it', async () => {
      openai.chat.enqueue({ text: 'Hello there, how are you today?', omitUsage: true });
      const s = await collect(await up.chatStream(viaOpenAI, { messages: [user('Hi')], tools: [], stop: [], stream: true }));
      assert.equal(s.usage?.estimated, true);
      assert.equal(s.usage?.usage.outputTokens, 8);
      assert.ok(s.usage!.usage.inputTokens > 0);
    });

    it('is estimated for a non-streamed answer without it', async () => {
      openai.chat.enqueue({ text: 'Hello there', omitUsage: true });
      const r = await up.chat(viaOpenAI, { messages: [user('Hi')], tools: [], stop: [], stream: false });
      assert.equal(r.usageEstimated, true);
      assert.equal(r.usage.outputTokens, 2);
    });
  });

  describe('abort', () => {
    for (const [name, via, fake] of [
      ['Anthropic', () => viaAnthropic, () => anthropic],
      ['OpenAI', () => viaOpenAI, () => openai],
    ] as const) {
      it(`a client abort mid-stream aborts the ${name} upstream request and keeps usage for billing`, async () => {
        fake().chat.enqueue({ text: 'A long answer that will never be finished because the client leaves.', stallAfter: 5 });
        const controller = new AbortController();
        const stream = await up.chatStream(via(), { messages: [user('Tell me a story')], tools: [], stop: [], stream: true }, controller.signal);
        const iterator = stream[Symbol.asyncIterator]();
        const first = await iterator.next();
        assert.equal(first.done, false);
        controller.abort();
        await assert.rejects(
          (async () => {
            for (let r = await iterator.next(); !r.done; r = await iterator.next());
          })(),
          (e: Error) => e.name === 'AbortError',
        );
        assert.equal(await fake().requests.at(-1)!.closed, 'aborted');
        const u = stream.usage();
        assert.equal(u.estimated, true);
        assert.ok(u.usage.outputTokens > 0);
      });
    }

    it('a consumer that stops reading closes the upstream request', async () => {
      anthropic.chat.enqueue({ text: 'An answer nobody reads to the end.', stallAfter: 6 });
      const stream = await up.chatStream(viaAnthropic, { messages: [user('Hi')], tools: [], stop: [], stream: true });
      for await (const _part of stream) break;
      assert.equal(await anthropic.requests.at(-1)!.closed, 'aborted');
      anthropic.chat.enqueue({ text: 'Never read at all.', stallAfter: 6 });
      const unread = await up.chatStream(viaAnthropic, { messages: [user('Hi')], tools: [], stop: [], stream: true });
      await unread.cancel();
      assert.equal(await anthropic.requests.at(-1)!.closed, 'aborted');
    });

    it('an abort before the answer starts rejects with the abort reason, not an upstream error', async () => {
      anthropic.chat.enqueue({ hang: true });
      const controller = new AbortController();
      const pending = up.chat(viaAnthropic, { messages: [user('Hi')], tools: [], stop: [], stream: false }, controller.signal);
      // The request is on the wire once the fake saw it.
      const seen = anthropic.requests.length;
      while (anthropic.requests.length === seen) await new Promise((r) => setImmediate(r));
      controller.abort();
      await assert.rejects(pending, (e: Error) => e.name === 'AbortError' && !(e instanceof UpstreamError));
      assert.equal(await anthropic.requests.at(-1)!.closed, 'aborted');
    });
  });

  describe('errors are redacted and classified', () => {
    it('an OpenAI 500 becomes a retryable 502 without provider names, model, host or ids', async () => {
      openai.chat.enqueue({ error: { status: 500 } });
      const e = await rejection(up.chat(viaOpenAI, { messages: [user('Hi')], tools: [], stop: [], stream: false }));
      assert.equal(e.status, 502);
      assert.equal(e.retryable, true);
      assertNoLeak(e.message);
      assert.match(e.message, /svc-pro/);
      assert.match(e.detail.upstreamMessage, /OpenAI/, 'the raw message is kept for logs');
    });

    it('an Anthropic 400 stays a final 400 with the model renamed', async () => {
      anthropic.chat.enqueue({ error: { status: 400, message: 'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929' } });
      const e = await rejection(up.chat(viaAnthropic, { messages: [user('Hi')], tools: [], maxTokens: 100000, stop: [], stream: false }));
      assert.equal(e.status, 400);
      assert.equal(e.retryable, false);
      assert.equal(e.message, 'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for svc-pro');
    });

    it('rate limits and overload are retryable, statuses kept in meaning', async () => {
      anthropic.chat.enqueue({ error: { status: 429 } }, { error: { status: 529, message: 'Overloaded' } });
      const limited = await rejection(up.chat(viaAnthropic, { messages: [user('Hi')], tools: [], stop: [], stream: false }));
      assert.deepEqual([limited.status, limited.retryable], [429, true]);
      assertNoLeak(limited.message);
      const overloaded = await rejection(up.chat(viaAnthropic, { messages: [user('Hi')], tools: [], stop: [], stream: false }));
      assert.deepEqual([overloaded.status, overloaded.retryable, overloaded.message], [503, true, 'Overloaded']);
    });

    it('an error status on a stream rejects before any output, so the route can fall back', async () => {
      openai.chat.enqueue({ error: { status: 503 } });
      const e = await rejection(up.chatStream(viaOpenAI, { messages: [user('Hi')], tools: [], stop: [], stream: true }));
      assert.deepEqual([e.status, e.retryable], [503, true]);
      assertNoLeak(e.message);
    });

    it('an error event first thing in a stream also rejects at start', async () => {
      anthropic.chat.enqueue({ text: 'Hello', streamErrorAfter: { events: 1 } });
      const e = await rejection(up.chatStream(viaAnthropic, { messages: [user('Hi')], tools: [], stop: [], stream: true }));
      assert.deepEqual([e.status, e.retryable, e.message], [503, true, 'Overloaded']);
    });

    for (const [name, via, fake] of [
      ['Anthropic', () => viaAnthropic, () => anthropic],
      ['OpenAI', () => viaOpenAI, () => openai],
    ] as const) {
      it(`a ${name} error inside a stream, after output, fails the iteration redacted`, async () => {
        fake().chat.enqueue({ text: 'Paris is the capital of France.', streamErrorAfter: { events: 5, message: 'claude-sonnet-4-5 at OpenAI/Anthropic failed, request req_0123456789abc' } });
        const stream = await up.chatStream(via(), { messages: [user('Hi')], tools: [], stop: [], stream: true });
        const seen: StreamPart[] = [];
        let failure: unknown;
        try {
          for await (const p of stream) seen.push(p);
        } catch (e) {
          failure = e;
        }
        assert.ok(failure instanceof UpstreamError);
        assert.equal(failure.retryable, true);
        assertNoLeak(failure.message);
        assertNoLeak(formatOpenAIStreamError(failure));
        assert.ok(seen.some((p) => p.type === 'text-delta'));
        assert.equal(seen.some((p) => p.type === 'finish'), false);
        assert.ok(stream.usage().usage.outputTokens > 0, 'what was produced is still counted');
      });
    }

    it('a stream cut without its end is a retryable failure', async () => {
      openai.chat.enqueue({ text: 'Paris is the capital of France.', cutAfter: 4 });
      const stream = await up.chatStream(viaOpenAI, { messages: [user('Hi')], tools: [], stop: [], stream: true });
      await assert.rejects(collect(stream), (e) => e instanceof UpstreamError && e.status === 502 && e.retryable);
    });

    it('an upstream that does not answer in time is a retryable 504', async () => {
      openai.chat.enqueue({ hang: true });
      const e = await rejection(up.chat(target('svc-pro', 2), { messages: [user('Hi')], tools: [], stop: [], stream: false }));
      assert.deepEqual([e.status, e.retryable, e.message], [504, true, 'the upstream timed out']);
      assert.equal(await openai.requests.at(-1)!.closed, 'aborted');
    });

    it('an unreachable upstream is a retryable 502; an unconfigured one a retryable 503', async () => {
      const dead = await rejection(up.chat(target('svc-pro', 3), { messages: [user('Hi')], tools: [], stop: [], stream: false }));
      assert.deepEqual([dead.status, dead.retryable, dead.message], [502, true, 'the upstream could not be reached']);
      const unset = await rejection(up.chat(target('svc-pro', 4), { messages: [user('Hi')], tools: [], stop: [], stream: false }));
      assert.deepEqual([unset.status, unset.retryable, unset.message], [503, true, 'model svc-pro is not available']);
    });

    it('an upstream refusing the service key is a retryable gateway error that says nothing of the key', async () => {
      const wrongKey = buildCatalog(
        {
          providers: [{ id: 'p', type: 'openai', base_url: openai.baseUrl, api_key: 'sk-wrong-key-123456' }],
          models: [{ id: 'svc-x', type: 'chat', deployments: [{ provider: 'p', model: 'gpt-4.1' }] }],
        },
        {},
      );
      const other = createUpstreams(wrongKey);
      try {
        const model = wrongKey.models.get('svc-x')!;
        const e = await rejection(other.chat({ model, deployment: model.deployments[0]! }, { messages: [user('Hi')], tools: [], stop: [], stream: false }));
        assert.deepEqual([e.status, e.retryable, e.message], [502, true, 'the upstream refused the service credentials']);
      } finally {
        await other.close();
      }
    });
  });

  describe('fallback', () => {
    it('moves to the next deployment when the first is overloaded before any output, streams included', async () => {
      // Overloaded twice: the first call and its one retry on the same deployment.
      anthropic.chat.enqueue({ error: { status: 529 } }, { error: { status: 529 } });
      openai.chat.enqueue({ text: 'From the fallback.' });
      const request: CanonicalChatRequest = { messages: [user('Hi')], tools: [], stop: [], stream: true };
      const { result, target: served } = await up.run([pro], (t) => up.chatStream(t, request));
      assert.equal(served.deployment.provider.id, 'main-openai');
      assert.equal((await collect(result)).text, 'From the fallback.');
    });

    it('does not move on after a request error', async () => {
      anthropic.chat.enqueue({ error: { status: 400, message: 'messages: roles must alternate' } });
      const seen = openai.requests.length;
      const e = await rejection(up.run([pro], (t) => up.chat(t, { messages: [user('Hi')], tools: [], stop: [], stream: false })));
      assert.deepEqual([e.status, e.message], [400, 'messages: roles must alternate']);
      assert.equal(openai.requests.length, seen);
    });
  });

  describe('embeddings, rerank and images', () => {
    it('embeddings: float and base64 from one upstream answer, with dimensions', async () => {
      const parsed = parseEmbeddingsRequest({ model: 'svc-embed', input: ['hello world', 'good night moon'], dimensions: 4, encoding_format: 'base64' });
      const r = await up.embeddings(target('svc-embed'), parsed.request);
      assert.deepEqual(openai.requests.at(-1)!.body, { model: 'text-embedding-3-small', input: ['hello world', 'good night moon'], dimensions: 4 });
      assert.deepEqual(r.embeddings, [fakeEmbedding('hello world', 4), fakeEmbedding('good night moon', 4)]);
      assert.deepEqual(r.usage, { inputTokens: 5, cachedInputTokens: 0, outputTokens: 0 });
      const b64 = formatEmbeddingsResponse(r, { model: 'svc-embed', encodingFormat: 'base64' });
      assert.deepEqual(decodeFloat32Base64(b64.data[1]!.embedding as string), fakeEmbedding('good night moon', 4));
      const float = formatEmbeddingsResponse(r, { model: 'svc-embed', encodingFormat: 'float' });
      assert.deepEqual(float.data[0]!.embedding, fakeEmbedding('hello world', 4));
      assertNoLeak(b64);
    });

    it('embeddings errors are redacted', async () => {
      openai.failNext({ status: 400, message: "This model's maximum context length is 8192 tokens (text-embedding-3-small)" });
      const e = await rejection(up.embeddings(target('svc-embed'), { input: ['x'] }));
      assert.deepEqual([e.status, e.retryable, e.message], [400, false, "This model's maximum context length is 8192 tokens (svc-embed)"]);
    });

    it('rerank: Jina-style answers carry tokens; Cohere-style ones are estimated', async () => {
      const parsed = parseRerankRequest({ model: 'svc-rerank', query: 'capital of France', documents: ['Berlin is in Germany', { text: 'Paris is the capital of France' }, 'Bananas'], top_n: 2, return_documents: true });
      rerank.flavour = 'jina';
      const jina = await up.rerank(target('svc-rerank'), parsed.request);
      assert.deepEqual(rerank.requests.at(-1)!.body, { model: 'rerank-v3.5', query: 'capital of France', documents: ['Berlin is in Germany', 'Paris is the capital of France', 'Bananas'], top_n: 2 });
      assert.equal(jina.usageEstimated, false);
      const out = formatRerankResponse(jina, { id: createId('rerank-'), model: 'svc-rerank', documents: parsed.request.documents, returnDocuments: true });
      assert.deepEqual(out.results, [
        { index: 1, relevance_score: 1, document: { text: 'Paris is the capital of France' } },
        { index: 0, relevance_score: 0, document: { text: 'Berlin is in Germany' } },
      ]);
      assertNoLeak(out);
      rerank.flavour = 'cohere';
      const cohere = await up.rerank(target('svc-rerank'), parsed.request);
      assert.equal(cohere.usageEstimated, true);
      assert.ok(cohere.usage.inputTokens > 0);
      assert.deepEqual(cohere.results, jina.results);
    });

    it('rerank errors are redacted', async () => {
      rerank.failNext({ status: 503 });
      const e = await rejection(up.rerank(target('svc-rerank'), { query: 'q', documents: ['a'] }));
      assert.deepEqual([e.status, e.retryable], [503, true]);
      assertNoLeak(e.message);
    });

    it('images: base64 answers, and URL answers downloaded so no upstream URL is shown', async () => {
      const parsed = parseImageRequest({ model: 'svc-image', prompt: 'a watercolor fox', n: 2, size: '1024x1024' });
      openai.imagesAsUrl = false;
      const b64 = await up.images(target('svc-image'), parsed.request);
      assert.deepEqual(openai.requests.at(-1)!.body, { model: 'dall-e-3', prompt: 'a watercolor fox', n: 2, size: '1024x1024' });
      assert.equal(b64.images.length, 2);
      assert.equal(b64.images[0]!.mediaType, 'image/png');
      openai.imagesAsUrl = true;
      const viaUrl = await up.images(target('svc-image'), parsed.request);
      assert.equal(viaUrl.images[0]!.base64, b64.images[0]!.base64);
      assert.equal(openai.requests.at(-1)!.method, 'GET');
      const out = formatImageResponse(viaUrl, { created: 1, responseFormat: parsed.responseFormat });
      assert.match((out.data[0] as { url: string }).url, /^data:image\/png;base64,/);
      // The revised prompt is the model's own output, passed on like any generated text.
      assert.equal(out.data[0]!.revised_prompt, 'a watercolor fox, in soft colours');
      assertNoLeak(out);
      openai.imagesAsUrl = false;
    });
  });

  describe('the OpenAI SDK reads the formatted answers', () => {
    let server: Server;
    let client: OpenAI;

    before(async () => {
      // A stand-in for the chat route: parse -> upstream (the Anthropic deployment) -> format.
      server = createServer((req, res) => {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString()));
        req.on('end', () => {
          void (async () => {
            const parsed = parseChatCompletionRequest(JSON.parse(raw), sealer);
            const id = createId('chatcmpl-');
            const created = Math.floor(Date.now() / 1000);
            if (!parsed.request.stream) {
              const r = await up.chat(viaAnthropic, parsed.request);
              res.writeHead(200, { 'content-type': 'application/json' });
              res.end(JSON.stringify(formatChatCompletion(r, { id, model: parsed.model ?? 'svc-pro', created }, sealer)));
              return;
            }
            const stream = await up.chatStream(viaAnthropic, parsed.request);
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            const f = createChatChunkFormatter({ id, model: parsed.model ?? 'svc-pro', created, includeUsage: parsed.includeUsage, sealer });
            for await (const p of stream) for (const c of f.format(p)) res.write(encodeSseData(c));
            res.end(SSE_DONE);
          })();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      client = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'svk_test', maxRetries: 0 });
    });

    after(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    const tools = weatherTools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description!, parameters: t.parameters } }));

    it('a streamed answer with several tool calls accumulates into a complete message', async () => {
      anthropic.chat.enqueue({ text: 'Checking both.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: { timezone: 'Europe/Paris' } }], usage: { input: 100, cached: 60, output: 30 } });
      const stream = client.chat.completions.stream({ model: 'svc-pro', messages: [{ role: 'user', content: 'Weather and time?' }], tools, stream_options: { include_usage: true } });
      const final = await stream.finalChatCompletion();
      const choice = final.choices[0]!;
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(choice.message.content, 'Checking both.');
      assert.deepEqual(choice.message.tool_calls!.map((c) => c.type === 'function' && [c.function.name, JSON.parse(c.function.arguments)]), [
        ['get_weather', { city: 'Paris' }],
        ['get_time', { timezone: 'Europe/Paris' }],
      ]);
      assert.equal(final.usage?.prompt_tokens_details?.cached_tokens, 60);
      assert.equal(final.model, 'svc-pro');
      assertNoLeak(final);
    });

    it('a plain answer parses with usage', async () => {
      anthropic.chat.enqueue({ text: 'Paris.', usage: { input: 20, cached: 0, output: 2 } });
      const r = await client.chat.completions.create({ model: 'svc-pro', messages: [{ role: 'user', content: 'Capital of France?' }] });
      assert.equal(r.choices[0]!.message.content, 'Paris.');
      assert.equal(r.usage?.total_tokens, 22);
      assert.match(r.id, /^chatcmpl-[A-Za-z0-9]{24}$/);
    });
  });

  it('uses the brand model maximum for Anthropic max_tokens when it is lower', async () => {
    const lowCatalog = buildCatalog(
      {
        providers: [{ id: 'a', type: 'anthropic', base_url: anthropic.url, api_key: FAKE_ANTHROPIC_KEY }],
        models: [{ id: 'svc-small', type: 'chat', max_output: 1000, deployments: [{ provider: 'a', model: 'claude-haiku-4-5' }] }],
      },
      {},
    );
    const other = createUpstreams(lowCatalog);
    try {
      const model = lowCatalog.models.get('svc-small')!;
      await other.chat({ model, deployment: model.deployments[0]! }, { messages: [user('Hi')], tools: [], stop: [], stream: false });
      assert.equal((anthropic.requests.at(-1)!.body as { max_tokens: number }).max_tokens, 1000);
    } finally {
      await other.close();
    }
    assert.ok(pro.maxOutput === 64000);
  });
});
