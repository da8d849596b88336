import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeReasoningContent } from '../src/inference/formats/reasoning-content.ts';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import { startGateway, UPSTREAM_MODELS, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { SERVICE_HEADERS } from './helpers/service-headers.ts';

// Ids the service issues, checked for their shape and then taken out of the text: 24 random
// base62 characters may spell anything (`gpt`, `Fake`) by chance.
const SERVICE_IDS = /\b(?:chatcmpl-|cmpl-|call_|rerank-)[A-Za-z0-9]{24}\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
// Payloads that are bytes, not words: base64 vectors and images.
const BASE64_VALUES = /"(embedding|b64_json)":"[A-Za-z0-9+/=]+"|data:image\/png;base64,[A-Za-z0-9+/=]+/g;
// Sealed reasoning tokens (chat reasoning_details): random bytes too, each checked to be one the
// service sealed for the account (so no upstream value hides here), then taken out of the text.
const REASONING_TOKENS = /"(signature|data)":"([^"]*)"/g;

interface Answer {
  readonly what: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly text: string;
}

describe('brand hiding: nothing of an upstream reaches a client', () => {
  let g: Gateway;
  let acct: TestAccount;
  let forbidden: RegExp[];
  const answers: Answer[] = [];

  before(async () => {
    // More answers than the default 60 per minute.
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    const ports = [g.openai.url, g.anthropic.url, g.rerank.url].map((u) => new URL(u).port);
    forbidden = [
      // provider names and the fakes' own names
      /openai/i, /anthropic/i, /claude/i, /gpt/i, /cohere/i, /jina/i, /fake/i,
      // upstream model names and families
      ...Object.values(UPSTREAM_MODELS).map((m) => new RegExp(m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i')), /sonnet/i, /opus/i, /text-embedding/i,
      // hosts and ports of the upstreams
      /127\.0\.0\.1/, /localhost/, ...ports.map((p) => new RegExp(`(?<![0-9])${p}(?![0-9])`)),
      // upstream ids and id prefixes, keys, fingerprints
      /req_/, /msg_/, /toolu_/, /org-/, /fp_/, /sk-/, /EqQB/, /img-/,
      // configured provider ids
      /main-(openai|anthropic|rerank|images)/,
    ];
  });
  after(() => g.close());

  async function send(what: string, path: string, body: unknown): Promise<Answer> {
    const r = await fetch(`${g.t.url}/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const a: Answer = { what, status: r.status, headers: [...r.headers.entries()], text: await r.text() };
    answers.push(a);
    return a;
  }

  const chat = (what: string, model: string, extra: Record<string, unknown> = {}) =>
    send(what, '/chat/completions', { model, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], ...extra });

  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } } },
  ];
  const answer: FakeChatScenario = {
    text: 'It is sunny.',
    reasoning: 'The user wants weather.',
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: { timezone: 'Europe/Paris' } }],
    usage: { input: 50, cached: 20, output: 10 },
  };
  const leakyMessage = `model ${UPSTREAM_MODELS.fast} at https://api.openai.com/v1 (org-fakeopenai-1234, request req_abc123def456) refused by main-openai; Anthropic says claude-sonnet-4-5 is overloaded`;
  const upstreamErrors = [
    { status: 400, client: 400 },
    { status: 401, client: 502 },
    { status: 404, client: 502 },
    { status: 429, client: 429 },
    { status: 500, client: 502 },
    { status: 503, client: 503 },
  ];

  it('answers chat over both kinds, streamed and not, with tools, JSON and reasoning, without a trace of them', async () => {
    // The fake serving plain requests, and the one serving requests with tools (a pipeline's agent lane).
    for (const [model, fake, agentFake] of [
      ['svc-fast', g.openai, g.openai], ['svc-vision', g.anthropic, g.anthropic], ['svc-pro', g.anthropic, g.anthropic],
      ['svc-shiplow', g.openai, g.anthropic], ['svc-ultra', g.anthropic, g.anthropic],
    ] as const) {
      for (const stream of [false, true]) {
        fake.chat.enqueue(answer);
        assert.equal((await chat(`${model} text stream=${stream}`, model, { stream, stream_options: stream ? { include_usage: true } : undefined })).status, 200);
        agentFake.chat.enqueue(answer);
        assert.equal((await chat(`${model} tools stream=${stream}`, model, { stream, tools, tool_choice: 'auto' })).status, 200);
        fake.chat.enqueue({ json: { city: 'Paris' } });
        // JSON mode asks for the word in the conversation (docs/api-decisions.md, "Inference: nineteenth audit").
        const json = { stream, messages: [{ role: 'user', content: 'What is the weather in Paris? Answer in JSON.' }], response_format: { type: 'json_object' } };
        assert.equal((await chat(`${model} json stream=${stream}`, model, json)).status, 200);
      }
      fake.chat.enqueue(answer);
      assert.equal((await send(`${model} completion`, '/completions', { model, prompt: 'Once upon a time', stream: true })).status, 200);
    }
  });

  it('keeps the status and meaning of upstream errors, redacted, in JSON and inside streams', async () => {
    for (const [model, fake] of [['svc-fast', g.openai], ['svc-vision', g.anthropic]] as const) {
      for (const e of upstreamErrors) {
        for (const stream of [false, true]) {
          fake.chat.enqueue({ error: { status: e.status } });
          const a = await chat(`${model} upstream ${e.status} stream=${stream}`, model, { stream });
          assert.equal(a.status, e.client, a.what);
          assert.equal(typeof JSON.parse(a.text).error, 'string');
          fake.chat.enqueue({ error: { status: e.status, message: leakyMessage } });
          assert.equal((await chat(`${model} leaky ${e.status} stream=${stream}`, model, { stream })).status, e.client);
        }
      }
      fake.chat.enqueue({ text: 'Partial answer that breaks.', streamErrorAfter: { events: 5 } });
      const mid = await chat(`${model} mid-stream error`, model, { stream: true });
      assert.match(mid.text, /"error":\{"message":"[^"]+"/);
      fake.chat.enqueue({ text: 'Partial answer that breaks.', streamErrorAfter: { events: 5, message: leakyMessage } });
      assert.match((await chat(`${model} mid-stream leaky error`, model, { stream: true })).text, /data: \[DONE\]\n\n$/);
      fake.chat.enqueue({ text: 'Cut off.', cutAfter: 4 });
      await chat(`${model} connection cut`, model, { stream: true });
    }
    // Every deployment failing: the last failure, redacted.
    g.anthropic.chat.enqueue({ error: { status: 529 } });
    g.openai.chat.enqueue({ error: { status: 500, message: leakyMessage } });
    assert.equal((await chat('svc-pro all deployments fail', 'svc-pro')).status, 502);
  });

  it('answers embeddings, rerank and images, and their failures, without a trace of the upstreams', async () => {
    assert.equal((await send('embeddings float', '/embeddings', { model: 'svc-embed', input: ['a b', 'c'], encoding_format: 'float' })).status, 200);
    assert.equal((await send('embeddings base64', '/embeddings', { model: 'svc-embed', input: 'a b', encoding_format: 'base64', dimensions: 4 })).status, 200);
    g.openai.failNext({ status: 400, message: leakyMessage });
    assert.equal((await send('embeddings upstream 400', '/embeddings', { model: 'svc-embed', input: 'x' })).status, 400);
    g.openai.failNext({ status: 500 });
    assert.equal((await send('embeddings upstream 500', '/embeddings', { model: 'svc-embed', input: 'x' })).status, 502);

    for (const flavour of ['jina', 'cohere'] as const) {
      g.rerank.flavour = flavour;
      assert.equal((await send(`rerank ${flavour}`, '/rerank', { model: 'svc-rerank', query: 'cat', documents: ['a cat', 'a dog'], return_documents: true })).status, 200);
      g.rerank.failNext({ status: 500 });
      assert.equal((await send(`rerank ${flavour} upstream 500`, '/rerank', { model: 'svc-rerank', query: 'cat', documents: ['a cat'] })).status, 502);
      g.rerank.failNext({ status: 429, message: leakyMessage });
      assert.equal((await send(`rerank ${flavour} upstream 429`, '/rerank', { model: 'svc-rerank', query: 'cat', documents: ['a cat'] })).status, 429);
    }

    assert.equal((await send('images b64', '/images/generations', { model: 'svc-image', prompt: 'a cat', response_format: 'b64_json' })).status, 200);
    g.openai.imagesAsUrl = true;
    try {
      assert.equal((await send('images url', '/images/generations', { model: 'svc-image', prompt: 'a cat' })).status, 200);
    } finally {
      g.openai.imagesAsUrl = false;
    }
    g.openai.failNext({ status: 400, message: leakyMessage });
    assert.equal((await send('images upstream 400', '/images/generations', { model: 'svc-image', prompt: 'a cat' })).status, 400);
  });

  it('found no upstream name, host, model, id or header in any answer', () => {
    assert.ok(answers.length > 80, `${answers.length} answers checked`);
    const sealer = createReasoningSealers(g.t.deps.secretsKey)(acct.id);
    assert.ok(answers.some((a) => a.text.search(REASONING_TOKENS) >= 0), 'some answers carry sealed reasoning tokens');
    for (const a of answers) {
      for (const [name, value] of a.headers) {
        assert.ok(SERVICE_HEADERS.has(name), `${a.what}: header ${name}: ${value}`);
        for (const f of forbidden) assert.doesNotMatch(value, f, `${a.what}: header ${name}: ${value}`);
      }
      for (const id of a.text.match(SERVICE_IDS) ?? []) assert.match(id, /^(chatcmpl-|cmpl-|call_|rerank-)[A-Za-z0-9]{24}$/);
      for (const [, field, token] of a.text.matchAll(REASONING_TOKENS)) {
        assert.notEqual(decodeReasoningContent(token!, sealer), null, `${a.what}: ${field} is not a sealed reasoning token: ${token}`);
      }
      const text = a.text.replace(SERVICE_IDS, '<id>').replace(UUID, '<uuid>').replace(BASE64_VALUES, '<bytes>').replace(REASONING_TOKENS, '"$1":"<sealed>"');
      // Every SSE line and the whole body.
      for (const line of text.split('\n')) {
        for (const f of forbidden) assert.doesNotMatch(line, f, `${a.what} (${a.status}): ${line.slice(0, 400)}`);
      }
    }
  });
});
