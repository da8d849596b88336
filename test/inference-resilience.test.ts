import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { parseChatCompletionRequest } from '../src/inference/formats/openai-chat/parse-chat-completion-request.ts';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import { countTextTokens, estimateChatInputTokens } from '../src/inference/tokens/count-tokens.ts';
import { FAKE_OPENAI_KEY, startFakeOpenAI, type FakeOpenAI } from './fakes/fake-openai.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { accountCredits, expectedCost, waitForUsage } from './helpers/gateway.ts';
import { createTestAccount, manualClock, type TestAccount } from './helpers/inference.ts';
import { closedPort } from './helpers/closed-port.ts';

const PRICE = { input: 450_000n, cached: 112_500n, output: 900_000n };
const COOLDOWN_MS = 60_000;

/**
 * Three OpenAI-style fakes (a, b, c) and a refused port. svc-fast: a then b (fallback order);
 * svc-pair: b and c at one priority (balanced); svc-refused: the refused port, then a. Small
 * timeouts and backoffs; the breaker runs on the test's clock.
 */
function catalog(a: FakeOpenAI, b: FakeOpenAI, c: FakeOpenAI, refusedPort: number): string {
  const provider = (id: string, url: string) =>
    `  - { id: ${id}, type: openai, base_url: "${url}", api_key: "${FAKE_OPENAI_KEY}", timeout_ms: 1500, first_byte_timeout_ms: 400, idle_timeout_ms: 400, connect_timeout_ms: 1000 }`;
  const model = (id: string, deployments: string) => `  - { id: ${id}, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [${deployments}] }`;
  return `
resilience:
  max_retries: 1
  backoff_base_ms: 1
  backoff_max_ms: 5
  retry_after_cap_ms: 200
  max_attempts: 6
  breaker: { consecutive_failures: 3, failure_ratio: 0.9, min_requests: 1000, cooldown_ms: ${COOLDOWN_MS} }
providers:
${provider('a', a.baseUrl)}
${provider('b', b.baseUrl)}
${provider('c', c.baseUrl)}
${provider('refused', `http://127.0.0.1:${refusedPort}/v1`)}
models:
${model('svc-fast', '{ provider: a, model: up-fast }, { provider: b, model: up-fast }')}
${model('svc-pair', '{ provider: b, model: up-pair, priority: 0 }, { provider: c, model: up-pair, priority: 0 }')}
${model('svc-refused', '{ provider: refused, model: up-gone }, { provider: a, model: up-fast }')}
`;
}

describe('resilient upstreams: retries, fallbacks, timeouts and breakers', () => {
  const clock = manualClock();
  let a: FakeOpenAI, b: FakeOpenAI, c: FakeOpenAI;
  let t: TestApp;
  let dir: string;
  let acct: TestAccount;
  let client: OpenAI;

  before(async () => {
    [a, b, c] = await Promise.all([startFakeOpenAI(), startFakeOpenAI(), startFakeOpenAI()]);
    dir = mkdtempSync(join(tmpdir(), 'svc-resilience-'));
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, catalog(a, b, c, await closedPort()));
    t = await startTestApp({ clock, env: { CONFIG_FILE: file, RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' } });
    await t.listen();
    acct = await createTestAccount(t, { credits: 1000 });
    client = new OpenAI({ apiKey: acct.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await t.close();
    await Promise.all([a.close(), b.close(), c.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (model = 'svc-fast') => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const counts = () => [a.requests.length, b.requests.length, c.requests.length];
  const delta = (before: number[]) => counts().map((n, i) => n - before[i]!);

  async function upstream(key: string): Promise<Record<string, unknown>> {
    const r = await t.app.inject({ url: '/admin/upstreams', headers: t.admin });
    assert.equal(r.statusCode, 200);
    const row = (r.json().data as { deployment: string }[]).find((d) => d.deployment === key);
    assert.ok(row, key);
    return row as Record<string, unknown>;
  }

  it('retries a 503 on the same deployment, billing only the call that answered', async () => {
    const before = counts();
    const credits = await accountCredits(t, acct.id);
    a.chat.enqueue({ error: { status: 503 } }, { text: 'second try', usage: { input: 100, cached: 0, output: 10 } });
    const r = await ask();
    assert.equal(r.choices[0]!.message.content, 'second try');
    assert.deepEqual(delta(before), [2, 0, 0]);
    const [row] = await waitForUsage(t, acct.id, 1);
    assert.deepEqual([row!.provider, row!.input_tokens, row!.output_tokens], ['a', 100, 10]);
    assert.equal(credits.credits - (await accountCredits(t, acct.id)).credits, expectedCost(PRICE, { input: 100, output: 10 }));
  });

  it("waits out a 429's retry-after within the cap, and moves on at once past it", async () => {
    let before = counts();
    a.chat.enqueue({ error: { status: 429, headers: { 'retry-after-ms': '30' } } });
    await ask();
    assert.deepEqual(delta(before), [2, 0, 0], 'retried on the same deployment');
    before = counts();
    a.chat.enqueue({ error: { status: 429, headers: { 'retry-after': '120' } } });
    await ask();
    assert.deepEqual(delta(before), [1, 1, 0], 'two minutes is past the cap: the next deployment serves');
  });

  it('falls back past a refused connection', async () => {
    const before = counts();
    const r = await ask('svc-refused');
    assert.equal(r.model, 'svc-refused');
    assert.deepEqual(delta(before), [1, 0, 0]);
    const refused = await upstream('refused/up-gone');
    assert.equal((refused.last_failure as { class: string }).class, 'connection');
    assert.match(String(refused.health), /could not be reached/);
  });

  it('times out a hang before the headers and tries again, streamed or not', async () => {
    for (const stream of [false, true]) {
      const before = counts();
      a.chat.enqueue({ hang: true });
      if (stream) {
        let text = '';
        for await (const ch of await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
          text += ch.choices[0]?.delta.content ?? '';
        }
        assert.equal(text, 'Hello from the fake upstream.');
      } else {
        assert.equal((await ask()).choices[0]!.message.content, 'Hello from the fake upstream.');
      }
      assert.deepEqual(delta(before), [2, 0, 0]);
      assert.equal(await a.requests.at(-2)!.closed, 'aborted', 'the hung call was given up');
    }
  });

  it('fails a stream over when its first content is slow, even after the headers came', async () => {
    const before = counts();
    a.chat.enqueue({ stallAfter: 0 }, { stallAfter: 0 });
    let text = '';
    for await (const ch of await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
      text += ch.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, 'Hello from the fake upstream.');
    assert.deepEqual(delta(before), [2, 1, 0], 'retried once on a, then b served');
  });

  it('ends a stream that hangs mid-way with an error event, billed for what was delivered', async () => {
    const acct2 = await createTestAccount(t, { credits: 1000 });
    const c2 = new OpenAI({ apiKey: acct2.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const credits = await accountCredits(t, acct2.id);
    const body = { model: 'svc-fast', messages: [{ role: 'user' as const, content: 'tell me a story' }] };
    a.chat.enqueue({ text: 'Once upon a time there was a stream that stopped.', stallAfter: 4 });
    let delivered = '';
    const before = counts();
    await assert.rejects(
      (async () => {
        for await (const ch of await c2.chat.completions.create({ ...body, stream: true })) delivered += ch.choices[0]?.delta.content ?? '';
      })(),
      (e: unknown) => e instanceof OpenAI.APIError && /timed out/.test(e.message),
    );
    assert.deepEqual(delta(before), [1, 0, 0], 'nothing is retried once the client has bytes');
    assert.ok(delivered.length > 0);
    const [row] = await waitForUsage(t, acct2.id, 1);
    assert.deepEqual([row!.status, row!.usage_source], [504, 'estimated']);
    const input = estimateChatInputTokens(parseChatCompletionRequest(body, createReasoningSealers(randomBytes(32))(1)).request);
    assert.deepEqual([row!.input_tokens, row!.output_tokens], [input, countTextTokens(delivered)]);
    const cost = expectedCost(PRICE, { input, output: countTextTokens(delivered) });
    assert.equal(BigInt(row!.cost_micro), cost);
    assert.equal(credits.credits - (await accountCredits(t, acct2.id)).credits, cost);
  });

  it('with one of two balanced deployments down: every request succeeds, the breaker opens and keeps traffic away until the probe', async () => {
    c.chat.otherwise = { error: { status: 503 } };
    const before = counts();
    for (let i = 0; i < 200; i++) {
      const r = await client.chat.completions.create({ model: 'svc-pair', messages: [{ role: 'user', content: `question ${i}` }] });
      assert.equal(r.choices[0]!.message.content, 'Hello from the fake upstream.');
    }
    assert.equal(delta(before)[2], 3, 'the dead deployment took exactly the configured 3 failures');
    assert.equal(delta(before)[1], 200, 'the live one answered every request');
    let dead = await upstream('c/up-pair');
    assert.equal(dead.breaker, 'open');
    assert.match(String(dead.health), /^down: its breaker opened after repeated failures \(last failure: answered with a server error/);
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    assert.match(metrics, /upstream_breaker_state\{provider="c",deployment="c\/up-pair"\} 2/);
    assert.match(metrics, /upstream_errors_total\{provider="c",deployment="c\/up-pair",class="server_error"\} 3/);
    assert.match(metrics, /upstream_requests_total\{provider="b",deployment="b\/up-pair",outcome="success"\} 200/);

    // After the cooldown one request probes the dead deployment; it fails, the breaker reopens.
    clock.advance(COOLDOWN_MS);
    assert.equal((await upstream('c/up-pair')).breaker, 'half_open');
    let mark = counts();
    for (let i = 0; i < 20; i++) await ask('svc-pair');
    assert.ok(delta(mark)[2]! <= 1, 'at most one probe');
    if (delta(mark)[2] === 1) assert.equal((await upstream('c/up-pair')).breaker, 'open');
    // Once it is back, the next probe closes the breaker and traffic is shared again.
    c.chat.otherwise = { text: 'Hello from the fake upstream.' };
    clock.advance(COOLDOWN_MS);
    mark = counts();
    for (let i = 0; i < 40; i++) await ask('svc-pair');
    dead = await upstream('c/up-pair');
    assert.equal(dead.breaker, 'closed');
    assert.ok(delta(mark)[2]! > 1, 'the recovered deployment serves again');
  });
});
