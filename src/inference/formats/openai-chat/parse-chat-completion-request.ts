import { readOpenAIFile } from '../document-input.ts';
import {
  REASONING_EFFORTS,
  type CanonicalChatRequest,
  type CanonicalMessage,
  type JsonObject,
  type ResponseFormat,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
  type UserContentPart,
} from '../../canonical/chat.ts';
import {
  at,
  expectFields,
  invalid,
  isFields,
  readBoolean,
  readBody,
  readEnum,
  readInteger,
  readNumber,
  readString,
  readStringOrList,
  type Fields,
} from '../read-fields.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import { mentionsJson } from '../json-mode.ts';
import { checkChatLogprobs, checkOpenAISamplingFields } from '../openai-sampling-fields.ts';
import { readStreamOptions } from '../stream-options.ts';
import { imageUrlForUpstream } from '../image-data-uri.ts';
import { checkUserParts, checkUserText } from '../user-content.ts';
import { customCallArguments, customToolDefinition } from '../openai-responses/client-tools.ts';
import type { CustomToolFormat } from '../openai-responses/response-items.ts';
import { readReasoningDetails } from './reasoning-details.ts';
import { checkChatIgnoredFields } from './chat-ignored-fields.ts';

export interface ParsedChatCompletionRequest {
  /** The brand model id the client asked for, unresolved; undefined when it named none. */
  readonly model: string | undefined;
  readonly request: CanonicalChatRequest;
  /** `stream_options.include_usage`: the client wants the usage chunk before `[DONE]`. */
  readonly includeUsage: boolean;
  /** The names of the `custom` tools: their calls are answered as custom tool calls. */
  readonly customTools: ReadonlySet<string>;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NAME_RULE = 'must be 1-64 letters, digits, underscores or dashes';
const IMAGE_URL = /^(?:https?:\/\/\S+|data:image\/[a-zA-Z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+)$/i;
const MAX_TOOLS = 128;

/** Text of a `content` that may be a string or an array of text parts. */
function readTextContent(value: unknown, path: string, opts: { nullable?: boolean } = {}): string {
  if (typeof value === 'string') return value;
  if ((value === null || value === undefined) && opts.nullable) return '';
  if (!Array.isArray(value)) invalid(path, opts.nullable ? 'must be a string, null or an array of text parts' : 'must be a string or an array of text parts');
  return value
    .map((part, i) => {
      const p = at(path, i);
      const f = expectFields(part, p);
      const type = readString(f, 'type', p, { required: true });
      if (type === 'text') return readString(f, 'text', p, { required: true })!;
      // Assistant history may carry a refusal the model gave earlier.
      if (type === 'refusal' && opts.nullable) return readString(f, 'refusal', p, { required: true })!;
      return invalid(at(p, 'type'), `unsupported content part type "${type}" here; expected text`);
    })
    .join('');
}

function readUserContent(value: unknown, path: string): UserContentPart[] {
  if (typeof value === 'string') {
    checkUserText(value, path);
    return [{ type: 'text', text: value }];
  }
  if (!Array.isArray(value)) invalid(path, 'must be a string or an array of content parts');
  if (value.length === 0) invalid(path, 'must not be empty');
  const parts = value.map((part, i): UserContentPart => {
    const p = at(path, i);
    const f = expectFields(part, p);
    const type = readString(f, 'type', p, { required: true });
    if (type === 'text') return { type: 'text', text: readString(f, 'text', p, { required: true })! };
    if (type === 'image_url') {
      const img = expectFields(f.image_url, at(p, 'image_url'));
      const given = readString(img, 'url', at(p, 'image_url'), { required: true })!;
      if (!IMAGE_URL.test(given)) invalid(at(at(p, 'image_url'), 'url'), 'must be an http(s) URL or a base64 data URI');
      const url = imageUrlForUpstream(given, at(at(p, 'image_url'), 'url'));
      const detail = readEnum(img, 'detail', at(p, 'image_url'), ['auto', 'low', 'high'] as const);
      return detail ? { type: 'image', url, detail } : { type: 'image', url };
    }
    // Chat's file part has no URL form at OpenAI: file_data only.
    if (type === 'file') return readOpenAIFile(expectFields(f.file, at(p, 'file')), at(p, 'file'), false);
    return invalid(at(p, 'type'), `unsupported content part type "${type}"; expected text, image_url or file`);
  });
  checkUserParts(parts, path);
  return parts;
}

/** A called tool's name in the history: a declared tool's name, so held to the same rule, as OpenAI holds it. */
function readCallName(f: Fields, path: string): string {
  const name = readString(f, 'name', path, { required: true })!;
  if (!NAME.test(name)) invalid(at(path, 'name'), NAME_RULE);
  return name;
}

function readToolCalls(value: unknown, path: string): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) invalid(path, 'must be an array');
  return value.map((call, i) => {
    const p = at(path, i);
    const f = expectFields(call, p);
    const type = readEnum(f, 'type', p, ['function', 'custom'] as const);
    const id = readString(f, 'id', p, { required: true, nonEmpty: true })!;
    if (type === 'custom') {
      // Sent back as the upstream's function call it was (client-tools.ts).
      const custom = expectFields(f.custom, at(p, 'custom'));
      const name = readCallName(custom, at(p, 'custom'));
      const input = readString(custom, 'input', at(p, 'custom'), { required: true })!;
      return { id, name, arguments: customCallArguments(input) };
    }
    const fn = expectFields(f.function, at(p, 'function'));
    const name = readCallName(fn, at(p, 'function'));
    const args = readString(fn, 'arguments', at(p, 'function'), { required: true })!;
    try {
      JSON.parse(args === '' ? '{}' : args);
    } catch {
      invalid(at(at(p, 'function'), 'arguments'), 'must be a JSON string');
    }
    return { id, name, arguments: args === '' ? '{}' : args };
  });
}

