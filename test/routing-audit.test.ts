import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY, type FakeAnthropic } from './fakes/fake-anthropic.ts';
import { FAKE_OPENAI_KEY, type FakeOpenAI } from './fakes/fake-openai.ts';
import { sendJson, startFakeServer, type FakeServer, type RecordedRequest } from './fakes/fake-server.ts';
import { PRICES, accountCredits, expectedCost, startGateway, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { expectRouted, sdkAnswer, streamModel, type RoutedAnswer } from './helpers/routing.ts';
import { closedPort } from './helpers/closed-port.ts';

/**
 * An audit of routing and resilience as users of OpenRouter, Portkey or LiteLLM try them, through
 * the official `openai` and `@anthropic-ai/sdk` clients and fake upstreams on loopback
 * (docs/api-decisions.md, "Routing and resilience audit").
 */

// A 1x1 PNG.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

type Script = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/** An upstream that answers each request with the next script written here, byte for byte; a plain answer when none is queued. */
interface ScriptedUpstream extends FakeServer {
  readonly scripts: Script[];
}

const EDGE_HEADERS = { 'x-request-id': 'req_edgeupstream0123456789', 'openai-organization': 'org-edge-1234', server: 'edge-upstream' };

async function startScripted(kind: 'openai' | 'anthropic'): Promise<ScriptedUpstream> {
  const scripts: Script[] = [];
  const server = await startFakeServer((request, res) => (scripts.shift() ?? (kind === 'openai' ? openaiAnswer : anthropicAnswer))(request, res));
  return { ...server, scripts };
}

const USAGE = { input: 50, cached: 0, output: 7 };

const chunk = (delta: unknown, finish: string | null = null, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-edge0123456789', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini-2025-04-14', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const openaiUsage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };

/** A complete OpenAI-style answer from the edge upstream ("edge answer"). */
const openaiAnswer: Script = (request, res) => {
  const body = request.body as { stream?: boolean };
  if (!body.stream) {
    return sendJson(res, 200, { id: 'chatcmpl-edge0123456789', object: 'chat.completion', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'edge answer' }, finish_reason: 'stop' }], usage: openaiUsage }, EDGE_HEADERS);
  }
  res.writeHead(200, { ...EDGE_HEADERS, 'content-type': 'text/event-stream' });
  res.end(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'edge ' }) + chunk({ content: 'answer' }) + chunk({}, 'stop') + `data: ${JSON.stringify({ id: 'chatcmpl-edge0123456789', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [], usage: openaiUsage })}\n\n` + 'data: [DONE]\n\n');
};

const ev = (data: { type: string } & Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const messageStart = ev({ type: 'message_start', message: { id: 'msg_edge0123456789', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } });

const anthropicAnswer: Script = (request, res) => {
  const body = request.body as { stream?: boolean };
  if (!body.stream) {
    return sendJson(res, 200, { id: 'msg_edge0123456789', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'edge answer' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: USAGE.input, output_tokens: USAGE.output } });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_edgeanthropic0123456789' });
  res.end(
    messageStart +
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'edge answer' } }) +
      ev({ type: 'content_block_stop', index: 0 }) +
      ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: USAGE.output } }) +
      ev({ type: 'message_stop' }),
  );
};

/**
 * Strings that would name an upstream: providers, upstream models, hosts, provider ids, upstream ids and headers.
 * "fake" is looked for as the fakes spell it ("fake-openai", "msg_fakeanthropic..."): bare, a random
 * service-issued id contains it about once in 40,000.
 */
function assertNoLeak(text: string, where: string, ports: readonly number[]): void {
  const lower = text.toLowerCase();
  for (const s of ['gpt', 'claude', 'openai', 'anthropic', '127.0.0.1', 'localhost', 'edge-', 'main-', 'gone-openai', 'fake-', 'fake ', 'fakeopenai', 'fakeanthropic', 'fakererank', 'req_', 'chatcmpl-edge', 'msg_edge', 'org-', 'sk-', 'upstream-model']) {
    assert.ok(!lower.includes(s), `${where} leaks "${s}": ${text}`);
  }
  for (const p of ports) assert.ok(!text.includes(String(p)), `${where} leaks port ${p}: ${text}`);
}

