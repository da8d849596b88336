import type { ServerResponse } from 'node:http';
import { DEFAULT_USAGE, ScenarioQueue, writeEvents, type FakeChatScenario } from './fake-scenario.ts';
import { pieces, sendJson, startFakeServer, type FakeServer, type RecordedRequest } from './fake-server.ts';

/**
 * An Anthropic Messages upstream: POST /v1/messages as JSON or the full SSE sequence
 * (message_start, content blocks with text/thinking/input_json deltas, pings, message_delta,
 * message_stop), tool_use blocks, the forced-tool JSON answer, cache_read_input_tokens, and errors
 * as `{"type":"error","error":{...}}`. Its name is in ids, headers and error messages on purpose.
 * It stops at the first of the request's `stop_sequences` its text holds (`stop_reason: stop_sequence`).
 * Like the API, it refuses thinking blocks in history that it did not sign (the text changed, the
 * signature is not its own, or another model signed it)
 * and redacted thinking whose data it (that model) did not give out, an empty
 * `messages`, an empty stop sequence or one of whitespace only, text blocks that are empty or only whitespace, a final assistant turn (a prefill)
 * whose text ends in whitespace, `tool_choice` `auto`, `any` or `tool` without tools, and more than
 * four `cache_control` markers. The last three the gateway refuses before calling an upstream
 * (docs/api-decisions.md, "Inference: fourth audit" and "Inference: eighteenth audit"); the fake refuses them too, so a request that gets past those checks fails the tests.
 */
export interface FakeAnthropic extends FakeServer {
  readonly chat: ScenarioQueue;
  /** Upstream models without extended thinking: a request for one of them with `thinking` is refused with 400, as the API does. */
  readonly nonThinkingModels: Set<string>;
}

export const FAKE_ANTHROPIC_KEY = 'sk-ant-fakeanthropic-test-key';

const HEADERS = {
  'request-id': 'req_fakeanthropic0123456789abc',
  'anthropic-organization-id': 'fakeanthropic-org-0001',
  'anthropic-ratelimit-requests-limit': '4000',
  'anthropic-ratelimit-requests-remaining': '3999',
  'anthropic-ratelimit-tokens-remaining': '399000',
  server: 'fake-anthropic',
};

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: 'req_fakeanthropic0123456789abc' };
}

const TYPE_OF_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

type Block =
  | { type: 'thinking'; thinking: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string; citations?: readonly Record<string, unknown>[] | null }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocksFor(scenario: FakeChatScenario, body: Record<string, unknown>): { blocks: Block[]; stop: string; stopSequence?: string | null } {
  const tools = (Array.isArray(body.tools) ? body.tools : []) as { name: string }[];
  const choice = body.tool_choice as { type?: string; name?: string } | undefined;
  const blocks: Block[] = [];
  if (scenario.reasoning) blocks.push({ type: 'thinking', thinking: scenario.reasoning });
  if (scenario.refusal !== undefined) return { blocks: [...blocks, { type: 'text', text: scenario.refusal }], stop: 'refusal' };
  if (scenario.redactedThinking) blocks.push({ type: 'redacted_thinking', data: scenario.redactedThinking });
  // A forced tool that is not one of the scenario's calls is how JSON output is asked for.
  const forcedJson =
    scenario.json && (choice?.type === 'tool' || choice?.type === 'any')
      ? tools.find((t) => (choice.type === 'tool' ? t.name === choice.name : t.name.startsWith('json'))) ?? null
      : null;
  if (forcedJson && scenario.json) {
    blocks.push({ type: 'tool_use', id: 'toolu_fakeanthropicjson0001', name: forcedJson.name, input: scenario.json });
    return { blocks, stop: 'tool_use' };
  }
  if (scenario.textBlocks) for (const b of scenario.textBlocks) blocks.push({ type: 'text', text: b.text, citations: b.citations ?? null });
  else if (scenario.text) blocks.push({ type: 'text', text: scenario.text });
  const calls = choice?.type === 'none' ? [] : (scenario.toolCalls ?? []).filter((c) => tools.some((t) => t.name === c.name));
  calls.forEach((c, i) => blocks.push({ type: 'tool_use', id: `toolu_fakeanthropic${i}abcdef12345`, name: c.name, input: c.arguments }));
  if (scenario.textAfterToolCalls !== undefined && calls.length > 0) blocks.push({ type: 'text', text: scenario.textAfterToolCalls });
  const sent = Array.isArray(body.stop_sequences) ? (body.stop_sequences as string[]) : [];
  const stopped = stopAt(blocks, sent);
  if (stopped !== null) return { blocks: stopped.blocks, stop: 'stop_sequence', stopSequence: stopped.sequence };
  return {
    blocks,
    stop: calls.length > 0 ? 'tool_use' : scenario.finish === 'length' ? 'max_tokens' : scenario.finish === 'context_window' ? 'model_context_window_exceeded' : scenario.stopSequence !== undefined ? 'stop_sequence' : 'end_turn',
    stopSequence: scenario.stopSequence ?? null,
  };
}