/**
 * Each tool message answers a call of the last assistant message, and each call of an assistant
 * message is answered by the tool messages after it, as OpenAI requires (in its words). Sent on,
 * either was refused by the upstream in its own words (Anthropic: a tool_result without its
 * tool_use, a tool_use without its tool_result) or answered by a lenient one: one 400 whatever the
 * upstream. System messages between the calls and their results do not break the turn (an
 * Anthropic upstream gets them in `system`); a user or assistant message does. An assistant
 * message of calls that ends the list is left to the upstream (docs/api-decisions.md, "Inference:
 * eleventh audit").
 */
function checkToolMessages(messages: readonly CanonicalMessage[]): void {
  let turn: { readonly index: number; readonly calls: ReadonlySet<string>; readonly unanswered: Set<string>; answered: boolean } | null = null;
  const close = () => {
    if (turn === null || turn.unanswered.size === 0) return;
    invalid(
      at(at('messages', turn.index), 'tool_calls'),
      `an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...turn.unanswered].join(', ')}`,
    );
  };
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant') {
      close();
      const ids = m.toolCalls.map((c) => c.id);
      turn = ids.length > 0 ? { index: i, calls: new Set(ids), unanswered: new Set(ids), answered: false } : null;
    } else if (m.role === 'user') {
      close();
      turn = null;
    } else if (m.role === 'tool') {
      const path = at('messages', i);
      if (turn === null) invalid(at(path, 'role'), "messages with role 'tool' must be a response to a preceding message with 'tool_calls'");
      if (!turn.calls.has(m.toolCallId)) invalid(at(path, 'tool_call_id'), `'${m.toolCallId}' not found in 'tool_calls' of previous message`);
      turn.unanswered.delete(m.toolCallId);
      turn.answered = true;
    }
  }
  if (turn?.answered) close();
}

/**
 * A participant's `name` is held to OpenAI's pattern, which it refuses naming the field; it is
 * not sent on (no upstream here reads it), so without the check a bad one passed here and failed
 * at OpenAI. A tool message's `name` is not OpenAI's and stays ignored.
 */
function checkParticipantName(f: Fields, path: string): void {
  const name = readString(f, 'name', path);
  if (name !== undefined && !NAME.test(name)) invalid(at(path, 'name'), NAME_RULE);
}

function readMessage(value: unknown, path: string, sealer: ReasoningSealer): CanonicalMessage {
  const f = expectFields(value, path);
  const role = readEnum(f, 'role', path, ['system', 'developer', 'user', 'assistant', 'tool'] as const, { required: true })!;
  if (role !== 'tool') checkParticipantName(f, path);
  const contentPath = at(path, 'content');
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: readTextContent(f.content, contentPath) };
    case 'user':
      return { role: 'user', content: readUserContent(f.content, contentPath) };
    case 'assistant': {
      const toolCalls = readToolCalls(f.tool_calls, at(path, 'tool_calls'));
      const content = readTextContent(f.content, contentPath, { nullable: true });
      // The reasoning blocks of the turn, sealed as the service gave them (reasoning-details.ts);
      // `reasoning` (the text) is accepted and not used: text alone cannot go back upstream.
      if (f.reasoning_details === undefined || f.reasoning_details === null) return { role: 'assistant', content, toolCalls };
      const reasoning = readReasoningDetails(f.reasoning_details, at(path, 'reasoning_details'), sealer);
      return reasoning.length > 0 ? { role: 'assistant', content, toolCalls, reasoning } : { role: 'assistant', content, toolCalls };
    }
    case 'tool':
      return {
        role: 'tool',
        toolCallId: readString(f, 'tool_call_id', path, { required: true, nonEmpty: true })!,
        content: readTextContent(f.content, contentPath),
      };
  }
}

