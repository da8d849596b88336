import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { DEFAULT_USAGE, ScenarioQueue, writeEvents, type FakeChatScenario } from './fake-scenario.ts';
import { pieces, sendJson, startFakeServer, type FakeServer, type RecordedRequest } from './fake-server.ts';

/**
 * An OpenAI-compatible upstream: /chat/completions (JSON and SSE, tool calls with argument deltas,
 * json output, usage with cached tokens when asked), /embeddings (float and base64), and
 * /images/generations (base64, or a URL it then serves). It puts its own name everywhere (ids,
 * headers, error messages) so tests can check none of it reaches a client. Like OpenAI, it refuses a
 * tool call id longer than 40 characters (docs/api-decisions.md, "Inference: session 29 audit").
 */
export interface FakeOpenAI extends FakeServer {
  /** The base URL to configure (`.../v1`). */
  readonly baseUrl: string;
  readonly chat: ScenarioQueue;
  /** Queue HTTP errors for the next non-chat calls (embeddings, images). */
  failNext(error: { status: number; message?: string; type?: string }): void;
  /** Answer image requests with a URL to download instead of base64. */
  imagesAsUrl: boolean;
  /** What the URL answers append to the prompt for their `revised_prompt`. */
  revisedPromptSuffix: string;
  /**
   * Upstream models without reasoning: a chat request for one of them that carries
   * `reasoning_effort` is refused with 400, as OpenAI refuses it for gpt-4.1 or gpt-4o.
   */
  readonly nonReasoningModels: Set<string>;
}

export const FAKE_OPENAI_KEY = 'sk-fakeopenai-test-key-0123456789';

const HEADERS = {
  'x-request-id': 'req_fakeopenai0123456789abcdef',
  'openai-organization': 'org-fakeopenai-1234',
  'openai-processing-ms': '42',
  'openai-version': '2020-10-01',
  server: 'fake-openai',
};

// A 1x1 PNG.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

function errorBody(model: string, base: string, error: { status: number; message?: string; type?: string }) {
  return {
    error: {
      message: error.message ?? `OpenAI had an error processing gpt-style model ${model} at ${base} (request req_fakeopenai0123456789).`,
      type: error.type ?? (error.status >= 500 ? 'server_error' : 'invalid_request_error'),
      param: null,
      code: null,
    },
  };
}

function wantsJson(body: Record<string, unknown>): boolean {
  const rf = body.response_format as { type?: string } | undefined;
  return rf?.type === 'json_object' || rf?.type === 'json_schema';
}

