import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY } from './fakes/fake-anthropic.ts';
import { FAKE_OPENAI_KEY } from './fakes/fake-openai.ts';
import { sendJson } from './fakes/fake-server.ts';
import { startScripted, type Script, type ScriptedUpstream } from './fakes/scripted-upstream.ts';
import { waitForUsage, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

/**
 * The third audit of routing and resilience (docs/api-decisions.md, "Routing and resilience: third
 * audit"): `max_total_ms` as a deadline that cuts the call in flight, through the official SDKs
 * against fake upstreams on loopback that stall.
 */

const chunk = (delta: unknown, finish: string | null = null, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-stl', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const ev = (data: { type: string } & Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const messageStart = ev({ type: 'message_start', message: { id: 'msg_stl', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: 40, output_tokens: 1 } } });

/** Never answers: the connection stays open until the caller closes it. */
const stall: Script = () => {};

/**
 * Writes `head`, then `piece` over and over as fast as the connection takes it, up to `totalBytes`
 * (a bound for the test machine's sake: far past the caps set here), then holds the body open.
 */
function flood(res: ServerResponse, head: string, piece: string, totalBytes: number): void {
  let sent = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  const pump = () => {
    while (!closed && sent < totalBytes) {
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
  };
  res.write(head);
  pump();
}

const MiB = 1024 * 1024;
const FLOOD_BYTES = 64 * MiB;
const FILLER = 'x'.repeat(64 * 1024);

/** Sends each piece in turn every `everyMs`, then ends the body. */
function paced(res: ServerResponse, pieces: readonly string[], everyMs: number): void {
  let i = 0;
  const t = setInterval(() => {
    if (i < pieces.length) res.write(pieces[i++]);
    else {
      clearInterval(t);
      res.end();
    }
  }, everyMs);
  res.on('close', () => clearInterval(t));
}

describe('routing and resilience: third audit', () => {
  let g: Gateway;
  let stlO: ScriptedUpstream;
  let stlA: ScriptedUpstream;

  // The request's budget, far below the stalling providers' own timeouts (60 s): only the budget
  // can end these calls before the client's own timeout gives up.
  const BUDGET_MS = 1500;
  // Longer than any answer here should take; a gateway that ignores the budget runs into it.
  const CLIENT_TIMEOUT_MS = 15_000;

  before(async () => {
    [stlO, stlA] = await Promise.all([startScripted(), startScripted()]);
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000', UPSTREAM_MAX_ANSWER_BYTES: String(MiB), UPSTREAM_MAX_EVENT_BYTES: String(MiB) },
      catalog: (f) => `
resilience: { max_retries: 0, max_total_ms: ${BUDGET_MS}, breaker: { consecutive_failures: 1000000, min_requests: 1000000 } }
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
  - { id: main-anthropic, type: anthropic, base_url: "${f.anthropic.url}", api_key: "${FAKE_ANTHROPIC_KEY}" }
  - { id: stl-openai, type: openai, base_url: "${stlO.url}/v1", api_key: "sk-stl-key-0123456789", timeout_ms: 60000 }
  - { id: stl-anthropic, type: anthropic, base_url: "${stlA.url}", api_key: "sk-stl-key-0123456789", timeout_ms: 60000 }
models:
  - { id: svc-fast, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: main-openai, model: gpt-4.1-mini }] }
  - { id: svc-s, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: stl-openai, model: gpt-4.1-mini }, { provider: main-openai, model: gpt-4.1-mini }] }
  - { id: svc-so, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: stl-openai, model: gpt-4.1-mini }] }
  - { id: svc-sao, type: chat, pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }, deployments: [{ provider: stl-anthropic, model: claude-sonnet-4-5 }] }
  - { id: svc-pipe, type: chat, pricing: { input: 0.30, cached_input: 0.075, output: 0.60 }, pipeline: { general: [svc-sao, svc-so] } }
  - { id: svc-sa, type: chat, pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }, deployments: [{ provider: stl-anthropic, model: claude-sonnet-4-5 }, { provider: main-anthropic, model: claude-sonnet-4-5 }] }
`,
    });
  });
  after(async () => {
    await g.close();
    await Promise.all([stlO.close(), stlA.close()]);
  });

  async function account() {
    const a = await createTestAccount(g.t, { credits: 100_000 });
    return {
      ...a,
      openai: new OpenAI({ apiKey: a.key, baseURL: `${g.t.url}/v1`, maxRetries: 0, timeout: CLIENT_TIMEOUT_MS }),
      anthropic: new Anthropic({ apiKey: a.key, baseURL: g.t.url, maxRetries: 0, timeout: CLIENT_TIMEOUT_MS }),
    };
  }

  /** The request's one usage record: a 504, nothing billed, and the stalled call was closed. */
  async function assertCutByBudget(accountId: number, stalled: ScriptedUpstream, seenByFallback: number, fallbackRequests: () => number): Promise<void> {
    assert.equal(await stalled.requests.at(-1)!.closed, 'aborted', 'the stalled call is closed');
    assert.equal(fallbackRequests(), seenByFallback, 'no call starts once the budget is spent');
    const rows = await waitForUsage(g.t, accountId, 1);
    assert.deepEqual([rows.length, rows[0]!.status, rows[0]!.cost_micro], [1, 504, '0']);
  }

  const is504 = (e: unknown) => (e instanceof OpenAI.APIError || e instanceof Anthropic.APIError) && e.status === 504 && !/stl|127\.0\.0\.1|gpt|claude/i.test(e.message);

  describe('max_total_ms cuts the call in flight', () => {
    it('a non-streamed call that never answers is cut when the budget runs out: 504, nothing billed', async () => {
      const a = await account();
      const seen = g.openai.requests.length;
      stlO.scripts.push(stall);
      await assert.rejects(a.openai.chat.completions.create({ model: 'svc-s', messages: [{ role: 'user', content: 'hello' }] }), is504);
      await assertCutByBudget(a.id, stlO, seen, () => g.openai.requests.length);
    });

    it('a non-streamed call whose body stops after the headers is cut too', async () => {
      const a = await account();
      const seen = g.openai.requests.length;
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": "chatcmpl-stl", "choices": [');
      });
      await assert.rejects(a.openai.chat.completions.create({ model: 'svc-s', messages: [{ role: 'user', content: 'hello' }] }), is504);
      await assertCutByBudget(a.id, stlO, seen, () => g.openai.requests.length);
    });

    it('a stream that sends its role chunk and no content is cut before the first byte: a 504 status', async () => {
      const a = await account();
      const seen = g.openai.requests.length;
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }));
      });
      await assert.rejects(a.openai.chat.completions.create({ model: 'svc-s', stream: true, messages: [{ role: 'user', content: 'hello' }] }), is504);
      await assertCutByBudget(a.id, stlO, seen, () => g.openai.requests.length);
    });

    it('a Messages stream stalled after message_start is cut before the first byte: a 504 status', async () => {
      const a = await account();
      const seen = g.anthropic.requests.length;
      stlA.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(messageStart);
      });
      await assert.rejects(a.anthropic.messages.create({ model: 'svc-sa', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hello' }] }), is504);
      await assertCutByBudget(a.id, stlA, seen, () => g.anthropic.requests.length);
    });

    it('a stream that has started is not cut by the budget: it runs to its end past max_total_ms', async () => {
      const a = await account();
      const words = ['Once', ' upon', ' a', ' time', ' there', ' was', ' a', ' slow', ' story', '.'];
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }));
        // Ten pieces 300 ms apart: the answer ends well after the budget of 1.5 s.
        paced(res, [...words.map((w) => chunk({ content: w })), chunk({}, 'stop', { usage: { prompt_tokens: 9, completion_tokens: 10, total_tokens: 19 } }), 'data: [DONE]\n\n'], 300);
      });
      const s = await a.openai.chat.completions.create({ model: 'svc-s', stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] });
      let text = '';
      let finish: string | null = null;
      for await (const c of s) {
        text += c.choices[0]?.delta.content ?? '';
        finish = c.choices[0]?.finish_reason ?? finish;
      }
      assert.deepEqual([text, finish], [words.join(''), 'stop']);
      const [row] = await waitForUsage(g.t, a.id, 1);
      assert.deepEqual([row!.status, row!.output_tokens], [200, 10]);
    });
  });

  describe('answers past the size caps fail over like any failure', () => {
    it('a non-streamed answer larger than UPSTREAM_MAX_ANSWER_BYTES falls over; only the answer is billed', async () => {
      const a = await account();
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        flood(res, '{"id": "chatcmpl-stl", "choices": [{"index": 0, "message": {"role": "assistant", "content": "', FILLER, FLOOD_BYTES);
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: { input: 50, cached: 0, output: 7 } });
      const r = await a.openai.chat.completions.create({ model: 'svc-s', messages: [{ role: 'user', content: 'hello' }] });
      assert.equal(r.choices[0]!.message.content, 'fallback answer');
      assert.equal(await stlO.requests.at(-1)!.closed, 'aborted', 'the oversized answer is closed');
      const rows = await waitForUsage(g.t, a.id, 1);
      assert.deepEqual([rows.length, rows[0]!.provider, rows[0]!.output_tokens], [1, 'main-openai', 7]);
    });

    it('a streamed call answered with one JSON body past the cap falls over', async () => {
      const a = await account();
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        flood(res, '{"id": "chatcmpl-stl", "choices": [{"index": 0, "message": {"role": "assistant", "content": "', FILLER, FLOOD_BYTES);
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: { input: 50, cached: 0, output: 7 } });
      let text = '';
      for await (const c of await a.openai.chat.completions.create({ model: 'svc-s', stream: true, messages: [{ role: 'user', content: 'hello' }] })) text += c.choices[0]?.delta.content ?? '';
      assert.equal(text, 'fallback answer');
      assert.equal(await stlO.requests.at(-1)!.closed, 'aborted');
    });

    it('before the first content, an SSE event that never ends falls over at UPSTREAM_MAX_EVENT_BYTES', async () => {
      const a = await account();
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        flood(res, 'data: {"id": "chatcmpl-stl", "choices": [{"index": 0, "delta": {"content": "', FILLER, FLOOD_BYTES);
      });
      g.openai.chat.enqueue({ text: 'fallback answer', usage: { input: 50, cached: 0, output: 7 } });
      let text = '';
      for await (const c of await a.openai.chat.completions.create({ model: 'svc-s', stream: true, messages: [{ role: 'user', content: 'hello' }] })) text += c.choices[0]?.delta.content ?? '';
      assert.equal(text, 'fallback answer');
      assert.equal(await stlO.requests.at(-1)!.closed, 'aborted');
      const rows = await waitForUsage(g.t, a.id, 1);
      assert.deepEqual([rows.length, rows[0]!.provider], [1, 'main-openai']);
    });

    it('after the first content, an SSE event that never ends ends the stream with an error, billed for what was delivered', async () => {
      const a = await account();
      const seen = g.openai.requests.length;
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        flood(res, chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }) + 'data: {"id": "chatcmpl-stl", "choices": [{"index": 0, "delta": {"content": "', FILLER, FLOOD_BYTES);
      });
      let text = '';
      let error: unknown = null;
      try {
        for await (const c of await a.openai.chat.completions.create({ model: 'svc-s', stream: true, messages: [{ role: 'user', content: 'hello' }] })) text += c.choices[0]?.delta.content ?? '';
      } catch (e) {
        error = e;
      }
      assert.equal(text, 'Once upon a time');
      assert.ok(error instanceof OpenAI.APIError && /too large/.test(error.message) && !/stl|127\.0\.0\.1|gpt/i.test(error.message), `the stream ends with an error: ${String(error)}`);
      assert.equal(await stlO.requests.at(-1)!.closed, 'aborted');
      assert.equal(g.openai.requests.length, seen, 'no fallback after the first byte');
      const [row] = await waitForUsage(g.t, a.id, 1);
      assert.ok(row!.status >= 500 && BigInt(row!.cost_micro) > 0n, `billed for what was delivered: ${JSON.stringify(row)}`);
    });
  });

  describe('probes of the routing documents', () => {
    it('a pipeline whose first executor fails and whose fallback stalls is cut by the budget: 504, the lane tried last on the record, nothing billed', async () => {
      const a = await account();
      stlA.scripts.push((_req, res) => sendJson(res, 503, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      stlO.scripts.push(stall);
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-pipe', messages: [{ role: 'user', content: 'What are fun things to do in Paris?' }] }),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      assert.equal(r.status, 504);
      assert.deepEqual(await r.json(), { error: 'no upstream answered within the time the request may take' });
      assert.equal(r.headers.get('x-svc-model'), null, 'no executor answered');
      assert.equal(await stlO.requests.at(-1)!.closed, 'aborted');
      const [row] = await waitForUsage(g.t, a.id, 1);
      assert.deepEqual([row!.status, row!.cost_micro, row!.served_model, row!.lane], [504, '0', 'svc-so', 'general']);
    });

    it('a responses stream stalled before its first content is a 504 status, not an empty stream', async () => {
      const a = await account();
      stlO.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }));
      });
      await assert.rejects(a.openai.responses.create({ model: 'svc-so', stream: true, input: 'hello' }), is504);
      assert.equal(await stlO.requests.at(-1)!.closed, 'aborted');
    });

    it('a Messages stream whose event grows past the cap after content ends with an error event the SDK throws', async () => {
      const a = await account();
      stlA.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const start = ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
        const delta = ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Once upon a time' } });
        flood(res, messageStart + start + delta + 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "', FILLER, FLOOD_BYTES);
      });
      let text = '';
      let error: unknown = null;
      try {
        const s = a.anthropic.messages.stream({ model: 'svc-sao', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
        s.on('text', (t) => (text += t));
        await s.finalMessage();
      } catch (e) {
        error = e;
      }
      assert.equal(text, 'Once upon a time');
      assert.ok(error instanceof Anthropic.APIError && /too large/.test(error.message) && !/stl|127\.0\.0\.1|claude/i.test(error.message), String(error));
      const [row] = await waitForUsage(g.t, a.id, 1);
      assert.ok(row!.status >= 500 && BigInt(row!.cost_micro) > 0n, JSON.stringify(row));
    });
  });
});
