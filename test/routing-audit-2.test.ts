import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY } from './fakes/fake-anthropic.ts';
import { FAKE_OPENAI_KEY } from './fakes/fake-openai.ts';
import { sendJson } from './fakes/fake-server.ts';
import { startScripted, type Script, type ScriptedUpstream } from './fakes/scripted-upstream.ts';
import { PRICES, accountCredits, expectedCost, postJson, startGateway, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { countTextTokens } from '../src/inference/tokens/count-tokens.ts';

/**
 * The second audit of routing and resilience (docs/api-decisions.md, "Routing and resilience:
 * second audit"): fake upstreams on loopback that fail the ways peer gateways' users reported
 * (a slow trickle, keep-alives just under the idle timeout, OpenRouter's 200 carrying an error
 * and its `finish_reason: "error"`, vLLM's `{"object": "error"}` chunk, retry-after in each of its
 * forms, a failure after an Anthropic `message_start` that reported usage), through the official
 * SDKs and plain fetch where the exact bytes matter.
 */

const USAGE = { input: 50, cached: 0, output: 7 };
const UPSTREAM_KEY = 'sk-trk-secret-key-0123456789';

const chunk = (delta: unknown, finish: string | null = null, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'gen-trk0123456789', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const ev = (data: { type: string } & Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const messageStart = ev({ type: 'message_start', message: { id: 'msg_trk0123456789', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: 40, output_tokens: 1 } } });
const textStart = ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
const textDelta = (text: string) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `body` a byte at a time, every `everyMs`, until it is written or the connection closes. */
/**
 * Writes `body` a character every `everyMs`; the answer says how far it got when the connection
 * closed (`cut`: before the end), so a test can tell the service stopped reading it without
 * timing anything (a whole trickle takes tens of seconds).
 */
function trickle(res: ServerResponse, body: string, everyMs: number): { readonly closed: Promise<{ sent: number; cut: boolean }> } {
  let i = 0;
  const t = setInterval(() => {
    if (i >= body.length) {
      clearInterval(t);
      res.end();
      return;
    }
    res.write(body[i++]);
  }, everyMs);
  const closed = new Promise<{ sent: number; cut: boolean }>((resolve) =>
    res.on('close', () => {
      clearInterval(t);
      resolve({ sent: i, cut: i < body.length });
    }),
  );
  return { closed };
}

/** Sends `write` every `everyMs` until the connection closes. */
function every(res: ServerResponse, everyMs: number, write: () => string): void {
  const t = setInterval(() => res.write(write()), everyMs);
  res.on('close', () => clearInterval(t));
}

// The provider word "trk" is looked for as the upstream spells it ("trk-openai", "msg_trk0123..."):
// bare, one service-issued id in about 1,300 contains it by chance (CI caught "...wzTRkU...").
function assertNoLeak(text: string, where: string, ports: readonly number[]): void {
  const lower = text.toLowerCase();
  for (const s of ['gpt', 'claude', 'openai', 'anthropic', 'openrouter', '127.0.0.1', 'localhost', 'trk-', 'trk0', 'sk-', 'gen-', 'msg_trk', 'internal.example']) {
    assert.ok(!lower.includes(s), `${where} leaks "${s}": ${text}`);
  }
  for (const p of ports) assert.ok(!text.includes(String(p)), `${where} leaks port ${p}: ${text}`);
}

describe('routing and resilience: second audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let trkO: ScriptedUpstream;
  let trkA: ScriptedUpstream;
  let ports: number[];

  // The scripted providers' limits (see the catalog).
  const TIMEOUT_MS = 700;
  const FIRST_BYTE_MS = 400;
  const IDLE_MS = 400;

  before(async () => {
    [trkO, trkA] = await Promise.all([startScripted(), startScripted()]);
    const limits = `timeout_ms: ${TIMEOUT_MS}, first_byte_timeout_ms: ${FIRST_BYTE_MS}, idle_timeout_ms: ${IDLE_MS}, connect_timeout_ms: 500`;
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' },
      catalog: (f) => `
resilience: { max_retries: 0, backoff_base_ms: 1, backoff_max_ms: 5, retry_after_cap_ms: 300, breaker: { consecutive_failures: 1000000, min_requests: 1000000 } }
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
  - { id: main-anthropic, type: anthropic, base_url: "${f.anthropic.url}", api_key: "${FAKE_ANTHROPIC_KEY}" }
  - { id: trk-openai, type: openai, base_url: "${trkO.url}/v1", api_key: "${UPSTREAM_KEY}", ${limits} }
  - { id: trk-anthropic, type: anthropic, base_url: "${trkA.url}", api_key: "${UPSTREAM_KEY}", ${limits} }
models:
  - { id: svc-fast, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: main-openai, model: gpt-4.1-mini }] }
  - { id: svc-embed, type: embedding, context: 8192, pricing: { input: 0.20 }, deployments: [{ provider: main-openai, model: text-embedding-3-small }] }
  - { id: svc-t, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: trk-openai, model: gpt-4.1-mini }, { provider: main-openai, model: gpt-4.1-mini }] }
  - { id: svc-tonly, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: trk-openai, model: gpt-4.1-mini }] }
  - { id: svc-ta, type: chat, pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }, deployments: [{ provider: trk-anthropic, model: claude-sonnet-4-5 }, { provider: main-anthropic, model: claude-sonnet-4-5 }] }
  - { id: svc-taonly, type: chat, pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }, deployments: [{ provider: trk-anthropic, model: claude-sonnet-4-5 }] }
  - { id: svc-shiplow, type: chat, pricing: { input: 0.30, cached_input: 0.075, output: 0.60 }, pipeline: { code: [svc-fast], general: [svc-taonly, svc-fast] } }
`,
    });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    openai = g.client(acct.key);
    ports = [trkO.url, trkA.url, g.openai.url, g.anthropic.url].map((u) => Number(new URL(u).port));
    // The tokenizer loads on its first count (a second or so, blocking): a stream cut short is the
    // first to count here, and the timings below are of the stall, not of that load.
    countTextTokens('warm up');
  });
  after(async () => {
    await g.close();
    await Promise.all([trkO.close(), trkA.close()]);
  });

  const ask = (model: string) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me a story.' }] });

  /** Reads an OpenAI chat stream: its text, and the failure that ended it (null for a clean end) with when it came. */
  async function readChat(model: string): Promise<{ text: string; error: unknown; firstTextAt: number; endedAt: number }> {
    let text = '';
    let firstTextAt = 0;
    let error: unknown = null;
    try {
      const s = await openai.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] });
      for await (const c of s) {
        const t = c.choices[0]?.delta.content ?? '';
        if (t !== '' && firstTextAt === 0) firstTextAt = Date.now();
        text += t;
      }
    } catch (e) {
      error = e;
    }
    return { text, error, firstTextAt, endedAt: Date.now() };
  }

  describe('timeouts: no stall outlives its documented limit', () => {
    it('a non-streamed answer trickled a byte at a time is cut at timeout_ms and falls over', async () => {
      const body = JSON.stringify({ id: 'chatcmpl-trk', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'slow answer' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
      let upstream: ReturnType<typeof trickle> | undefined;
      trkO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        upstream = trickle(res, body, 100);
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      const r = await ask('svc-t');
      assert.equal(r.choices[0]!.message.content, 'fallback answer');
      // Every byte came within the idle timeout: only timeout_ms can have stopped the read.
      const { sent, cut } = await upstream!.closed;
      assert.ok(cut, `the trickled answer was read to its end (${sent} of ${body.length} characters)`);
    });

    it('with no fallback, a trickled non-streamed answer is a 504 within timeout_ms', async () => {
      let upstream: ReturnType<typeof trickle> | undefined;
      trkO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        upstream = trickle(res, JSON.stringify({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(200) } }] }), 100);
      });
      await assert.rejects(ask('svc-tonly'), (e: unknown) => e instanceof OpenAI.APIError && e.status === 504);
      assert.ok((await upstream!.closed).cut, 'the trickled answer was read to its end');
    });

    it('a connection reset in the middle of a non-streamed body falls over, and only the answer is billed', async () => {
      const a2 = await createTestAccount(g.t, { credits: 1000 });
      const before = await accountCredits(g.t, a2.id);
      trkO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"id": "chatcmpl-trk", "choices": [{"index": 0, "message": {"role": "assistant", "content": "half');
        setTimeout(() => res.destroy(), 30);
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      const r = await g.client(a2.key).chat.completions.create({ model: 'svc-t', messages: [{ role: 'user', content: 'hello' }] });
      assert.equal(r.choices[0]!.message.content, 'fallback answer');
      const rows = await waitForUsage(g.t, a2.id, 1);
      assert.deepEqual([rows.length, rows[0]!.provider], [1, 'main-openai']);
      assert.equal(before.credits - (await accountCredits(g.t, a2.id)).credits, expectedCost(PRICES['svc-fast'], USAGE));
    });

    it('a 200 stream of an HTML page (a proxy in the way) falls over', async () => {
      trkO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>502 Bad Gateway: upstream openai unreachable</body></html>');
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      const r = await readChat('svc-t');
      assert.deepEqual([r.error, r.text], [null, 'fallback answer']);
    });

    it('before the first content, a trickle of an unfinished event falls over at first_byte_timeout_ms', async () => {
      let upstream: ReturnType<typeof trickle> | undefined;
      trkO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        upstream = trickle(res, chunk({ role: 'assistant', content: 'never finished' }).repeat(5), 60);
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      const r = await readChat('svc-t');
      assert.equal(r.error, null);
      assert.equal(r.text, 'fallback answer');
      // A byte every 60 ms keeps the idle timer from firing: only first_byte_timeout_ms stops the read.
      assert.ok((await upstream!.closed).cut, 'the trickled stream was read to its end');
    });

    const keepAlives: Record<string, { upstream: () => ScriptedUpstream; model: string; script: (gapMs: number) => Script }> = {
      'SSE comments from an OpenAI-kind upstream': {
        upstream: () => trkO,
        model: 'svc-t',
        script: (gapMs) => (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }));
          every(res, gapMs, () => ': keep-alive\n\n');
        },
      },
      "Anthropic's ping events": {
        upstream: () => trkA,
        model: 'svc-ta',
        script: (gapMs) => (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(messageStart + textStart + textDelta('Once upon a time'));
          every(res, gapMs, () => ev({ type: 'ping' }));
        },
      },
    };
    for (const [name, k] of Object.entries(keepAlives)) {
      it(`keep-alives just under idle_timeout_ms after content (${name}) end the stream at idle_timeout_ms, not at twice it`, async () => {
        const a2 = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(a2.key);
        k.upstream().scripts.push(k.script(IDLE_MS - 60));
        let firstTextAt = 0;
        let error: unknown = null;
        try {
          const s = await client.chat.completions.create({ model: k.model, stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] });
          for await (const c of s) if ((c.choices[0]?.delta.content ?? '') !== '' && firstTextAt === 0) firstTextAt = Date.now();
        } catch (e) {
          error = e;
        }
        const silentFor = Date.now() - firstTextAt;
        assert.ok(error instanceof OpenAI.APIError && /timed out/.test(error.message), `ended with the timeout error: ${String(error)}`);
        assert.ok(firstTextAt > 0 && silentFor < IDLE_MS + 200, `the stream stayed open ${silentFor} ms after its last content; idle_timeout_ms is ${IDLE_MS}`);
        const [row] = await waitForUsage(g.t, a2.id, 1);
        assert.equal(row!.status, 504);
        assert.ok(BigInt(row!.cost_micro) > 0n, 'billed for what was delivered');
      });
    }
  });

  describe("OpenRouter's errors inside a 200", () => {
    const routerError = { error: { code: 502, message: 'Provider returned error', metadata: { provider_name: 'OpenAI', raw: 'gpt-4.1-mini at https://internal.example/v1 failed' } } };

    it('a non-streamed 200 whose body is an error falls over; with no fallback it is a 502 that names no upstream', async () => {
      trkO.scripts.push((_req, res) => sendJson(res, 200, routerError));
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      assert.equal((await ask('svc-t')).choices[0]!.message.content, 'fallback answer');
      trkO.scripts.push((_req, res) => sendJson(res, 200, routerError));
      const e = await ask('svc-tonly').then(
        () => assert.fail('answered'),
        (x: unknown) => x,
      );
      assert.ok(e instanceof OpenAI.APIError && e.status === 502, String(e));
      assertNoLeak(e.message, 'error', ports);
    });

    it('a non-streamed 200 whose choice finished with "error" falls over instead of answering nothing', async () => {
      trkO.scripts.push((_req, res) =>
        sendJson(res, 200, { id: 'gen-trk0123456789', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'error' }], usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 } }),
      );
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      assert.equal((await ask('svc-t')).choices[0]!.message.content, 'fallback answer');
    });

    const midStream: Record<string, string> = {
      'a chunk with finish_reason "error" and the error': chunk({ content: '' }, 'error', routerError),
      'a chunk with finish_reason "error" alone, then [DONE]': chunk({ content: '' }, 'error') + 'data: [DONE]\n\n',
      // vLLM and FastChat-style servers stream their errors as an object of this shape.
      'an {"object": "error"} chunk, then [DONE]': `data: ${JSON.stringify({ object: 'error', message: 'gpt-4.1-mini ran out of KV cache at trk-openai', type: 'InternalServerError', param: null, code: 500 })}\n\ndata: [DONE]\n\n`,
    };
    for (const [name, tail] of Object.entries(midStream)) {
      it(`after content, ${name}: the client gets an error, not a clean end, and no second upstream is called`, async () => {
        const a2 = await createTestAccount(g.t, { credits: 1000 });
        const seen = g.openai.requests.length;
        trkO.scripts.push((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }));
          setTimeout(() => res.end(tail), 30);
        });
        const text = await fetch(`${g.t.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a2.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'svc-t', stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] }),
        }).then((r) => r.text());
        const events = text.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
        assert.equal(events.at(-1), '[DONE]');
        const error = JSON.parse(events.at(-2)!) as { error?: unknown };
        assert.ok(error.error !== undefined, `the last chunk before [DONE] is an error: ${text}`);
        assert.ok(!text.includes('"finish_reason":"stop"'), 'no clean finish');
        assertNoLeak(text, 'stream', ports);
        assert.equal(g.openai.requests.length, seen, 'no fallback after the first byte');
        const [row] = await waitForUsage(g.t, a2.id, 1);
        assert.ok(row!.status >= 500, `status ${row!.status}`);
      });
    }
  });

  describe("retry-after: the upstream's wait reaches the client", () => {
    const upstreamLimitHeaders = { 'x-ratelimit-limit-requests': '5000', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '7m12s' };

    async function refused(model: string, stream = false): Promise<Response> {
      return postJson(g, acct.key, '/v1/chat/completions', { model, stream, messages: [{ role: 'user', content: 'hello' }] });
    }

    const cases: { name: string; headers: () => Record<string, string>; expect: [number, number] }[] = [
      { name: 'a 429 with retry-after as an HTTP date', headers: () => ({ 'retry-after': new Date(Date.now() + 30_000).toUTCString() }), expect: [28, 31] },
      { name: 'a 429 with retry-after-ms', headers: () => ({ 'retry-after-ms': '2500' }), expect: [3, 3] },
      { name: 'a 429 with retry-after in seconds, past the cap', headers: () => ({ 'retry-after': '40' }), expect: [40, 40] },
      { name: 'a 429 with no retry-after', headers: () => ({}), expect: [1, 1] },
    ];
    for (const c of cases) {
      for (const stream of [false, true]) {
        it(`${c.name}${stream ? ', streamed' : ''}: the client's 429 carries it, and the service's own rate-limit headers`, async () => {
          trkO.scripts.push((_req, res) => sendJson(res, 429, { error: { message: 'Rate limit reached for gpt-4.1-mini', type: 'requests' } }, { ...c.headers(), ...upstreamLimitHeaders }));
          const r = await refused('svc-tonly', stream);
          assert.equal(r.status, 429);
          const wait = Number(r.headers.get('retry-after'));
          assert.ok(wait >= c.expect[0] && wait <= c.expect[1], `retry-after ${r.headers.get('retry-after')}`);
          assert.equal(r.headers.get('x-ratelimit-limit-requests'), '100000', "the service's limit, not the upstream's");
          assert.notEqual(r.headers.get('x-ratelimit-reset-requests'), '7m12s');
          assert.equal(r.headers.get('retry-after-ms'), null);
          assertNoLeak(await r.text(), '429 body', ports);
        });
      }
    }

    it("an upstream 503 or Anthropic 529 with retry-after: the client's 503 carries it", async () => {
      trkO.scripts.push((_req, res) => sendJson(res, 503, { error: { message: 'overloaded', type: 'server_error' } }, { 'retry-after': '20' }));
      let r = await refused('svc-tonly');
      assert.deepEqual([r.status, r.headers.get('retry-after')], [503, '20']);
      trkA.scripts.push((_req, res) => sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after': '12' }));
      r = await refused('svc-taonly');
      assert.deepEqual([r.status, r.headers.get('retry-after')], [503, '12']);
      // Without one the client's own backoff decides.
      trkO.scripts.push((_req, res) => sendJson(res, 503, { error: { message: 'overloaded', type: 'server_error' } }));
      r = await refused('svc-tonly');
      assert.deepEqual([r.status, r.headers.get('retry-after')], [503, null]);
    });
  });

  describe('rate-limit headers on every answer', () => {
    it('every answer of a mixed sequence carries the three headers, remaining counting down by one', async () => {
      const a2 = await createTestAccount(g.t, { credits: 1000 });
      const broke = await createTestAccount(g.t, { credits: 0 });
      const chat = (model: string, stream = false) => ({ model, stream, messages: [{ role: 'user', content: 'Tell me a story.' }] });
      g.openai.chat.enqueue({ text: 'a', usage: USAGE }, { text: 'b', usage: USAGE }, { text: 'c', usage: USAGE });
      trkO.scripts.push(
        (_req, res) => sendJson(res, 429, { error: { message: 'slow down', type: 'requests' } }, { 'retry-after': '9', 'x-ratelimit-remaining-requests': '0' }),
        (_req, res) => sendJson(res, 500, { error: { message: 'boom', type: 'server_error' } }),
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'x-ratelimit-remaining-requests': '0' });
          res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once' }));
          setTimeout(() => res.destroy(), 30);
        },
      );
      const steps: [string, () => Promise<Response>, number][] = [
        ['chat', () => postJson(g, a2.key, '/v1/chat/completions', chat('svc-fast')), 200],
        ['chat streamed', () => postJson(g, a2.key, '/v1/chat/completions', chat('svc-fast', true)), 200],
        ['a 400', () => postJson(g, a2.key, '/v1/chat/completions', { model: 'svc-fast' }), 400],
        ['a 404', () => postJson(g, a2.key, '/v1/chat/completions', chat('svc-nope')), 404],
        ["an upstream's 429", () => postJson(g, a2.key, '/v1/chat/completions', chat('svc-tonly')), 429],
        ["an upstream's 500", () => postJson(g, a2.key, '/v1/chat/completions', chat('svc-tonly')), 502],
        ['a stream cut after its first byte', () => postJson(g, a2.key, '/v1/chat/completions', chat('svc-tonly', true)), 200],
        ['messages with x-api-key', () => fetch(`${g.t.url}/inference/v1/messages`, { method: 'POST', headers: { 'x-api-key': a2.key, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) }), 200],
        ['count_tokens', () => postJson(g, a2.key, '/inference/v1/messages/count_tokens', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }), 200],
        ['embeddings', () => postJson(g, a2.key, '/v1/embeddings', { model: 'svc-embed', input: 'hi' }), 200],
      ];
      let last: number | null = null;
      for (const [name, send, status] of steps) {
        const r = await send();
        await r.text();
        assert.equal(r.status, status, name);
        assert.equal(r.headers.get('x-ratelimit-limit-requests'), '100000', name);
        assert.match(r.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/, name);
        const remaining = Number(r.headers.get('x-ratelimit-remaining-requests'));
        if (last !== null) assert.equal(remaining, last - 1, `${name}: remaining counts down by one`);
        last = remaining;
      }
      for (const path of ['/v1/models', '/v1/available-models']) {
        const m = await fetch(`${g.t.url}${path}`, { headers: { authorization: `Bearer ${a2.key}` } });
        await m.text();
        assert.equal(m.status, 200);
        // Reading the catalog shows the budget without spending it.
        assert.deepEqual([m.headers.get('x-ratelimit-limit-requests'), Number(m.headers.get('x-ratelimit-remaining-requests'))], ['100000', last], path);
      }
      const r = await postJson(g, broke.key, '/v1/chat/completions', chat('svc-fast'));
      assert.equal(r.status, 402);
      assert.equal(r.headers.get('x-ratelimit-limit-requests'), '100000', 'a 402 too');
    });
  });

  describe('fallbacks never double-bill', () => {
    /** An Anthropic stream that reports its input at message_start, then fails before any content. */
    const startsThenFails: Script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(messageStart + ev({ type: 'ping' }) + ev({ type: 'error', error: { type: 'api_error', message: 'Internal server error at claude-sonnet-4-5' } }));
    };

    for (const protocol of ['chat', 'messages', 'responses', 'completions'] as const) {
      it(`${protocol}: usage reported before a failure is not billed; only the answering call is`, async () => {
        const a2 = await createTestAccount(g.t, { credits: 1000 });
        const before = await accountCredits(g.t, a2.id);
        trkA.scripts.push(startsThenFails);
        g.anthropic.chat.enqueue({ text: 'fine', usage: USAGE });
        const body =
          protocol === 'messages'
            ? { model: 'svc-ta', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hello' }] }
            : protocol === 'responses'
              ? { model: 'svc-ta', stream: true, input: 'hello' }
              : protocol === 'completions'
                ? { model: 'svc-ta', stream: true, prompt: 'hello' }
                : { model: 'svc-ta', stream: true, messages: [{ role: 'user', content: 'hello' }] };
        const path = { chat: '/v1/chat/completions', messages: '/inference/v1/messages', responses: '/v1/responses', completions: '/v1/completions' }[protocol];
        const r = await postJson(g, a2.key, path, body);
        const text = await r.text();
        assert.equal(r.status, 200);
        assert.ok(text.includes('fine'), text);
        const rows = await waitForUsage(g.t, a2.id, 1);
        await sleep(100);
        assert.equal((await waitForUsage(g.t, a2.id, 1)).length, 1, 'one usage record');
        assert.deepEqual([rows[0]!.provider, rows[0]!.input_tokens, rows[0]!.output_tokens], ['main-anthropic', USAGE.input, USAGE.output]);
        const cost = expectedCost(PRICES['svc-vision'], USAGE);
        assert.equal(before.credits - (await accountCredits(g.t, a2.id)).credits, cost);
      });
    }

    it("a pipeline's executor that fails after message_start: the next executor serves, billed once at the pipeline's prices, the record naming brand and lane", async () => {
      const a2 = await createTestAccount(g.t, { credits: 1000 });
      const client = g.client(a2.key);
      const before = await accountCredits(g.t, a2.id);
      trkA.scripts.push(startsThenFails);
      g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
      const { data, response } = await client.chat.completions.create({ model: 'svc-shiplow', stream: true, messages: [{ role: 'user', content: 'Tell me about the weather.' }] }).withResponse();
      let text = '';
      for await (const c of data) {
        assert.equal(c.model, 'svc-shiplow');
        text += c.choices[0]?.delta.content ?? '';
      }
      assert.equal(text, 'fallback answer');
      assert.deepEqual([response.headers.get('x-svc-model'), response.headers.get('x-svc-lane')], ['svc-fast', 'general']);
      const rows = await waitForUsage(g.t, a2.id, 1);
      assert.equal(rows.length, 1);
      assert.deepEqual([rows[0]!.model, rows[0]!.served_model, rows[0]!.lane, rows[0]!.provider, rows[0]!.status], ['svc-shiplow', 'svc-fast', 'general', 'main-openai', 200]);
      const cost = expectedCost(PRICES['svc-shiplow'], USAGE);
      assert.equal(BigInt(rows[0]!.cost_micro), cost);
      assert.equal(before.credits - (await accountCredits(g.t, a2.id)).credits, cost);
    });

    it('a pipeline request every executor failed: the record names the brand last tried (the code lane, then general) and the lane it was routed by, nothing billed', async () => {
      const a2 = await createTestAccount(g.t, { credits: 1000 });
      g.openai.chat.enqueue({ error: { status: 500 } });
      const r = await postJson(g, a2.key, '/v1/chat/completions', { model: 'svc-shiplow', messages: [{ role: 'user', content: 'Fix this Python function:\n\ndef add(a, b):\n    return a - b' }] });
      assert.equal(r.status, 502);
      assertNoLeak(await r.text(), 'error', ports);
      const [row] = await waitForUsage(g.t, a2.id, 1);
      assert.deepEqual([row!.model, row!.served_model, row!.lane, row!.status, BigInt(row!.cost_micro)], ['svc-shiplow', 'svc-taonly', 'code', 502, 0n]);
    });
  });

  describe('after the first byte, in the Anthropic protocol', () => {
    const cuts: Record<string, { tail: string; type: string }> = {
      'the body ending without message_delta or message_stop': { tail: '', type: 'api_error' },
      'an api_error event': { tail: ev({ type: 'error', error: { type: 'api_error', message: `claude-sonnet-4-5 failed at https://internal.example (key ${UPSTREAM_KEY})` } }), type: 'api_error' },
      'an overloaded_error event': { tail: ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), type: 'overloaded_error' },
      'a malformed event': { tail: 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n', type: 'api_error' },
    };
    for (const [name, cut] of Object.entries(cuts)) {
      it(`${name} mid-answer: the client's stream ends with event: error of type ${cut.type}, no message_stop, nothing leaked`, async () => {
        const a2 = await createTestAccount(g.t, { credits: 1000 });
        const seen = g.anthropic.requests.length;
        trkA.scripts.push((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(messageStart + textStart + textDelta('Once upon a time'));
          setTimeout(() => res.end(cut.tail), 30);
        });
        const r = await fetch(`${g.t.url}/inference/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': a2.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: 'svc-ta', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] }),
        });
        const text = await r.text();
        const events = text.split('\n\n').filter((e) => e !== '');
        const last = events.at(-1)!;
        assert.match(last, /^event: error\ndata: /, text);
        assert.equal((JSON.parse(last.split('\ndata: ')[1]!) as { error: { type: string } }).error.type, cut.type);
        assert.ok(!text.includes('message_stop'), 'no clean end');
        assertNoLeak(text, 'stream', ports);
        assert.equal(g.anthropic.requests.length, seen, 'no fallback after the first byte');
        // The SDK throws on it.
        trkA.scripts.push((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(messageStart + textStart + textDelta('Once upon a time'));
          setTimeout(() => res.end(cut.tail), 30);
        });
        const client = new Anthropic({ apiKey: a2.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
        await assert.rejects(async () => {
          for await (const e of await client.messages.create({ model: 'svc-ta', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] })) void e;
        }, Anthropic.APIError);
      });
    }
  });

  it('an upstream 400 that echoes its key, URL, host and model reaches the client as a 400 naming none of them', async () => {
    trkO.scripts.push((req, res) =>
      sendJson(res, 400, { error: { message: `Invalid value for 'model' gpt-4.1-mini with key ${UPSTREAM_KEY} at http://${req.headers.host}/v1/chat/completions and https://internal.example/v1 (request gen-abc123def456)`, type: 'invalid_request_error' } }),
    );
    const r = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-tonly', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(r.status, 400);
    const text = await r.text();
    assertNoLeak(text, '400 body', ports);
    assertNoLeak([...r.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n'), '400 headers', ports);
    assert.ok(typeof (JSON.parse(text) as { error: unknown }).error === 'string', 'the documented error shape');
  });
});