function answer(scenario: FakeChatScenario, body: Record<string, unknown>) {
  const offersTools = Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== 'none';
  const toolCalls = offersTools && scenario.refusal === undefined ? (scenario.toolCalls ?? []) : [];
  const text = scenario.refusal !== undefined ? '' : wantsJson(body) && scenario.json ? JSON.stringify(scenario.json) : (scenario.text ?? '');
  // `length` with tool calls: the cap was hit inside the last call, whose arguments stop halfway.
  const finish = scenario.finish === 'length' ? 'length' : toolCalls.length > 0 ? 'tool_calls' : scenario.finish === 'context_window' ? 'length' : (scenario.finish ?? 'stop');
  const argumentsOf = (c: { readonly arguments: Record<string, unknown> }, i: number): string => {
    const json = JSON.stringify(c.arguments);
    return finish === 'length' && i === toolCalls.length - 1 ? json.slice(0, Math.ceil(json.length / 2)) : json;
  };
  const u = scenario.usage ?? DEFAULT_USAGE;
  const usage = 'rawUsage' in scenario ? scenario.rawUsage : {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: scenario.reasoningTokens ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  return { toolCalls, text, finish, usage, argumentsOf };
}

/** OpenAI's refusal of a tool call id (or a tool message's `tool_call_id`) over 40 characters. */
function longToolCallId(body: Record<string, unknown>): { message: string; param: string } | null {
  const messages = Array.isArray(body.messages) ? (body.messages as { tool_calls?: { id?: string }[]; tool_call_id?: string }[]) : [];
  const tooLong = (param: string, id: string | undefined) =>
    (id ?? '').length > 40 ? { message: `Invalid '${param}': string too long. Expected a string with maximum length 40, but got a string with length ${id!.length} instead.`, param } : null;
  for (const [i, m] of messages.entries()) {
    for (const [j, c] of (m.tool_calls ?? []).entries()) {
      const refused = tooLong(`messages[${i}].tool_calls[${j}].id`, c.id);
      if (refused) return refused;
    }
    const refused = tooLong(`messages[${i}].tool_call_id`, m.tool_call_id);
    if (refused) return refused;
  }
  return null;
}

function chatCompletion(request: RecordedRequest, res: ServerResponse, scenario: FakeChatScenario, base: string, nonReasoning: ReadonlySet<string>): Promise<void> | void {
  const body = request.body as Record<string, unknown>;
  const model = String(body.model);
  if (body.reasoning_effort !== undefined && nonReasoning.has(model)) {
    const error = { message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.", type: 'invalid_request_error', param: 'reasoning_effort', code: 'unsupported_parameter' };
    return sendJson(res, 400, { error }, HEADERS);
  }
  const longId = longToolCallId(body);
  if (longId) return sendJson(res, 400, { error: { ...longId, type: 'invalid_request_error', code: 'string_above_max_length' } }, HEADERS);
  if (scenario.error) return sendJson(res, scenario.error.status, errorBody(model, base, scenario.error), { ...HEADERS, ...scenario.error.headers });
  const { toolCalls, text, finish, usage, argumentsOf } = answer(scenario, body);
  const id = 'chatcmpl-fakeopenai0123456789abcdefgh';
  const created = 1763000000;
  if (body.stream !== true || scenario.ignoreStream) {
    return sendJson(
      res,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model: `${model}-2025-04-14`,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: (toolCalls.length > 0 || scenario.refusal !== undefined) && text === '' ? null : text,
              // Reasoning as DeepSeek and vLLM expose it.
              ...(scenario.reasoning ? { reasoning_content: scenario.reasoning } : {}),
              ...(toolCalls.length > 0
                ? { tool_calls: toolCalls.map((c, i) => ({ id: `call_fakeopenai${i}abcdef123456`, type: 'function', function: { name: c.name, arguments: argumentsOf(c, i) } })) }
                : {}),
              refusal: scenario.refusal ?? null,
              annotations: [],
            },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        ...(scenario.omitUsage ? {} : { usage }),
        service_tier: 'default',
        system_fingerprint: 'fp_fakeopenai',
      },
      HEADERS,
    );
  }
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: `${model}-2025-04-14`,
    system_fingerprint: 'fp_fakeopenai',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
    obfuscation: 'fakeopenai',
  });
  // A refusal opens as OpenAI's does: no content, an empty refusal, then its pieces.
  const chunks: unknown[] = [chunk(scenario.refusal !== undefined ? { role: 'assistant', content: null, refusal: '' } : { role: 'assistant', content: '', refusal: null })];
  for (const p of pieces(scenario.reasoning ?? '')) chunks.push(chunk({ reasoning_content: p }));
  for (const p of pieces(text)) chunks.push(chunk({ content: p }));
  for (const p of pieces(scenario.refusal ?? '')) chunks.push(chunk({ refusal: p }));
  const callStart = (index: number) => chunk({ tool_calls: [{ index, id: `call_fakeopenai${index}abcdef123456`, type: 'function', function: { name: toolCalls[index]!.name, arguments: '' } }] });
  const argPieces = toolCalls.map((c, i) => pieces(argumentsOf(c, i), 7));
  if (scenario.interleaveToolCalls) {
    toolCalls.forEach((_, index) => chunks.push(callStart(index)));
    for (let round = 0; argPieces.some((p) => round < p.length); round++) {
      argPieces.forEach((p, index) => {
        if (round < p.length) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: p[round] } }] }));
      });
    }
  } else {
    toolCalls.forEach((_, index) => {
      chunks.push(callStart(index));
      for (const p of argPieces[index]!) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
  }
  chunks.push(chunk({}, finish));
  if (includeUsage && !scenario.omitUsage) chunks.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage, obfuscation: 'x' });
  const json = (c: unknown) => {
    const text = JSON.stringify(c);
    return scenario.asciiEscapes ? text.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
  };
  const events = [...chunks.map((c) => `data: ${json(c)}\n\n`), 'data: [DONE]\n\n'];
  const errorEvent = () =>
    `data: ${JSON.stringify(errorBody(model, base, { status: 500, ...(scenario.streamErrorAfter?.message ? { message: scenario.streamErrorAfter.message } : {}), ...(scenario.streamErrorAfter?.type ? { type: scenario.streamErrorAfter.type } : {}) }))}\n\n`;
  return writeEvents(res, events, scenario, errorEvent, HEADERS);
}