const isTurn = (m: CanonicalMessage): boolean => m.role !== 'system';

function* messageTexts(messages: readonly CanonicalMessage[]): Iterable<string> {
  for (const m of messages) {
    if (m.role !== 'user') yield m.content;
    else for (const part of m.content) if (part.type === 'text') yield part.text;
  }
}

function readSchema(value: unknown, path: string, fallback: JsonObject): JsonObject {
  if (value === undefined || value === null) return fallback;
  if (!isFields(value)) invalid(path, 'must be a JSON Schema object');
  return value;
}

/**
 * A tool's parameters: a JSON Schema object whose `type`, when given, is `object`, as the
 * document's tool definition has it and both upstream kinds require (Anthropic: `input_schema.type:
 * Input should be 'object'`; OpenAI: `schema must be a JSON Schema of 'type: "object"'`). Another
 * type used to reach the upstream, and the client got its refusal, redacted, in the upstream's
 * words (docs/api-decisions.md, "Inference: twelfth audit"). A schema without `type` is taken as
 * it is; the Anthropic adapter, whose API requires the field, adds it.
 */
export function readToolSchema(value: unknown, path: string): JsonObject {
  const schema = readSchema(value, path, { type: 'object', properties: {} });
  if (schema.type !== undefined && schema.type !== 'object') invalid(at(path, 'type'), 'must be "object"');
  return schema;
}

/** A tool's `name` at `path`, unique across `seen` (function and custom tools share one namespace). */
function readToolName(f: Fields, path: string, seen: Set<string>): string {
  const name = readString(f, 'name', path, { required: true })!;
  if (!NAME.test(name)) invalid(at(path, 'name'), NAME_RULE);
  if (seen.has(name)) invalid(at(path, 'name'), `duplicate tool name ${name}`);
  seen.add(name);
  return name;
}

/**
 * The `function` of a tool in the service's form (`{type: "function", function: {name,
 * description, parameters}}`, also taken by /v1/messages): names unique across `seen`.
 */
export function readFunctionTool(f: Fields, p: string, seen: Set<string>): ToolDefinition {
  const fp = at(p, 'function');
  const fn = expectFields(f.function, fp);
  const name = readToolName(fn, fp, seen);
  const description = readString(fn, 'description', fp);
  const parameters = readToolSchema(fn.parameters, at(fp, 'parameters'));
  return description === undefined ? { name, parameters } : { name, description, parameters };
}

/** A chat custom tool's `format`: `{type: "text"}` (the default) or `{type: "grammar", grammar: {syntax, definition}}`. */
function readCustomFormat(f: Fields, path: string): CustomToolFormat {
  if (f.format === undefined || f.format === null) return { type: 'text' };
  const p = at(path, 'format');
  const format = expectFields(f.format, p);
  const type = readEnum(format, 'type', p, ['text', 'grammar'] as const, { required: true })!;
  if (type === 'text') return { type: 'text' };
  const gp = at(p, 'grammar');
  const grammar = expectFields(format.grammar, gp);
  const syntax = readEnum(grammar, 'syntax', gp, ['lark', 'regex'] as const, { required: true })!;
  const definition = readString(grammar, 'definition', gp, { required: true, nonEmpty: true })!;
  return { type: 'grammar', syntax, definition };
}

/**
 * A `custom` tool (`{type: "custom", custom: {name, description?, format?}}`) as the function tool
 * of one string the upstream gets, as on /v1/responses (docs/api-decisions.md, "Responses: allowed
 * tools and custom tools").
 */
function readCustomTool(f: Fields, p: string, seen: Set<string>): ToolDefinition {
  const cp = at(p, 'custom');
  const custom = expectFields(f.custom, cp);
  const name = readToolName(custom, cp, seen);
  const description = readString(custom, 'description', cp);
  return customToolDefinition({ name, format: readCustomFormat(custom, cp), ...(description === undefined ? {} : { description }) });
}