function headersText(h: Headers): string {
  return [...h.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
}

/**
 * The catalog: svc-shiplow and svc-ultra as shipped (config/default.yaml), their executors on the
 * standard fakes, svc-auto over svc-fast, svc-vision and svc-pro with the shipped rules; then
 * models whose first deployment is a scripted "edge" upstream and whose second a standard fake
 * (svc-edge: OpenAI kind, svc-edgec: Anthropic kind), svc-gone on a refused port then the standard
 * OpenAI fake, and svc-edgeline, a pipeline whose lanes go to svc-edge then svc-pro.
 */
function auditCatalog(edgeO: ScriptedUpstream, edgeA: ScriptedUpstream, goneUrl: string) {
  return (f: { openai: FakeOpenAI; anthropic: FakeAnthropic }): string => `
resilience: { max_retries: 0, backoff_base_ms: 1, backoff_max_ms: 5, retry_after_cap_ms: 300, breaker: { consecutive_failures: 1000000, min_requests: 1000000 } }
default_model: svc-shiplow
auto:
  candidates: [svc-fast, svc-vision, svc-pro]
  rules:
    - { lanes: [math, agent], use: [svc-pro] }
    - { min_input_tokens: 200000, use: [svc-pro] }
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
  - { id: main-anthropic, type: anthropic, base_url: "${f.anthropic.url}", api_key: "${FAKE_ANTHROPIC_KEY}" }
  - { id: edge-openai, type: openai, base_url: "${edgeO.url}/v1", api_key: "sk-edge-openai-key-0123456789", timeout_ms: 1500, first_byte_timeout_ms: 400, idle_timeout_ms: 400, connect_timeout_ms: 1000 }
  - { id: edge-anthropic, type: anthropic, base_url: "${edgeA.url}", api_key: "sk-ant-edge-key-0123456789", timeout_ms: 1500, first_byte_timeout_ms: 400, idle_timeout_ms: 400, connect_timeout_ms: 1000 }
  - { id: gone-openai, type: openai, base_url: "${goneUrl}", api_key: "sk-gone-key-0123456789", connect_timeout_ms: 1000 }
models:
  - id: svc-shiplow
    type: chat
    context: 131072
    max_output: 32768
    pricing: { input: 0.30, cached_input: 0.075, output: 0.60 }
    capabilities: { vision: true, tools: true, json_output: true, streaming: true }
    pipeline:
      code: [svc-fast, svc-pro]
      agent: [svc-pro, svc-fast]
      math: [svc-pro, svc-fast]
      vision: [svc-vision]
      multilingual: [svc-fast, svc-pro]
      general: [svc-fast, svc-pro]
  - id: svc-fast
    type: chat
    context: 1000000
    max_output: 900000
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: main-openai, model: gpt-4.1-mini }]
  - id: svc-vision
    type: chat
    context: 256000
    max_output: 200000
    pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }
    capabilities: { vision: true }
    deployments: [{ provider: main-anthropic, model: claude-sonnet-4-5 }]
  - id: svc-pro
    type: chat
    context: 1000000
    max_output: 1040000
    pricing: { input: 3.20, cached_input: 0.80, output: 9.80 }
    deployments:
      - { provider: main-anthropic, model: claude-opus-4-1 }
      - { provider: main-openai, model: gpt-4.1 }
  - id: svc-ultra
    type: chat
    context: 1000000
    max_output: 1040000
    pricing: { input: 3.50, cached_input: 0.875, output: 11.00 }
    capabilities: { vision: true, tools: true, json_output: true, streaming: true }
    pipeline:
      code: [svc-pro, svc-fast]
      agent: [svc-pro, svc-fast]
      math: [svc-pro, svc-fast]
      vision: [svc-vision]
      multilingual: [svc-pro, svc-fast]
      general: [svc-pro, svc-fast]
  - id: svc-auto
    type: chat
    capabilities: { vision: true }
  - id: svc-edge
    type: chat
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: edge-openai, model: gpt-4.1-mini }, { provider: main-openai, model: gpt-4.1-mini }]
  - id: svc-edgec
    type: chat
    pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }
    deployments: [{ provider: edge-anthropic, model: claude-sonnet-4-5 }, { provider: main-anthropic, model: claude-sonnet-4-5 }]
  - id: svc-gone
    type: chat
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: gone-openai, model: gpt-4.1-nano }, { provider: main-openai, model: gpt-4.1-mini }]
  - id: svc-edgeline
    type: chat
    pricing: { input: 0.30, cached_input: 0.075, output: 0.60 }
    pipeline: { general: [svc-edge, svc-pro] }
`;
}

/** Every way the edge upstreams fail before a client has a byte: each must fall over to the next deployment. */
const OPENAI_FAILURES: Record<string, Script> = {
  '503 with the upstream named in it': (req, res) =>
    sendJson(res, 503, { error: { message: `gpt-4.1-mini is overloaded at ${req.headers.host} (request req_edge0123456789)`, type: 'server_error' } }, EDGE_HEADERS),
  '500 with an HTML body': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html', ...EDGE_HEADERS });
    res.end('<html><body>nginx: upstream openai-proxy failed</body></html>');
  },
  '429 with retry-after': (_req, res) => sendJson(res, 429, { error: { message: 'Rate limit reached for gpt-4.1-mini in organization org-edge1234', type: 'requests' } }, { ...EDGE_HEADERS, 'retry-after': '1' }),
  'a timeout before the headers': () => undefined,
  '200 with a body that is not JSON': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...EDGE_HEADERS });
    res.end('{"id": "chatcmpl-edge0123456789", "choices": [');
  },
  '200 with JSON of another shape': (_req, res) => sendJson(res, 200, { object: 'error', message: 'upstream gpt-4.1-mini went away' }, EDGE_HEADERS),
  'a stream that sends its role chunk and dies': (req, res) => {
    if (!(req.body as { stream?: boolean }).stream) return sendJson(res, 502, { error: { message: 'bad gateway' } });
    res.writeHead(200, { 'content-type': 'text/event-stream', ...EDGE_HEADERS });
    res.write(chunk({ role: 'assistant', content: '' }));
    setTimeout(() => res.destroy(), 20);
  },
  'a stream whose first event is an error': (req, res) => {
    if (!(req.body as { stream?: boolean }).stream) return sendJson(res, 500, { error: { message: 'server error' } });
    res.writeHead(200, { 'content-type': 'text/event-stream', ...EDGE_HEADERS });
    res.end(`data: ${JSON.stringify({ error: { message: 'The server had an error processing gpt-4.1-mini (req_edge0123456789)', type: 'server_error' } })}\n\n`);
  },
  'a stream of malformed JSON': (req, res) => {
    if (!(req.body as { stream?: boolean }).stream) return sendJson(res, 500, { error: { message: 'server error' } });
    res.writeHead(200, { 'content-type': 'text/event-stream', ...EDGE_HEADERS });
    res.end('data: {"id": "chatcmpl-edge0123456789", "choices": [\n\n');
  },
  'a stream that ends cleanly with nothing in it': (req, res) => {
    if (!(req.body as { stream?: boolean }).stream) return sendJson(res, 500, { error: { message: 'server error' } });
    res.writeHead(200, { 'content-type': 'text/event-stream', ...EDGE_HEADERS });
    res.end(chunk({ role: 'assistant', content: '' }));
  },
  'a stream whose headers come but no content in time': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...EDGE_HEADERS });
    res.write(': keep-alive\n\n');
  },
};