/** A deterministic unit-ish vector per text, so tests can recompute it. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const digest = createHash('sha256').update(text).digest();
  return Array.from({ length: dimensions }, (_, i) => Math.fround((digest[i % digest.length]! - 128) / 128));
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const chat = new ScenarioQueue();
  const failures: { status: number; message?: string; type?: string }[] = [];
  const server = await startFakeServer(async (request, res) => {
    const base = fake.baseUrl;
    if (request.method === 'GET' && request.path.startsWith('/files/')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length, ...HEADERS });
      res.end(PNG);
      return;
    }
    if (request.headers.authorization !== `Bearer ${FAKE_OPENAI_KEY}`) {
      return sendJson(res, 401, { error: { message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7, 20)}***. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }, HEADERS);
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.path === '/v1/chat/completions') {
      const scenario = chat.next();
      if (scenario.hang) return; // the client's abort or timeout ends it
      if (scenario.waitFor) await scenario.waitFor.catch(() => {});
      return chatCompletion(request, res, scenario, base, fake.nonReasoningModels);
    }
    const failure = failures.shift();
    if (failure) return sendJson(res, failure.status, errorBody(String(body.model), base, failure), HEADERS);
    if (request.path === '/v1/embeddings') {
      const input = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
      const dims = typeof body.dimensions === 'number' ? body.dimensions : 8;
      const data = input.map((text, index) => {
        const v = fakeEmbedding(text, dims);
        const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
        return { object: 'embedding', index, embedding };
      });
      const tokens = input.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);
      return sendJson(res, 200, { object: 'list', data, model: String(body.model), usage: { prompt_tokens: tokens, total_tokens: tokens } }, HEADERS);
    }
    if (request.path === '/v1/images/generations') {
      const n = typeof body.n === 'number' ? body.n : 1;
      const data = Array.from({ length: n }, (_, i) =>
        fake.imagesAsUrl
          ? { url: `${fake.url}/files/img-fakeopenai${i}.png?sig=fakeopenai`, revised_prompt: `${String(body.prompt)}${fake.revisedPromptSuffix}` }
          : { b64_json: PNG.toString('base64') },
      );
      return sendJson(res, 200, { created: 1763000100, data }, HEADERS);
    }
    return sendJson(res, 404, { error: { message: `Invalid URL (POST ${request.path})`, type: 'invalid_request_error', param: null, code: null } }, HEADERS);
  });
  // The handler reads `fake` only when requests arrive, after this assignment.
  const fake: FakeOpenAI = {
    ...server,
    baseUrl: `${server.url}/v1`,
    chat,
    failNext: (error) => void failures.push(error),
    imagesAsUrl: false,
    revisedPromptSuffix: ', in soft colours',
    nonReasoningModels: new Set(),
  };
  return fake;
}