function readTools(body: Fields): { tools: ToolDefinition[]; custom: Set<string> } {
  const custom = new Set<string>();
  const v = body.tools;
  if (v === undefined || v === null) return { tools: [], custom };
  if (!Array.isArray(v)) invalid('tools', 'must be an array');
  if (v.length > MAX_TOOLS) invalid('tools', `must have at most ${MAX_TOOLS} items`);
  const seen = new Set<string>();
  const tools = v.map((tool, i) => {
    const p = at('tools', i);
    const f = expectFields(tool, p);
    const type = readEnum(f, 'type', p, ['function', 'custom'] as const, { required: true });
    if (type === 'function') return readFunctionTool(f, p, seen);
    const t = readCustomTool(f, p, seen);
    custom.add(t.name);
    return t;
  });
  return { tools, custom };
}

/** The tool `{type, [type]: {name}}` names: a tool of that type in `tools`. */
function readNamedTool(f: Fields, path: string, type: 'function' | 'custom', declared: Declared): string {
  const p = at(path, type);
  const name = readString(expectFields(f[type], p), 'name', p, { required: true })!;
  const isCustom = declared.custom.has(name);
  if (!declared.tools.some((t) => t.name === name)) invalid(at(p, 'name'), `no ${type === 'custom' ? 'custom tool' : 'tool'} named ${name} in tools`);
  if (isCustom !== (type === 'custom')) invalid(at(p, 'name'), isCustom ? `${name} is a custom tool, not a function` : `no custom tool named ${name} in tools`);
  return name;
}

interface Declared {
  readonly tools: readonly ToolDefinition[];
  readonly custom: ReadonlySet<string>;
}

/**
 * `tool_choice`: a value of OpenAI's, and only next to tools, as OpenAI refuses it otherwise
 * (`none` included; docs/api-decisions.md, "Inference: fourth audit"). `allowed_tools` gives its
 * mode as the choice and the tools it allows, the only ones sent upstream, as on /v1/responses
 * (docs/api-decisions.md, "Responses: allowed tools and custom tools").
 */
function readToolChoice(body: Fields, declared: Declared): { choice?: ToolChoice; allowed?: ReadonlySet<string> } {
  const v = body.tool_choice;
  if (v === undefined || v === null) return {};
  const withoutTools = () => invalid('tool_choice', 'is only allowed when tools are specified');
  if (typeof v === 'string') {
    if (v !== 'auto' && v !== 'none' && v !== 'required') invalid('tool_choice', 'must be one of auto, none, required or a function choice');
    if (declared.tools.length === 0) withoutTools();
    return { choice: { type: v } };
  }
  const f = expectFields(v, 'tool_choice');
  const type = readEnum(f, 'type', 'tool_choice', ['function', 'custom', 'allowed_tools'] as const, { required: true })!;
  if (declared.tools.length === 0) withoutTools();
  if (type === 'allowed_tools') return readAllowedTools(f, declared);
  return { choice: { type: 'tool', name: readNamedTool(f, 'tool_choice', type, declared) } };
}

/** `{type: "allowed_tools", allowed_tools: {mode, tools: [{type: "function", function: {name}} | {type: "custom", custom: {name}}]}}`. */
function readAllowedTools(f: Fields, declared: Declared): { choice: ToolChoice; allowed: ReadonlySet<string> } {
  const p = 'tool_choice.allowed_tools';
  const a = expectFields(f.allowed_tools, p);
  const mode = readEnum(a, 'mode', p, ['auto', 'required'] as const, { required: true })!;
  const list = a.tools;
  if (!Array.isArray(list)) invalid(at(p, 'tools'), list === undefined ? 'is required' : 'must be an array');
  if (list.length === 0) invalid(at(p, 'tools'), 'must not be empty');
  const allowed = new Set<string>();
  list.forEach((entry, i) => {
    const ep = at(at(p, 'tools'), i);
    const e = expectFields(entry, ep);
    const type = readEnum(e, 'type', ep, ['function', 'custom'] as const, { required: true })!;
    allowed.add(readNamedTool(e, ep, type, declared));
  });
  return { choice: { type: mode }, allowed };
}

/**
 * `parallel_tool_calls`: only next to tools, as OpenAI refuses it otherwise (docs/api-decisions.md,
 * "Inference: fifth audit"); `null` is none.
 */
function readParallelToolCalls(body: Fields, tools: readonly ToolDefinition[]): boolean | undefined {
  const v = readBoolean(body, 'parallel_tool_calls', '');
  if (v !== undefined && tools.length === 0) invalid('parallel_tool_calls', 'is only allowed when tools are specified');
  return v;
}