/**
 * The blocks up to the first of the request's stop sequences that a text block holds, as the API
 * stops there (the sequence left out, nothing after it); null when none is in the text.
 */
function stopAt(blocks: readonly Block[], sequences: readonly string[]): { blocks: Block[]; sequence: string } | null {
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (b.type !== 'text') continue;
    let first: { at: number; sequence: string } | null = null;
    for (const s of sequences) {
      const at = b.text.indexOf(s);
      if (at >= 0 && (first === null || at < first.at)) first = { at, sequence: s };
    }
    if (first !== null) return { blocks: [...blocks.slice(0, i), { ...b, text: b.text.slice(0, first.at) }], sequence: first.sequence };
  }
  return null;
}

const SIGNATURE = 'EqQBfakeanthropicsignature';

/**
 * Thinking and redacted thinking this fake gave out (model and text, model and data): history may
 * carry only those, unchanged, with the signature and to the model that made them, as the API
 * verifies its signatures (one model's signature is refused by another).
 */
interface Issued {
  readonly thinking: Set<string>;
  readonly redacted: Set<string>;
}

/** The key under which `issued` holds a block `model` gave out. */
const issuedBy = (model: string, value: string): string => `${model}\n${value}`;

function checkSignatures(body: Record<string, unknown>, issued: Issued): string | null {
  const model = String(body.model);
  const msgs = Array.isArray(body.messages) ? (body.messages as { content: unknown }[]) : [];
  for (const [i, m] of msgs.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as { type: string; thinking?: string; signature?: string; data?: string }[]).entries()) {
      if (b.type === 'thinking' && (b.signature !== SIGNATURE || !issued.thinking.has(issuedBy(model, b.thinking ?? '')))) {
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      }
      if (b.type === 'redacted_thinking' && !issued.redacted.has(issuedBy(model, b.data ?? ''))) return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
  }
  return null;
}

/** The API's rules for content: a conversation, and text blocks with something in them. */
function checkContent(body: Record<string, unknown>): string | null {
  const messages = body.messages as { content: unknown }[];
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  const blocks: { type: string; text?: string; content?: unknown }[] = [
    ...(Array.isArray(body.system) ? (body.system as { type: string; text?: string }[]) : []),
    ...messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; text?: string; content?: unknown }[]) : [])),
  ];
  const texts = blocks.flatMap((b) => (b.type === 'tool_result' && Array.isArray(b.content) ? (b.content as { type: string; text?: string }[]) : [b]));
  for (const b of texts) {
    if (b.type !== 'text') continue;
    if (b.text === '') return 'messages: text content blocks must be non-empty';
    if (!/\S/.test(b.text ?? '')) return 'messages: text content blocks must contain non-whitespace text';
  }
  return null;
}

/**
 * At most four blocks with `cache_control` in a request, counted as the API counts them: tools,
 * system blocks, content blocks and the blocks inside tool results.
 */
