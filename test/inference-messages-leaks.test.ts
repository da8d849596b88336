import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBlockValue } from '../src/inference/formats/anthropic-messages/sealed-tokens.ts';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import { startGateway, UPSTREAM_MODELS, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { SERVICE_HEADERS } from './helpers/service-headers.ts';

// Ids the service issues and sealed reasoning tokens: random characters may spell anything. Each
// token is checked to be one the service sealed for the account (so no upstream value hides
// there), then taken out of the text.
const SERVICE_IDS = /\b(?:msg_|call_)[A-Za-z0-9]{24}\b/g;
const SEALED = /"(signature|data)":"([^"]*)"/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

interface Answer {
  readonly what: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly text: string;
}

/** The brand-hiding scan of inference-brand-hiding.test.ts, over the messages routes. */
describe('brand hiding on /inference/v1/messages: headers, bodies, every SSE line', () => {
  let g: Gateway;
  let acct: TestAccount;
  let forbidden: RegExp[];
  const answers: Answer[] = [];

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    // A pipeline fails over to another lane's executor after an upstream error; that answer must
    // not read "fake" (the scan forbids the fakes' names), so the fallbacks answer neutrally.
    g.openai.chat.otherwise = { text: 'Fallback answer.' };
    g.anthropic.chat.otherwise = { text: 'Fallback answer.' };
    const ports = [g.openai.url, g.anthropic.url].map((u) => new URL(u).port);
    forbidden = [
      /openai/i, /anthropic/i, /claude/i, /gpt/i, /fake/i,
      ...Object.values(UPSTREAM_MODELS).map((m) => new RegExp(m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i')), /sonnet/i, /opus/i,
      /127\.0\.0\.1/, /localhost/, ...ports.map((p) => new RegExp(`(?<![0-9])${p}(?![0-9])`)),
      /req_/, /msg_/, /toolu_/, /org-/, /fp_/, /sk-/, /EqQB/,
      /main-(openai|anthropic)/,
    ];
  });
  after(() => g.close());

  async function send(what: string, path: string, body: unknown): Promise<Answer> {
    const r = await fetch(`${g.t.url}/inference/v1${path}`, {
      method: 'POST',
      headers: { 'x-api-key': acct.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const a: Answer = { what, status: r.status, headers: [...r.headers.entries()], text: await r.text() };
    answers.push(a);
    return a;
  }

  const tools = [
    { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    { name: 'get_time', input_schema: { type: 'object', properties: { timezone: { type: 'string' } } } },
  ];
  const answer: FakeChatScenario = {
    text: 'It is sunny.',
    reasoning: 'The user wants weather.',
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: { timezone: 'Europe/Paris' } }],
  };
  const leakyMessage = `model ${UPSTREAM_MODELS.fast} at https://api.openai.com/v1 (org-fakeopenai-1234, request req_abc123def456) refused by main-openai; Anthropic says claude-sonnet-4-5 is overloaded`;

  it('answers across both upstream kinds, streamed and not, with tools, thinking, JSON and upstream errors', async () => {
    for (const [model, fake] of [['svc-fast', g.openai], ['svc-vision', g.anthropic], ['svc-pro', g.anthropic], ['svc-shiplow', g.openai]] as const) {
      const msg = (extra: Record<string, unknown> = {}) => ({ model, max_tokens: 2000, messages: [{ role: 'user', content: 'Weather in Paris?' }], ...extra });
      for (const stream of [false, true]) {
        const s = stream ? 'streamed' : 'not streamed';
        // A pipeline sends requests with tools to its agent lane (svc-pro, on the Anthropic fake).
        (model === 'svc-shiplow' ? g.anthropic : fake).chat.enqueue(answer);
        assert.equal((await send(`${model} tools ${s}`, '/messages', msg({ tools, stream, thinking: { type: 'enabled', budget_tokens: 1024 } }))).status, 200);
        fake.chat.enqueue({ json: { city: 'Paris' } });
        assert.equal((await send(`${model} json ${s}`, '/messages', msg({ stream, output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } }))).status, 200);
        for (const status of [400, 401, 404, 429, 500, 503]) {
          // svc-pro falls back to its second deployment (an OpenAI-style one) after retryable errors.
          fake.chat.enqueue({ error: { status, message: leakyMessage } });
          if (model === 'svc-pro' && status !== 400) g.openai.chat.enqueue({ text: 'Fallback answer.' });
          await send(`${model} upstream ${status} ${s}`, '/messages', msg({ stream }));
        }
      }
      fake.chat.enqueue({ text: 'partial answer', streamErrorAfter: { events: 4, message: leakyMessage } });
      assert.equal((await send(`${model} mid-stream error`, '/messages', msg({ stream: true }))).status, 200);
      assert.equal((await send(`${model} count_tokens`, '/messages/count_tokens', msg())).status, 200);
    }
    assert.equal((await send('server tool', '/messages', { model: 'svc-fast', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] })).status, 400);
  });

  it('found no upstream name, host, model, id or header in any answer', () => {
    assert.ok(answers.length > 50, `${answers.length} answers checked`);
    const sealer = createReasoningSealers(g.t.deps.secretsKey)(acct.id);
    assert.ok(answers.some((a) => a.text.search(SEALED) >= 0), 'some answers carry sealed tokens');
    for (const a of answers) {
      for (const [name, value] of a.headers) {
        // Anthropic's name for the request id (api-decisions.md, "Inference: seventh audit"): the
        // service's own id, never an upstream's request-id passed on.
        if (name === 'request-id') {
          assert.equal(value, new Map(a.headers).get('x-request-id'), `${a.what}: header ${name}: ${value}`);
          continue;
        }
        assert.ok(SERVICE_HEADERS.has(name), `${a.what}: header ${name}: ${value}`);
        for (const f of forbidden) assert.doesNotMatch(value, f, `${a.what}: header ${name}: ${value}`);
      }
      for (const [, field, token] of a.text.matchAll(SEALED)) {
        if (token === '') continue; // reasoning the upstream did not sign
        assert.notEqual(openBlockValue(field as 'signature' | 'data', token!, sealer), null, `${a.what}: ${field} is not a sealed token: ${token}`);
      }
      const text = a.text.replace(SERVICE_IDS, '<id>').replace(SEALED, '"$1":"<sealed>"').replace(UUID, '<uuid>');
      for (const line of text.split('\n')) {
        for (const f of forbidden) assert.doesNotMatch(line, f, `${a.what} (${a.status}): ${line.slice(0, 400)}`);
      }
    }
  });
});