const ANTHROPIC_FAILURES: Record<string, Script> = {
  '529 overloaded': (_req, res) => sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_edge0123456789' }),
  'a stream whose message_start is followed by an overloaded error': (req, res) => {
    if (!(req.body as { stream?: boolean }).stream) return sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(messageStart + ev({ type: 'ping' }) + ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded: claude-sonnet-4-5' } }));
  },
  'a stream that pings and never starts a block': (req, res) => {
    if (!(req.body as { stream?: boolean }).stream) return undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(messageStart + ev({ type: 'ping' }));
    const t = setInterval(() => res.write(ev({ type: 'ping' })), 50);
    res.on('close', () => clearInterval(t));
  },
};

describe('routing and resilience audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let edgeO: ScriptedUpstream;
  let edgeA: ScriptedUpstream;
  let ports: number[];

  before(async () => {
    [edgeO, edgeA] = await Promise.all([startScripted('openai'), startScripted('anthropic')]);
    const gone = await closedPort();
    g = await startGateway({ catalog: auditCatalog(edgeO, edgeA, `http://127.0.0.1:${gone}/v1`), env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    openai = g.client(acct.key);
    anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    ports = [gone, ...[edgeO.url, edgeA.url, g.openai.url, g.anthropic.url].map((u) => Number(new URL(u).port))];
  });
  after(async () => {
    await g.close();
    await Promise.all([edgeO.close(), edgeA.close()]);
  });

  /** Sends one request in a protocol through its official SDK; the answer's text and what routing shows. */
  type Protocol = 'chat' | 'completions' | 'messages' | 'responses';
  const PROTOCOLS: Protocol[] = ['chat', 'completions', 'messages', 'responses'];

  interface Sent extends RoutedAnswer {
    readonly text: string;
    readonly headers: Headers;
  }

  async function send(protocol: Protocol, model: string, text: string, stream: boolean, opts: { image?: boolean; tool?: boolean; client?: { openai: OpenAI; anthropic: Anthropic } } = {}): Promise<Sent> {
    const o = opts.client?.openai ?? openai;
    const a = opts.client?.anthropic ?? anthropic;
    const schema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
    if (protocol === 'chat') {
      const body = {
        model,
        messages: [{ role: 'user' as const, content: opts.image ? [{ type: 'text' as const, text }, { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${PNG_BASE64}` } }] : text }],
        ...(opts.tool ? { tools: [{ type: 'function' as const, function: { name: 'weather', parameters: schema } }] } : {}),
      };
      if (!stream) {
        const r = await o.chat.completions.create(body).withResponse();
        return { ...sdkAnswer(r), text: r.data.choices[0]!.message.content ?? '', headers: r.response.headers };
      }
      const { data, response } = await o.chat.completions.create({ ...body, stream: true }).withResponse();
      let out = '';
      const models = new Set<string>();
      for await (const c of data) {
        models.add(c.model);
        out += c.choices[0]?.delta.content ?? '';
      }
      assert.equal(models.size, 1, [...models].join());
      return { model: [...models][0]!, header: (n) => response.headers.get(n), text: out, headers: response.headers };
    }
    if (protocol === 'completions') {
      const body = { model, prompt: text, max_tokens: 100 };
      if (!stream) {
        const r = await o.completions.create(body).withResponse();
        return { ...sdkAnswer(r), text: r.data.choices[0]!.text, headers: r.response.headers };
      }
      const { data, response } = await o.completions.create({ ...body, stream: true }).withResponse();
      let out = '';
      const models = new Set<string>();
      for await (const c of data) {
        models.add(c.model);
        out += c.choices[0]?.text ?? '';
      }
      assert.equal(models.size, 1, [...models].join());
      return { model: [...models][0]!, header: (n) => response.headers.get(n), text: out, headers: response.headers };
    }
    if (protocol === 'messages') {
      const body = {
        model,
        max_tokens: 100,
        messages: [{ role: 'user' as const, content: opts.image ? [{ type: 'text' as const, text }, { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG_BASE64 } }] : text }],
        ...(opts.tool ? { tools: [{ name: 'weather', input_schema: schema }] } : {}),
      };
      if (!stream) {
        const r = await a.messages.create(body).withResponse();
        const t = r.data.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
        return { ...sdkAnswer(r), text: t, headers: r.response.headers };
      }
      const { data, response } = await a.messages.create({ ...body, stream: true }).withResponse();
      let out = '';
      const models = new Set<string>();
      let stopped = false;
      for await (const e of data) {
        if (e.type === 'message_start') models.add(e.message.model);
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') out += e.delta.text;
        if (e.type === 'message_stop') stopped = true;
      }
      assert.ok(stopped, 'message_stop');
      assert.equal(models.size, 1, [...models].join());
      return { model: [...models][0]!, header: (n) => response.headers.get(n), text: out, headers: response.headers };
    }
    const body = {
      model,
      input: opts.image ? [{ role: 'user' as const, content: [{ type: 'input_text' as const, text }, { type: 'input_image' as const, image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' as const }] }] : text,
      ...(opts.tool ? { tools: [{ type: 'function' as const, name: 'weather', parameters: schema, strict: false }] } : {}),
    };
    if (!stream) {
      const r = await o.responses.create(body).withResponse();
      return { ...sdkAnswer(r), text: r.data.output_text, headers: r.response.headers };
    }
    const { data, response } = await o.responses.create({ ...body, stream: true }).withResponse();
    let out = '';
    let completed = false;
    const models = new Set<string>();
    for await (const e of data) {
      const m = streamModel.responses(e as { type: string; response?: { model: string } });
      if (m !== undefined) models.add(m);
      if (e.type === 'response.output_text.delta') out += e.delta;
      if (e.type === 'response.completed') completed = true;
      assert.notEqual(e.type, 'response.failed', JSON.stringify(e));
    }
    assert.ok(completed, 'response.completed');
    assert.equal(models.size, 1, [...models].join());
    return { model: [...models][0]!, header: (n) => response.headers.get(n), text: out, headers: response.headers };
  }

  describe('pipelines: each lane picks the documented executor in every protocol, named in headers, billed at the pipeline', () => {
    // The shipped catalog's first executor of each lane (config/default.yaml; docs/routing.md).
    const EXECUTORS = {
      'svc-shiplow': { code: 'svc-fast', agent: 'svc-pro', math: 'svc-pro', vision: 'svc-vision', multilingual: 'svc-fast', general: 'svc-fast' },
      'svc-ultra': { code: 'svc-pro', agent: 'svc-pro', math: 'svc-pro', vision: 'svc-vision', multilingual: 'svc-pro', general: 'svc-pro' },
    } as const;
    const SERVED = {
      'svc-fast': { fake: 'openai', upstream: 'gpt-4.1-mini' },
      'svc-pro': { fake: 'anthropic', upstream: 'claude-opus-4-1' },
      'svc-vision': { fake: 'anthropic', upstream: 'claude-sonnet-4-5' },
    } as const;
    const REQUESTS = {
      code: { text: 'Fix this Python function, it returns the wrong sum:\n\ndef add(a, b):\n    return a - b' },
      agent: { text: 'What is the weather in Paris?', tool: true },
      math: { text: 'Solve for x: 3x + 7 = 22. Show the steps.' },
      vision: { text: 'What is this?', image: true },
      multilingual: { text: '¿Cuáles son los mejores lugares para visitar en Madrid en primavera?' },
      general: { text: 'Tell me about the weather.' },
    } as const;

    for (const pipeline of ['svc-shiplow', 'svc-ultra'] as const) {
      for (const protocol of PROTOCOLS) {
        for (const stream of [false, true]) {
          it(`${pipeline}, ${protocol}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
            const acct = await createTestAccount(g.t, { credits: 1000 });
            const client = { openai: g.client(acct.key), anthropic: new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 }) };
            for (const [lane, executor] of Object.entries(EXECUTORS[pipeline])) {
              const req = REQUESTS[lane as keyof typeof REQUESTS] as { text: string; image?: boolean; tool?: boolean };
              // Completions carry a prompt string: no image, no tools.
              if (protocol === 'completions' && (req.image || req.tool)) continue;
              const served = SERVED[executor];
              await expectRouted(g, acct, () => send(protocol, pipeline, req.text, stream, { ...req, client }), {
                lane,
                executor,
                answerModel: pipeline,
                fake: g[served.fake],
                upstreamModel: served.upstream,
                usage: { input: 321, cached: 20, output: 45 },
                prices: PRICES[pipeline],
                record: { model: pipeline, servedModel: executor },
              });
            }
          });
        }
      }
    }
  });

  describe('fallbacks before the first byte', () => {
    for (const [name, script] of Object.entries(OPENAI_FAILURES)) {
      for (const stream of [false, true]) {
        it(`OpenAI-kind edge: ${name}, ${stream ? 'streamed' : 'not streamed'}: the next deployment answers, only it is billed, nothing leaks`, async () => {
          const a2 = await createTestAccount(g.t, { credits: 1000 });
          const client = { openai: g.client(a2.key), anthropic };
          const before = await accountCredits(g.t, a2.id);
          const seen = [edgeO.requests.length, g.openai.requests.length];
          edgeO.scripts.push(script);
          g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
          const r = await send('chat', 'svc-edge', 'hello', stream, { client });
          assert.equal(r.text, 'fallback answer');
          assert.equal(r.model, 'svc-edge');
          assert.deepEqual([edgeO.requests.length - seen[0]!, g.openai.requests.length - seen[1]!], [1, 1]);
          assertNoLeak(headersText(r.headers), 'headers', ports);
          const rows = await waitForUsage(g.t, a2.id, 1);
          assert.equal(rows.length, 1, 'one usage record');
          assert.deepEqual([rows[0]!.provider, rows[0]!.status, rows[0]!.input_tokens, rows[0]!.output_tokens], ['main-openai', 200, USAGE.input, USAGE.output]);
          const cost = expectedCost(PRICES['svc-fast'], USAGE);
          assert.equal(before.credits - (await accountCredits(g.t, a2.id)).credits, cost, 'billed for the answering call only');
        });
      }
    }

    for (const [name, script] of Object.entries(ANTHROPIC_FAILURES)) {
      for (const protocol of PROTOCOLS) {
        it(`Anthropic-kind edge: ${name}, ${protocol} streamed: the next deployment answers`, async () => {
          const seen = [edgeA.requests.length, g.anthropic.requests.length];
          edgeA.scripts.push(script);
          g.anthropic.chat.enqueue({ text: 'fallback answer', usage: USAGE });
          const r = await send(protocol, 'svc-edgec', 'hello', true);
          assert.equal(r.text, 'fallback answer');
          assert.deepEqual([edgeA.requests.length - seen[0]!, g.anthropic.requests.length - seen[1]!], [1, 1]);
          assertNoLeak(headersText(r.headers), 'headers', ports);
        });
      }
    }

    it('a refused connection falls over, in every protocol, streamed or not', async () => {
      for (const protocol of PROTOCOLS) {
        for (const stream of [false, true]) {
          g.openai.chat.enqueue({ text: 'fallback answer', usage: USAGE });
          const r = await send(protocol, 'svc-gone', 'hello', stream);
          assert.equal(r.text, 'fallback answer', `${protocol} ${stream}`);
        }
      }
    });

    it('a pipeline falls over from a failing executor to the next one and names it', async () => {
      for (const protocol of PROTOCOLS) {
        for (const stream of [false, true]) {
          edgeO.scripts.push(OPENAI_FAILURES['503 with the upstream named in it']!);
          g.openai.chat.enqueue({ error: { status: 500 } });
          g.anthropic.chat.enqueue({ text: 'pro answer', usage: USAGE });
          const r = await send(protocol, 'svc-edgeline', 'Tell me about the weather.', stream);
          assert.equal(r.text, 'pro answer', `${protocol} ${stream}`);
          assert.equal(r.model, 'svc-edgeline');
          assert.deepEqual([r.header('x-svc-model'), r.header('x-svc-lane')], ['svc-pro', 'general']);
        }
      }
    });
  });

  describe('when every deployment fails, the error names no upstream (body, headers) and nothing is billed', () => {
    for (const [name, script] of Object.entries(OPENAI_FAILURES)) {
      for (const protocol of PROTOCOLS) {
        for (const stream of [false, true]) {
          it(`${name}, ${protocol}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
            const a2 = await createTestAccount(g.t, { credits: 1000 });
            const client = { openai: g.client(a2.key), anthropic: new Anthropic({ apiKey: a2.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 }) };
            const before = await accountCredits(g.t, a2.id);
            edgeO.scripts.push(script);
            // The second deployment fails as the standard fake does, naming itself.
            g.openai.chat.enqueue({ error: { status: 502 } });
            const e = await send(protocol, 'svc-edge', 'hello', stream, { client }).then(
              () => assert.fail('answered'),
              (x: unknown) => x,
            );
            const err = e as { status?: number; message: string; headers?: Headers };
            assert.ok(err.status !== undefined && err.status >= 400, String(e));
            assertNoLeak(err.message, 'error message', ports);
            if (err.headers) assertNoLeak(headersText(err.headers), 'error headers', ports);
            const rows = await waitForUsage(g.t, a2.id, 1);
            assert.equal(BigInt(rows[0]!.cost_micro), 0n);
            assert.equal((await accountCredits(g.t, a2.id)).credits, before.credits, 'nothing billed');
          });
        }
      }
    }
  });

  describe('after the first byte: no silent switch, no clean end', () => {
    const cuts: Record<string, Script> = {
      'the connection drops': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }));
        setTimeout(() => res.destroy(), 30);
      },
      'the body ends without a finish or [DONE]': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }));
        setTimeout(() => res.end(), 30);
      },
      'an error event mid-answer': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }));
        setTimeout(() => res.end(`data: ${JSON.stringify({ error: { message: 'gpt-4.1-mini failed at edge-openai', type: 'server_error' } })}\n\n`), 30);
      },
      'the stream stalls': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Once upon a time' }));
      },
    };
    for (const [name, script] of Object.entries(cuts)) {
      for (const protocol of PROTOCOLS) {
        it(`${name}: ${protocol} ends with the protocol's error, the fallback is not called, what was delivered is billed`, async () => {
          const a2 = await createTestAccount(g.t, { credits: 1000 });
          const client = { openai: g.client(a2.key), anthropic: new Anthropic({ apiKey: a2.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 }) };
          const seen = g.openai.requests.length;
          edgeO.scripts.push(script);
          let thrown: unknown = null;
          try {
            await send(protocol, 'svc-edge', 'Tell me a story.', true, { client });
          } catch (e) {
            thrown = e;
          }
          assert.ok(thrown !== null, 'the client sees the failure');
          assertNoLeak(String((thrown as Error).message), 'stream error', ports);
          assert.equal(g.openai.requests.length, seen, 'no second upstream after the first byte');
          const [row] = await waitForUsage(g.t, a2.id, 1);
          assert.ok(row!.status >= 500, `status ${row!.status}`);
          assert.ok(row!.output_tokens > 0 && BigInt(row!.cost_micro) > 0n, 'billed for what was delivered');
        });
      }
    }
  });

  describe('cancellation and hung streams', () => {
    it('a client that leaves before the first byte stops the upstream call and the fallbacks, and pays nothing', async () => {
      const a2 = await createTestAccount(g.t, { credits: 1000 });
      const seen = [edgeO.requests.length, g.openai.requests.length];
      edgeO.scripts.push(() => undefined);
      const ac = new AbortController();
      const p = fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a2.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-edge', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
        signal: ac.signal,
      }).catch(() => null);
      while (edgeO.requests.length === seen[0]) await new Promise((r) => setTimeout(r, 10));
      ac.abort();
      await p;
      assert.equal(await edgeO.requests.at(-1)!.closed, 'aborted', 'the upstream call is closed');
      const [row] = await waitForUsage(g.t, a2.id, 1);
      assert.deepEqual([row!.status, BigInt(row!.cost_micro)], [499, 0n]);
      assert.equal(g.openai.requests.length, seen[1], 'no fallback for a client that left');
    });

    it('an Anthropic stream that keeps pinging but sends no content mid-answer does not hang the client', async () => {
      edgeA.scripts.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(messageStart + ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) + ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Once upon' } }));
        const t = setInterval(() => res.write(ev({ type: 'ping' })), 50);
        res.on('close', () => clearInterval(t));
      });
      const started = Date.now();
      const outcome = await Promise.race([
        send('messages', 'svc-edgec', 'Tell me a story.', true).then(
          () => 'answered',
          (e: unknown) => `failed: ${String(e)}`,
        ),
        new Promise<string>((r) => setTimeout(() => r('hung'), 5000)),
      ]);
      assert.notEqual(outcome, 'hung', `after ${Date.now() - started} ms`);
      assert.match(outcome, /^failed: .*timed out/, 'ended with the error event, not as a clean answer');
    });
  });

  describe('svc-auto', () => {
    it('picks a model, names it in headers and the body, bills at its prices, in every protocol', async () => {
      const acct = await createTestAccount(g.t, { credits: 1000 });
      const client = { openai: g.client(acct.key), anthropic: new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 }) };
      for (const protocol of PROTOCOLS) {
        for (const stream of [false, true]) {
          await expectRouted(g, acct, () => send(protocol, 'svc-auto', 'What is the capital of France?', stream, { client }), {
            lane: 'general',
            executor: 'svc-fast',
            answerModel: 'svc-fast',
            fake: g.openai,
            upstreamModel: 'gpt-4.1-mini',
            usage: USAGE,
            prices: PRICES['svc-fast'],
            record: { model: 'svc-auto', servedModel: 'svc-fast' },
          });
        }
      }
    });
  });

  it('usage rows of this suite never name an upstream to the account', async () => {
    const r = await fetch(`${g.t.url}/v1/models`, { headers: { authorization: `Bearer ${acct.key}` } });
    assertNoLeak(await r.text(), '/v1/models', ports);
    assert.ok((await usageRows(g.t, acct.id)).length > 0);
  });
});

