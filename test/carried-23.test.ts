import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { FAKE_OPENAI_KEY } from './fakes/fake-openai.ts';
import { startSseMcp, type FakeMcp } from './fakes/fake-mcp.ts';
import { sendJson } from './fakes/fake-server.ts';
import { startScripted, type Script, type ScriptedUpstream } from './fakes/scripted-upstream.ts';
import { expectedCost, postJson, PRICES, startGateway, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Carried items of session 23 (docs/api-decisions.md, "Carried items: session 23"), end to end
 * through real HTTP and the official SDKs against fake upstreams on loopback.
 */

const FORBIDDEN = (path: string) => `forbidden field name: ${path} (__proto__ and constructor.prototype are refused: they could change an object's prototype)`;

describe('a body with a __proto__ key: a 400 naming the field, in the route\'s error shape', () => {
  let g: Gateway;
  let acct: TestAccount;
  before(async () => {
    g = await startGateway();
    acct = await createTestAccount(g.t, { credits: 1000 });
  });
  after(async () => g.close());

  const raw = (path: string, body: string, key?: string) =>
    fetch(`${g.t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body });

  it('inference: a top-level and a nested __proto__, and a constructor holding prototype', async () => {
    const cases = [
      { body: '{"model":"svc-fast","messages":[{"role":"user","content":"hi"}],"__proto__":{"admin":true}}', path: '__proto__' },
      { body: '{"model":"svc-fast","messages":[{"role":"user","content":"hi","__proto__":{"x":1}}]}', path: 'messages[0].__proto__' },
      { body: '{"model":"svc-fast","messages":[{"role":"user","content":"hi"}],"metadata":{"constructor":{"prototype":{"x":1}}}}', path: 'metadata.constructor.prototype' },
    ];
    for (const c of cases) {
      const res = await raw('/v1/chat/completions', c.body, acct.key);
      assert.equal(res.status, 400, c.body);
      assert.deepEqual(await res.json(), { error: FORBIDDEN(c.path) });
    }
    assert.equal(g.openai.requests.length, 0, 'nothing went upstream');
  });

  it('market: the same refusal in the market shape', async () => {
    const res = await raw('/api/pool/estimate', '{"market_id":1,"side":"yes","amount":1,"__proto__":{"x":1}}');
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { success: false, error: FORBIDDEN('__proto__') });
  });

  it('malformed JSON stays `malformed JSON body`, and an ordinary "constructor" field is no problem', async () => {
    const bad = await raw('/v1/chat/completions', '{"model":', acct.key);
    assert.deepEqual([bad.status, await bad.json()], [400, { error: 'malformed JSON body' }]);
    g.openai.chat.enqueue({ text: 'ok' });
    const ok = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], metadata: { constructor: 'x' } });
    assert.equal(ok.status, 200, await ok.clone().text());
  });
});

describe('max_total_ms covers every model call of a /v1/responses request with MCP tool rounds', () => {
  let g: Gateway;
  let stl: ScriptedUpstream;
  let mcp: FakeMcp;
  // The request's budget, far below the stalling provider's own timeout (60 s).
  const BUDGET_MS = 1500;
  // The slow tool alone takes longer than the whole budget; its own timeout is far longer.
  const SLOW_TOOL_MS = BUDGET_MS + 400;
  const ROUND_MS = 900;
  const BUDGET_504 = 'no upstream answered within the time the request may take';
  const u1 = { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 };

  before(async () => {
    [stl, mcp] = await Promise.all([startScripted(), startSseMcp({ slowMs: SLOW_TOOL_MS })]);
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000', MCP_ALLOW_PRIVATE_NETWORKS: 'true', MCP_CALL_TIMEOUT_MS: '20000', MCP_CONNECT_TIMEOUT_MS: '5000' },
      catalog: (f) => `
resilience: { max_retries: 0, max_total_ms: ${BUDGET_MS}, breaker: { consecutive_failures: 1000000, min_requests: 1000000 } }
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
  - { id: stl-openai, type: openai, base_url: "${stl.url}/v1", api_key: "sk-stl-key-0123456789", timeout_ms: 60000 }
models:
  - { id: svc-fast, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: main-openai, model: gpt-4.1-mini }] }
  - { id: svc-so, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: stl-openai, model: gpt-4.1-mini }] }