function checkCacheMarkers(body: Record<string, unknown>): string | null {
  type Block = { cache_control?: unknown; type?: string; content?: unknown };
  const list = (v: unknown): Block[] => (Array.isArray(v) ? (v as Block[]) : []);
  const blocks = [...list(body.tools), ...list(body.system), ...list(body.messages).flatMap((m) => list((m as { content?: unknown }).content))];
  const all = blocks.flatMap((b) => (b.type === 'tool_result' ? [b, ...list(b.content)] : [b]));
  const found = all.filter((b) => b.cache_control !== undefined && b.cache_control !== null).length;
  return found > 4 ? `A maximum of 4 blocks with cache_control may be provided. Found ${found}.` : null;
}

/**
 * A prefill must not end in whitespace: the final message, when it is the assistant's, as a string
 * or in its last block when that is text (a turn ending in a tool call is not checked).
 */
function checkPrefill(body: Record<string, unknown>): string | null {
  const last = (body.messages as { role: string; content: unknown }[]).at(-1);
  if (last?.role !== 'assistant') return null;
  const end = Array.isArray(last.content) ? (last.content as { type: string; text?: string }[]).at(-1) : { type: 'text', text: last.content as string };
  return end?.type === 'text' && /\s$/u.test(end.text ?? '') ? 'messages: final assistant content cannot end with trailing whitespace' : null;
}

/** A tool choice other than `none` needs tools, as the API answers. */
function checkToolChoice(body: Record<string, unknown>): string | null {
  const choice = body.tool_choice as { type?: string } | undefined;
  if (choice === undefined || choice === null || choice.type === 'none') return null;
  return Array.isArray(body.tools) && body.tools.length > 0 ? null : 'tool_choice: may only be specified while providing tools';
}

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Each tool_result answers a tool_use of the message right before it, each tool_use of a message
 * that is not the last is answered in the next one, and tool_use ids are unique, as the API
 * requires (docs/api-decisions.md, "Inference: tenth audit" and "Inference: eleventh audit"), and
 * every id matches the API's pattern (docs/api-decisions.md, "Inference: session 29 audit").
 */