/**
 * The traps of peer gateways (docs/api-decisions.md, "Routing and resilience audit"), on a gateway
 * whose breakers open after two failures in a row and stay open for the test, with one retry per
 * deployment and the shipped attempt budget.
 */
describe('routing and resilience audit: the traps peers fell into', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let dead: ScriptedUpstream;
  let limited: ScriptedUpstream[];
  let slow: ScriptedUpstream;

  const failing: Script = (_req, res) => sendJson(res, 503, { error: { message: 'down', type: 'server_error' } });

  before(async () => {
    dead = await startScripted('openai');
    limited = await Promise.all([startScripted('openai'), startScripted('openai'), startScripted('openai')]);
    slow = await startScripted('openai');
    const provider = (id: string, url: string, extra = '') => `  - { id: ${id}, type: openai, base_url: "${url}/v1", api_key: "sk-${id}-0123456789"${extra} }`;
    const model = (id: string, price: string, deployments: string) => `  - { id: ${id}, type: chat, pricing: { input: ${price}, output: ${price} }, deployments: [${deployments}] }`;
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' },
      catalog: (f) => `
resilience: { max_retries: 1, backoff_base_ms: 1, backoff_max_ms: 5, retry_after_cap_ms: 300, max_attempts: 6, max_total_ms: 1500, breaker: { consecutive_failures: 2, failure_ratio: 1, min_requests: 1000000, cooldown_ms: 3600000 } }
auto:
  candidates: [svc-cheap, svc-fast]
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
${provider('dead', dead.url)}
${provider('lim0', limited[0]!.url)}
${provider('lim1', limited[1]!.url)}
${provider('lim2', limited[2]!.url)}
${provider('slow', slow.url, ', timeout_ms: 1000, first_byte_timeout_ms: 1000')}
models:
${model('svc-fast', '0.45', '{ provider: main-openai, model: up-fast }')}
${model('svc-cheap', '0.10', '{ provider: dead, model: up-cheap }')}
${model('svc-single', '0.45', '{ provider: dead, model: up-single }')}
  - { id: svc-line, type: chat, pricing: { input: 0.30, output: 0.30 }, pipeline: { general: [svc-single, svc-fast] } }
${model('svc-many', '0.45', '{ provider: lim0, model: up-many }, { provider: lim1, model: up-many }, { provider: lim2, model: up-many }, { provider: main-openai, model: up-many }')}
${model('svc-slow', '0.45', '{ provider: slow, model: up-slow }, { provider: slow, model: up-slow2 }, { provider: main-openai, model: up-fast }')}
  - { id: svc-auto, type: chat }
`,
    });
    acct = await createTestAccount(g.t, { credits: 1000 });
    openai = g.client(acct.key);
  });
  after(async () => {
    await g.close();
    await Promise.all([dead, slow, ...limited].map((s) => s.close()));
  });

  const rateLimited: Script = (_req, res) => sendJson(res, 429, { error: { message: 'too many requests', type: 'requests' } });
  const ask = (model: string) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });

  it('LiteLLM: a model with a single deployment is cooled down too: once its breaker opens, requests pay no failed calls', async () => {
    dead.scripts.push(failing, failing);
    await assert.rejects(ask('svc-single'), (e: unknown) => e instanceof OpenAI.APIError && e.status === 503);
    const seen = dead.requests.length;
    await assert.rejects(ask('svc-single'), (e: unknown) => e instanceof OpenAI.APIError && e.status === 503);
    assert.equal(dead.requests.length, seen, 'no call to the dead deployment');
    // A pipeline whose first executor is that model goes straight to the next one.
    const r = await openai.chat.completions.create({ model: 'svc-line', messages: [{ role: 'user', content: 'Tell me about the weather.' }] }).withResponse();
    assert.equal(r.response.headers.get('x-svc-model'), 'svc-fast');
    assert.equal(dead.requests.length, seen, 'the pipeline skips the open breaker');
  });

  it('svc-auto does not choose a model whose every deployment has its breaker open', async () => {
    // svc-cheap is dead/up-cheap; its breaker opens after two failures.
    dead.scripts.push(failing, failing);
    await assert.rejects(ask('svc-auto'));
    const seen = dead.requests.length;
    const r = await ask('svc-auto');
    assert.equal(r.model, 'svc-fast', 'the next cheapest candidate serves while svc-cheap is down');
    assert.equal(dead.requests.length, seen);
  });

  it('Bifrost: fallbacks are not capped by retries on the same deployment: every deployment of the chain gets a call', async () => {
    for (const l of limited) l.scripts.push(rateLimited, rateLimited);
    const seen = g.openai.requests.length;
    const r = await ask('svc-many');
    assert.equal(r.choices[0]!.message.content, 'Hello from the fake upstream.');
    assert.equal(g.openai.requests.length, seen + 1, 'the fourth deployment was reached');
  });
});