`,
    });
  });
  after(async () => {
    await g.close();
    await Promise.all([stl.close(), mcp.close()]);
  });

  const call = (name: string, args: object) => ({ id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } });
  const toolAnswer = (name: string, args: object): Script => (_req, res) =>
    sendJson(res, 200, { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call(name, args)] }, finish_reason: 'tool_calls' }], usage: u1 });
  const textAnswer = (text: string): Script => (_req, res) =>
    sendJson(res, 200, { id: 'chatcmpl-2', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: u1 });
  const chunk = (delta: unknown, finish: string | null = null, extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const streamedToolCall = (name: string, args: object): Script => (_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...call(name, args) }] }) + chunk({}, 'tool_calls') + `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [], usage: u1 })}\n\n` + 'data: [DONE]\n\n');
  };
  const delayed = (ms: number, script: Script): Script => (req, res) => {
    const t = setTimeout(() => void script(req, res), ms);
    res.on('close', () => clearTimeout(t));
  };
  const weatherServer = { type: 'mcp' as const, server_label: 'weather', server_url: '', require_approval: 'never' as const };

  async function account() {
    // A test that failed leaves its scripts behind; each starts from none.
    stl.scripts.length = 0;
    const a = await createTestAccount(g.t, { credits: 100_000 });
    return { ...a, openai: new OpenAI({ apiKey: a.key, baseURL: `${g.t.url}/v1`, maxRetries: 0, timeout: 20_000 }) };
  }

  /** The one usage record: a 504 billed for the round that answered (its tokens were spent). */
  async function assertBilledRoundOne(accountId: number): Promise<void> {
    const rows = await waitForUsage(g.t, accountId, 1);
    assert.deepEqual([rows.length, rows[0]!.status, BigInt(rows[0]!.cost_micro)], [1, 504, expectedCost(PRICES['svc-fast'], { input: 40, output: 10 })]);
  }

  it('non-streamed: a tool round that spends the rest of the budget leaves no time for the next call: 504, the model is not asked again', async () => {
    const a = await account();
    const seen = stl.requests.length;
    stl.scripts.push(toolAnswer('slow', { city: 'Oslo' }), textAnswer('never asked'));
    const err = await a.openai.responses
      .create({ model: 'svc-so', input: 'weather?', tools: [{ ...weatherServer, server_url: mcp.url }] })
      .then(() => null, (e: unknown) => e);
    assert.ok(err instanceof OpenAI.APIError, String(err));
    assert.deepEqual([err.status, err.error], [504, BUDGET_504]);
    assert.equal(stl.requests.length, seen + 1, 'only the first round reached the upstream');
    assert.deepEqual(mcp.calls.slice(-1), ['slow(Oslo)']);
    await assertBilledRoundOne(a.id);
  });

  it('non-streamed: the second round gets what the first left, and is cut when that runs out', async () => {
    const a = await account();
    const seen = stl.requests.length;
    // Each round alone is within the budget; the two together are not.
    stl.scripts.push(delayed(ROUND_MS, toolAnswer('weather', { city: 'Oslo' })), delayed(ROUND_MS, textAnswer('too late')));
    const err = await a.openai.responses
      .create({ model: 'svc-so', input: 'weather?', tools: [{ ...weatherServer, server_url: mcp.url }] })
      .then((r) => JSON.stringify(r.output), (e: unknown) => e);
    assert.ok(err instanceof OpenAI.APIError, String(err));
    assert.equal(err.status, 504);
    assert.equal(stl.requests.length, seen + 2);
    assert.equal(await stl.requests.at(-1)!.closed, 'aborted', 'the second call was cut in flight');
    await assertBilledRoundOne(a.id);
  });

  it('streamed: once the budget is spent by a tool round, the stream ends with response.failed naming the timeout', async () => {
    const a = await account();
    const seen = stl.requests.length;
    stl.scripts.push(streamedToolCall('slow', { city: 'Bergen' }), textAnswer('never asked'));
    const types: string[] = [];
    let failed: OpenAI.Responses.Response | null = null;
    const stream = await a.openai.responses.create({ model: 'svc-so', input: 'weather?', stream: true, tools: [{ ...weatherServer, server_url: mcp.url }] });
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'response.failed') failed = e.response;
    }
    assert.equal(types.at(-1), 'response.failed', types.join(' '));
    assert.ok(types.includes('response.mcp_call.completed'), 'the tool call itself ended');
    assert.equal(failed!.status, 'failed');
    assert.equal(failed!.error?.message, BUDGET_504);
    assert.equal(stl.requests.length, seen + 1, 'the model was not asked again');
    await assertBilledRoundOne(a.id);
  });
});

describe('UPSTREAM_MAX_EVENT_BYTES counts bytes of the body, not characters', () => {
  let g: Gateway;
  let stl: ScriptedUpstream;
  const CAP = 64 * 1024;
  before(async () => {
    stl = await startScripted();
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000', UPSTREAM_MAX_EVENT_BYTES: String(CAP) },
      catalog: (f) => `
resilience: { max_retries: 0, breaker: { consecutive_failures: 1000000, min_requests: 1000000 } }
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
  - { id: stl-openai, type: openai, base_url: "${stl.url}/v1", api_key: "sk-stl-key-0123456789", timeout_ms: 60000 }
models:
  - { id: svc-so, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: stl-openai, model: gpt-4.1-mini }] }
`,
    });
  });
  after(async () => {
    await g.close();
    await stl.close();
  });

  it('an unfinished event of CJK text past the cap in bytes (within it in characters) ends the stream with an error, after the content sent', async () => {
    const a = await createTestAccount(g.t, { credits: 100_000 });
    const openai = new OpenAI({ apiKey: a.key, baseURL: `${g.t.url}/v1`, maxRetries: 0, timeout: 20_000 });
    const chunk = (delta: unknown) => `data: ${JSON.stringify({ id: 'chatcmpl-w', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    // 30,000 characters of three bytes: 90,000 bytes of one event that never ends, then silence.
    stl.scripts.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hi' }) + 'data: {"id": "chatcmpl-w", "choices": [{"index": 0, "delta": {"content": "' + '\u4e2d'.repeat(30_000));
    });
    let text = '';
    let error: unknown = null;
    try {
      for await (const c of await openai.chat.completions.create({ model: 'svc-so', stream: true, messages: [{ role: 'user', content: 'hello' }] })) text += c.choices[0]?.delta.content ?? '';
    } catch (e) {
      error = e;
    }
    assert.equal(text, 'Hi');
    assert.ok(error instanceof OpenAI.APIError && /an upstream event is too large/.test(error.message), `the stream ends with an error: ${String(error)}`);
    assert.equal(await stl.requests.at(-1)!.closed, 'aborted');
  });
});