function checkToolResults(body: Record<string, unknown>): string | null {
  const turns = body.messages as { role: string; content: unknown }[];
  const ids = new Set<string | undefined>();
  for (const [i, m] of turns.entries()) {
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      const uses = (m.content as { type: string; id?: string }[]).flatMap((b, j) => (b.type === 'tool_use' ? [{ id: b.id, j }] : []));
      for (const { id, j } of uses) {
        if (!TOOL_ID.test(id ?? '')) return `messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (ids.has(id)) return `messages.${i}.content.${j}: \`tool_use\` ids must be unique`;
        ids.add(id);
      }
      const next = turns[i + 1];
      if (next === undefined) continue;
      const results = new Set(Array.isArray(next.content) ? (next.content as { type: string; tool_use_id?: string }[]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : []);
      const missing = uses.filter((u) => !results.has(u.id)).map((u) => String(u.id));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    const before = turns[i - 1];
    const calls = new Set(before?.role === 'assistant' && Array.isArray(before.content) ? (before.content as { type: string; id?: string }[]).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
    for (const [j, b] of (m.content as { type: string; tool_use_id?: string }[]).entries()) {
      if (b.type === 'tool_result' && !TOOL_ID.test(b.tool_use_id ?? '')) return `messages.${i}.content.${j}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (b.type === 'tool_result' && !calls.has(b.tool_use_id)) {
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return null;
}

/** The first bytes of each image type the API takes, as base64 (PNG, JPEG, GIF; WebP is RIFF....WEBP). */
const IMAGE_MAGIC: Record<string, (data: string) => boolean> = {
  'image/png': (d) => d.startsWith('iVBORw0KGgo'),
  'image/jpeg': (d) => d.startsWith('/9j/'),
  'image/gif': (d) => d.startsWith('R0lGOD'),
  'image/webp': (d) => Buffer.from(d.slice(0, 16), 'base64').subarray(8, 12).toString('latin1') === 'WEBP',
};

/**
 * Base64 image sources: one of the API's four media types, and bytes of that type, as the API
 * checks them (docs/api-decisions.md, "Inference: twelfth audit").
 */
function checkImages(body: Record<string, unknown>): string | null {
  const messages = body.messages as { content: unknown }[];
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as { type: string; source?: { type?: string; media_type?: string; data?: string } }[]).entries()) {
      if (b.type !== 'image' || b.source?.type !== 'base64') continue;
      const matches = IMAGE_MAGIC[b.source.media_type ?? ''];
      if (!matches) return `messages.${i}.content.${j}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
      if (!matches(b.source.data ?? '')) return `messages.${i}.content.${j}.image.source.base64.data: Image does not match the provided media type ${b.source.media_type}`;
    }
  }
  return null;
}

/** A tool's input_schema is an object schema, as the API requires (`type: "object"`). */
function checkToolSchemas(body: Record<string, unknown>): string | null {
  const tools = Array.isArray(body.tools) ? (body.tools as { type?: string; input_schema?: { type?: unknown } }[]) : [];
  for (const [i, t] of tools.entries()) {
    if (t.type !== undefined && t.type !== 'custom') continue;
    const type = t.input_schema?.type;
    if (type === undefined) return `tools.${i}.custom.input_schema.type: Field required`;
    if (type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return null;
}

/** The API's rules for extended thinking, as it enforces them. */
function checkThinking(body: Record<string, unknown>): string | null {
  const thinking = body.thinking as { type?: string; budget_tokens?: unknown } | undefined;
  if (thinking?.type !== 'enabled') return null;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (budget >= (body.max_tokens as number)) return '`max_tokens` must be greater than `thinking.budget_tokens`';
  if (body.temperature !== undefined || body.top_k !== undefined) return '`temperature` and `top_k` may not be set when thinking is enabled';
  if (typeof body.top_p === 'number' && body.top_p < 0.95) return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled';
  const sent = body.messages as { role: string; content: unknown }[];
  const last = sent.findLast((m) => m.role === 'assistant');
  const blocks = Array.isArray(last?.content) ? (last.content as { type: string }[]) : [];
  // A tool-use turn, or a prefill (the request ends on the assistant turn).
  const final = blocks.some((b) => b.type === 'tool_use') || (last !== undefined && sent.at(-1) === last);
  if (final && blocks[0]?.type !== 'thinking' && blocks[0]?.type !== 'redacted_thinking') {
    return 'messages: When `thinking` is enabled, a final `assistant` message must start with a thinking block';
  }
  return null;
}

function messages(request: RecordedRequest, res: ServerResponse, scenario: FakeChatScenario, nonThinking: ReadonlySet<string>, issued: Issued): Promise<void> | void {
  const body = request.body as Record<string, unknown>;
  const model = String(body.model);
  if (body.thinking !== undefined && nonThinking.has(model)) {
    return sendJson(res, 400, errorBody('invalid_request_error', `'${model}' does not support thinking.`), HEADERS);
  }
  if (scenario.error) {
    const type = scenario.error.type ?? TYPE_OF_STATUS[scenario.error.status] ?? 'api_error';
    return sendJson(res, scenario.error.status, errorBody(type, scenario.error.message ?? `Anthropic could not serve ${model} (claude upstream, request req_fakeanthropic0123456789)`), { ...HEADERS, ...scenario.error.headers });
  }
  if (typeof body.max_tokens !== 'number') return sendJson(res, 400, errorBody('invalid_request_error', 'max_tokens: Field required'), HEADERS);
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.includes('')) {
    return sendJson(res, 400, errorBody('invalid_request_error', 'stop_sequences: each stop sequence must be non-empty'), HEADERS);
  }
  if (Array.isArray(body.stop_sequences) && (body.stop_sequences as string[]).some((s) => s.trim() === '')) {
    return sendJson(res, 400, errorBody('invalid_request_error', 'stop_sequences: each stop sequence must contain non-whitespace'), HEADERS);
  }
  const problem = checkContent(body) ?? checkCacheMarkers(body) ?? checkPrefill(body) ?? checkToolChoice(body) ?? checkToolResults(body) ?? checkImages(body) ?? checkToolSchemas(body) ?? checkThinking(body) ?? checkSignatures(body, issued);
  if (problem) return sendJson(res, 400, errorBody('invalid_request_error', problem), HEADERS);
  const { blocks, stop, stopSequence = null } = blocksFor(scenario, body);
  for (const b of blocks) {
    if (b.type === 'thinking') issued.thinking.add(issuedBy(model, b.thinking));
    if (b.type === 'redacted_thinking') issued.redacted.add(issuedBy(model, b.data));
  }
  const u: NonNullable<FakeChatScenario['usage']> = scenario.usage ?? DEFAULT_USAGE;
  const written = u.written ?? 0;
  const written1h = u.written1h ?? 0;
  const usageStart = {
    input_tokens: u.input - u.cached - written,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: u.cached,
    cache_creation: { ephemeral_5m_input_tokens: written - written1h, ephemeral_1h_input_tokens: written1h },
    output_tokens: 1,
    service_tier: 'standard',
  };
  const id = 'msg_fakeanthropic0123456789ab';
  if (body.stream !== true || scenario.ignoreStream) {
    return sendJson(
      res,
      200,
      {
        model,
        id,
        type: 'message',
        role: 'assistant',
        content: blocks.map((b) => (b.type === 'thinking' ? { ...b, signature: SIGNATURE } : b)),
        stop_reason: stop,
        stop_sequence: stop === 'stop_sequence' ? stopSequence : null,
        usage: { ...usageStart, output_tokens: u.output },
      },
      HEADERS,
    );
  }
  const ev = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const events: string[] = [
    ev({ type: 'message_start', message: { model, id, type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: usageStart } } as { type: string }),
  ];
  blocks.forEach((b, index) => {
    if (b.type === 'thinking') {
      events.push(ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } } as { type: string }));
      events.push(ev({ type: 'ping' }));
      for (const p of pieces(b.thinking)) events.push(ev({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: p } } as { type: string }));
      events.push(ev({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: SIGNATURE } } as { type: string }));
    } else if (b.type === 'redacted_thinking') {
      events.push(ev({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: b.data } } as { type: string }));
    } else if (b.type === 'text') {
      events.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '', ...(b.citations ? { citations: [] } : {}) } } as { type: string }));
      if (index === 0) events.push(ev({ type: 'ping' }));
      for (const citation of b.citations ?? []) events.push(ev({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } } as { type: string }));
      for (const p of pieces(b.text)) events.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } } as { type: string }));
    } else {
      events.push(ev({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } } as { type: string }));
      events.push(ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } } as { type: string }));
      for (const p of pieces(JSON.stringify(b.input), 7)) events.push(ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } } as { type: string }));
    }
    events.push(ev({ type: 'content_block_stop', index } as { type: string }));
  });
  events.push(ev({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: stop === 'stop_sequence' ? stopSequence : null }, usage: scenario.omitUsage ? {} : { output_tokens: u.output } } as { type: string }));
  events.push(ev({ type: 'message_stop' }));
  const errorEvent = () => {
    const se = scenario.streamErrorAfter;
    return ev({ type: 'error', error: { type: se?.type ?? 'overloaded_error', message: se?.message ?? 'Overloaded' } } as { type: string });
  };
  return writeEvents(res, events, scenario, errorEvent, HEADERS);
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const chat = new ScenarioQueue();
  const nonThinkingModels = new Set<string>();
  const issued: Issued = { thinking: new Set(), redacted: new Set() };
  const server = await startFakeServer(async (request, res) => {
    if (request.headers['x-api-key'] !== FAKE_ANTHROPIC_KEY) {
      return sendJson(res, 401, errorBody('authentication_error', 'invalid x-api-key'), HEADERS);
    }
    if (request.headers['anthropic-version'] !== '2023-06-01') {
      return sendJson(res, 400, errorBody('invalid_request_error', 'anthropic-version: header is required'), HEADERS);
    }
    if (request.method === 'POST' && request.path === '/v1/messages') {
      const scenario = chat.next();
      if (scenario.hang) return;
      if (scenario.waitFor) await scenario.waitFor.catch(() => {});
      return messages(request, res, scenario, nonThinkingModels, issued);
    }
    return sendJson(res, 404, errorBody('not_found_error', 'Not found'), HEADERS);
  });
  return { ...server, chat, nonThinkingModels };
}