/** `response_format` (`text`, `json_object`, `json_schema`); also the messages route's, as the service's response format object. */
export function readResponseFormat(body: Fields): ResponseFormat | undefined {
  const v = body.response_format;
  if (v === undefined || v === null) return undefined;
  const f = expectFields(v, 'response_format');
  const type = readEnum(f, 'type', 'response_format', ['text', 'json_object', 'json_schema'] as const, { required: true });
  if (type === 'text') return undefined;
  if (type === 'json_object') return { type: 'json_object' };
  const p = 'response_format.json_schema';
  const js = expectFields(f.json_schema, p);
  const name = readString(js, 'name', p, { required: true })!;
  if (!NAME.test(name)) invalid(at(p, 'name'), NAME_RULE);
  const schema = readSchema(js.schema, at(p, 'schema'), { type: 'object' });
  const description = readString(js, 'description', p);
  const strict = readBoolean(js, 'strict', p);
  return {
    type: 'json_schema',
    name,
    schema,
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

/**
 * Parses and validates an OpenAI chat-completions request body. Fields the service does not act on
 * (logprobs, seed, penalties, metadata, ...) are accepted and ignored, as OpenAI-compatible
 * servers commonly do, once within OpenAI's ranges (openai-sampling-fields.ts); `n` other than 1
 * is refused because only one choice is produced. `sealer`
 * opens the reasoning tokens of assistant messages' `reasoning_details` (the account's).
 */
export function parseChatCompletionRequest(rawBody: unknown, sealer: ReasoningSealer): ParsedChatCompletionRequest {
  const body = readBody(rawBody);
  const model = readString(body, 'model', '', { nonEmpty: true });
  if (!Array.isArray(body.messages)) invalid('messages', body.messages === undefined ? 'is required' : 'must be an array');
  if (body.messages.length === 0) invalid('messages', 'must not be empty');
  const messages = body.messages.map((m, i) => readMessage(m, at('messages', i), sealer));
  checkToolMessages(messages);
  // As on /v1/messages: system text alone is no conversation (an Anthropic upstream refuses it).
  if (!messages.some(isTurn)) invalid('messages', 'must have a user or assistant message');
  // Silently dropping them would answer without the functions the client offered.
  if (body.functions !== undefined && body.functions !== null) invalid('functions', 'is deprecated and not supported; use tools');
  if (body.function_call !== undefined && body.function_call !== null) invalid('function_call', 'is deprecated and not supported; use tool_choice');
  const declared = readTools(body);
  const { choice: toolChoice, allowed } = readToolChoice(body, declared);
  const tools = allowed ? declared.tools.filter((t) => allowed.has(t.name)) : declared.tools;
  const responseFormat = readResponseFormat(body);
  // OpenAI's rule and words (json-mode.ts).
  if (responseFormat?.type === 'json_object' && !mentionsJson(messageTexts(messages))) {
    invalid('messages', "must contain the word 'json' in some form, to use 'response_format' of type 'json_object'");
  }
  const maxTokens = readInteger(body, 'max_completion_tokens', '', { min: 1 }) ?? readInteger(body, 'max_tokens', '', { min: 1 });
  const temperature = readNumber(body, 'temperature', '', { min: 0, max: 2 });
  const topP = readNumber(body, 'top_p', '', { min: 0, max: 1 });
  checkOpenAISamplingFields(body);
  checkChatLogprobs(body);
  checkChatIgnoredFields(body);
  // An empty stop string stops nothing; left out, as an Anthropic upstream refuses it.
  const stop = readStringOrList(body, 'stop', '', { maxItems: 4 }).filter((s) => s !== '');
  const n = readInteger(body, 'n', '', { min: 1 });
  if (n !== undefined && n !== 1) invalid('n', 'only 1 is supported');
  const stream = readBoolean(body, 'stream', '') ?? false;
  const streamOptions = readStreamOptions(body, stream);
  const includeUsage = streamOptions !== undefined && readBoolean(streamOptions, 'include_usage', 'stream_options') === true;
  const user = readString(body, 'user', '');
  const parallelToolCalls = readParallelToolCalls(body, tools);
  const reasoningEffort = readEnum(body, 'reasoning_effort', '', REASONING_EFFORTS);
  const request: CanonicalChatRequest = {
    messages,
    tools,
    stop,
    stream,
    ...(toolChoice ? { toolChoice } : {}),
    ...(parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(reasoningEffort !== undefined ? { reasoning: { effort: reasoningEffort } } : {}),
  };
  return { model, request, includeUsage, customTools: declared.custom };
}
