import type {
  CacheControl,
  CanonicalChatRequest,
  DocumentSource,
  JsonObject,
  CanonicalMessage,
  ReasoningBlock,
  ResponseFormat,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  UserContentPart,
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
  type Fields,
} from '../read-fields.ts';
import { readFunctionTool, readResponseFormat, readToolSchema } from '../openai-chat/parse-chat-completion-request.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import { checkCacheMarkers } from './cache-markers.ts';
import { imageUrlForUpstream } from '../image-data-uri.ts';
import { readDocumentUrl, readPdfBase64 } from '../document-input.ts';
import { checkUserParts, checkUserText } from '../user-content.ts';
import { openBlockValue, type SealedField } from './sealed-tokens.ts';

export interface ParsedMessagesRequest {
  /** The brand model id the client asked for, unresolved; undefined when it names none (the route serves the budget default). */
  readonly model: string | undefined;
  /** `maxTokens` is left out when the client gave no `max_tokens` (see messagesMaxTokens). */
  readonly request: CanonicalChatRequest;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const HTTP_URL = /^https?:\/\/\S+$/;
const IMAGE_DATA_URI = /^data:image\/[a-zA-Z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;
const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
const MAX_TOOLS = 128;
/** The smallest thinking budget the Anthropic API takes. */
const MIN_THINKING_BUDGET = 1024;

/**
 * Anthropic's server-side tool families, run by the upstream provider rather than the client: the
 * service neither runs them nor can route them to every upstream, so they are refused by name.
 */
const SERVER_TOOL_FAMILIES: readonly (readonly [prefix: string, family: string])[] = [
  ['web_search_', 'web search'],
  ['web_fetch_', 'web fetch'],
  ['code_execution_', 'code execution'],
  ['memory_', 'memory'],
];

/**
 * A prompt-cache marker: Anthropic's one kind, `ephemeral`, with its `ttl` (`5m` or `1h`). Checked
 * here, whatever upstream serves the model: an Anthropic upstream refuses any other, an
 * OpenAI-compatible one ignores markers, so the answer would depend on the deployment.
 */
function readCacheControl(f: Fields, path: string): CacheControl | undefined {
  const v = f.cache_control;
  if (v === undefined || v === null) return undefined;
  const cp = at(path, 'cache_control');
  if (!isFields(v)) invalid(cp, 'must be an object');
  const type = readEnum(v, 'type', cp, ['ephemeral'] as const, { required: true })!;
  const ttl = readEnum(v, 'ttl', cp, ['5m', '1h'] as const);
  return ttl === undefined ? { type } : { type, ttl };
}

const withCache = <T extends object>(value: T, cacheControl: CacheControl | undefined): T =>
  cacheControl === undefined ? value : { ...value, cacheControl };

function readImage(f: Fields, path: string): UserContentPart {
  const sp = at(path, 'source');
  const source = expectFields(f.source, sp);
  const type = readEnum(source, 'type', sp, ['base64', 'url'] as const, { required: true });
  let url: string;
  if (type === 'base64') {
    const mediaType = readEnum(source, 'media_type', sp, MEDIA_TYPES, { required: true })!;
    const data = readString(source, 'data', sp, { required: true, nonEmpty: true })!;
    if (!BASE64.test(data)) invalid(at(sp, 'data'), 'must be base64');
    url = `data:${mediaType};base64,${data}`;
  } else {
    url = readString(source, 'url', sp, { required: true })!;
    if (!HTTP_URL.test(url)) invalid(at(sp, 'url'), 'must be an http(s) URL');
  }
  return withCache({ type: 'image' as const, url }, readCacheControl(f, path));
}

/** Anthropic's `document` block (docs/api-decisions.md, "Documents and files as input"). */
function readDocument(f: Fields, path: string): UserContentPart {
  const sp = at(path, 'source');
  const source = expectFields(f.source, sp);
  const type = readString(source, 'type', sp, { required: true })!;
  let read: DocumentSource;
  switch (type) {
    case 'base64':
      readEnum(source, 'media_type', sp, ['application/pdf'] as const, { required: true });
      read = { type: 'pdf', data: readPdfBase64(readString(source, 'data', sp, { required: true })!, at(sp, 'data')) };
      break;
    case 'text':
      readEnum(source, 'media_type', sp, ['text/plain'] as const, { required: true });
      read = { type: 'text', text: readString(source, 'data', sp, { required: true })! };
      break;
    case 'content': {
      const cp = at(sp, 'content');
      if (typeof source.content === 'string') read = { type: 'content', texts: [source.content] };
      else if (Array.isArray(source.content) && source.content.length > 0) {
        read = {
          type: 'content',
          texts: source.content.map((block, i) => {
            const b = expectFields(block, at(cp, i));
            const t = readString(b, 'type', at(cp, i), { required: true })!;
            if (t !== 'text') unsupportedBlock(t, at(cp, i), 'text');
            return readString(b, 'text', at(cp, i), { required: true })!;
          }),
        };
      } else return invalid(cp, 'must be a string or a non-empty array of text blocks');
      break;
    }
    case 'url':
      read = readDocumentUrl(readString(source, 'url', sp, { required: true })!, at(sp, 'url'));
      break;
    case 'file':
      return invalid(at(sp, 'type'), 'file sources are not supported (this service has no files API); send base64, text, content or url');
    default:
      return invalid(at(sp, 'type'), 'must be one of base64, text, content, url');
  }
  const title = readString(f, 'title', path);
  const context = readString(f, 'context', path);
  const cp = at(path, 'citations');
  let citations: JsonObject | undefined;
  if (f.citations !== undefined && f.citations !== null) {
    const c = expectFields(f.citations, cp);
    readBoolean(c, 'enabled', cp);
    citations = c;
  }
  return withCache(
    {
      type: 'document' as const,
      source: read,
      ...(title !== undefined ? { title } : {}),
      ...(context !== undefined ? { context } : {}),
      ...(citations !== undefined ? { citations } : {}),
    },
    readCacheControl(f, path),
  );
}

/** The OpenAI-style `image_url` part, which the service's message object allows next to Anthropic's blocks. */
function readImageUrl(f: Fields, path: string): UserContentPart {
  const ip = at(path, 'image_url');
  const img = expectFields(f.image_url, ip);
  const given = readString(img, 'url', ip, { required: true })!;
  if (!HTTP_URL.test(given) && !IMAGE_DATA_URI.test(given)) invalid(at(ip, 'url'), 'must be an http(s) URL or a base64 data URI');
  const url = imageUrlForUpstream(given, at(ip, 'url'));
  // `detail` is the OpenAI part's; an OpenAI-compatible upstream gets it back, Anthropic has none.
  const detail = readEnum(img, 'detail', ip, ['auto', 'low', 'high'] as const);
  return withCache({ type: 'image' as const, url, ...(detail !== undefined ? { detail } : {}) }, readCacheControl(f, path));
}

function readText(f: Fields, path: string): UserContentPart {
  return withCache({ type: 'text' as const, text: readString(f, 'text', path, { required: true })! }, readCacheControl(f, path));
}

function unsupportedBlock(type: string, path: string, expected: string): never {
  return invalid(at(path, 'type'), `unsupported content block type "${type}" here; expected ${expected}`);
}

function readToolResult(f: Fields, path: string): CanonicalMessage {
  const toolCallId = readString(f, 'tool_use_id', path, { required: true, nonEmpty: true })!;
  const isError = readBoolean(f, 'is_error', path);
  const cp = at(path, 'content');
  let parts: UserContentPart[] | undefined;
  let content = '';
  if (typeof f.content === 'string') content = f.content;
  else if (Array.isArray(f.content)) {
    parts = f.content.map((block, i) => {
      const p = at(cp, i);
      const b = expectFields(block, p);
      const type = readString(b, 'type', p, { required: true })!;
      if (type === 'text') return readText(b, p);
      if (type === 'image') return readImage(b, p);
      if (type === 'document') return readDocument(b, p);
      return unsupportedBlock(type, p, 'text, image or document');
    });
    content = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  } else if (f.content !== undefined && f.content !== null) {
    invalid(cp, 'must be a string or an array of content blocks');
  }
  const cacheControl = readCacheControl(f, path);
  return {
    role: 'tool',
    toolCallId,
    content,
    ...(isError !== undefined ? { isError } : {}),
    ...(parts !== undefined && parts.some((p) => p.type !== 'text' || p.cacheControl !== undefined) ? { parts } : {}),
    ...(cacheControl !== undefined ? { cacheControl } : {}),
  };
}

/** A user turn: its tool results become tool messages, the other blocks user messages, in order. */
/**
 * `calls`: the tool_use ids of the assistant turn before this one. A tool_result must answer one
 * of them, as Anthropic requires; an OpenAI-compatible upstream refuses a tool message without
 * its call too, and a lenient one answered: one 400 in Anthropic's words, whatever the upstream.
 */
function readUserTurn(value: unknown, path: string, calls: ReadonlySet<string>): CanonicalMessage[] {
  if (typeof value === 'string') {
    checkUserText(value, path);
    return [{ role: 'user', content: [{ type: 'text', text: value }] }];
  }
  if (!Array.isArray(value)) invalid(path, 'must be a string or an array of content blocks');
  if (value.length === 0) invalid(path, 'must not be empty');
  const out: CanonicalMessage[] = [];
  let parts: UserContentPart[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: 'user', content: parts });
    parts = [];
  };
  value.forEach((block, i) => {
    const p = at(path, i);
    const f = expectFields(block, p);
    const type = readString(f, 'type', p, { required: true })!;
    if (type === 'text') parts.push(readText(f, p));
    else if (type === 'image') parts.push(readImage(f, p));
    else if (type === 'image_url') parts.push(readImageUrl(f, p));
    else if (type === 'document') parts.push(readDocument(f, p));
    else if (type === 'tool_result') {
      flush();
      const result = readToolResult(f, p);
      if (result.role === 'tool' && !calls.has(result.toolCallId)) {
        invalid(at(p, 'tool_use_id'), `unexpected tool_use_id found in tool_result blocks: ${result.toolCallId}. Each tool_result block must have a corresponding tool_use block in the previous message`);
      }
      out.push(result);
    } else unsupportedBlock(type, p, 'text, image, image_url, document or tool_result');
  });
  flush();
  // A turn of tool results needs nothing beside them; blank text next to them is left out upstream.
  const only = out.length === 1 ? out[0]! : undefined;
  if (only?.role === 'user') checkUserParts(only.content, path);
  return out;
}

/** The upstream's value of a block's sealed `field` (sealed-tokens.ts); a token this service did not give this account is a 400 naming it. */
function readSealed(f: Fields, field: SealedField, path: string, sealer: ReasoningSealer, required: boolean): string | undefined {
  const token = readString(f, field, path, { required });
  if (token === undefined) return undefined;
  const value = openBlockValue(field, token, sealer);
  if (value === null) invalid(at(path, field), 'is not reasoning content this service issued');
  return value;
}

/**
 * `useIds`: the tool_use ids of the request so far. Anthropic refuses a repeated one anywhere in the
 * request (`tool_use ids must be unique`); the service mints its own, so only a history from
 * elsewhere repeats them (docs/api-decisions.md, "Inference: eleventh audit").
 */
function readAssistantTurn(value: unknown, path: string, sealer: ReasoningSealer, useIds: Set<string>): CanonicalMessage {
  if (typeof value === 'string') return { role: 'assistant', content: value, toolCalls: [] };
  if (!Array.isArray(value)) invalid(path, 'must be a string or an array of content blocks');
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningBlock[] = [];
  let cacheControl: CacheControl | undefined;
  value.forEach((block, i) => {
    const p = at(path, i);
    const f = expectFields(block, p);
    const type = readString(f, 'type', p, { required: true })!;
    cacheControl = readCacheControl(f, p) ?? cacheControl;
    switch (type) {
      case 'text':
        text.push(readString(f, 'text', p, { required: true })!);
        break;
      case 'tool_use': {
        const id = readString(f, 'id', p, { required: true, nonEmpty: true })!;
        if (useIds.has(id)) invalid(at(p, 'id'), 'tool_use ids must be unique');
        useIds.add(id);
        const name = readString(f, 'name', p, { required: true, nonEmpty: true })!;
        if (!isFields(f.input)) invalid(at(p, 'input'), 'must be an object');
        toolCalls.push({ id, name, arguments: JSON.stringify(f.input) });
        break;
      }
      case 'thinking': {
        const thinking = readString(f, 'thinking', p, { required: true })!;
        const signature = readSealed(f, 'signature', p, sealer, false);
        reasoning.push(signature === undefined ? { type: 'thinking', thinking } : { type: 'thinking', thinking, signature });
        break;
      }
      case 'redacted_thinking':
        reasoning.push({ type: 'redacted_thinking', data: readSealed(f, 'data', p, sealer, true)! });
        break;
      default:
        unsupportedBlock(type, p, 'text, tool_use, thinking or redacted_thinking');
    }
  });
  return {
    role: 'assistant',
    content: text.join(''),
    toolCalls,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    ...(cacheControl !== undefined ? { cacheControl } : {}),
  };
}

/**
 * A `system` turn in `messages`, as the service's message object allows (roles system, user,
 * assistant): its text, a string or text blocks, is system prompt at that place in the conversation
 * (an Anthropic upstream gets every system text in its `system`, in order).
 */
function readSystemTurn(value: unknown, path: string): CanonicalMessage[] {
  if (typeof value === 'string') return value === '' ? [] : [{ role: 'system', content: value }];
  if (!Array.isArray(value)) invalid(path, 'must be a string or an array of text blocks');
  return value.map((block, i) => {
    const p = at(path, i);
    const f = expectFields(block, p);
    const type = readString(f, 'type', p, { required: true })!;
    if (type !== 'text') unsupportedBlock(type, p, 'text');
    return withCache({ role: 'system' as const, content: readString(f, 'text', p, { required: true })! }, readCacheControl(f, p));
  });
}

function readSystem(value: unknown): CanonicalMessage[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ role: 'system', content: value }];
  if (!Array.isArray(value)) invalid('system', 'must be a string or an array of text blocks');
  return value.map((block, i) => {
    const p = at('system', i);
    const f = expectFields(block, p);
    const type = readString(f, 'type', p, { required: true })!;
    if (type !== 'text') unsupportedBlock(type, p, 'text');
    return withCache({ role: 'system' as const, content: readString(f, 'text', p, { required: true })! }, readCacheControl(f, p));
  });
}

function readTools(body: Fields): ToolDefinition[] {
  const v = body.tools;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) invalid('tools', 'must be an array');
  if (v.length > MAX_TOOLS) invalid('tools', `must have at most ${MAX_TOOLS} items`);
  const seen = new Set<string>();
  return v.map((tool, i) => {
    const p = at('tools', i);
    const f = expectFields(tool, p);
    const type = readString(f, 'type', p);
    if (type === 'function') return readServiceTool(f, p, seen);
    if (type !== undefined && type !== 'custom') {
      const family = SERVER_TOOL_FAMILIES.find(([prefix]) => type.startsWith(prefix));
      if (family) invalid(at(p, 'type'), `server tool ${type} (${family[1]}) is not supported`);
      invalid(at(p, 'type'), `tool type ${type} is not supported; define the tool with name, description and input_schema`);
    }
    const name = readString(f, 'name', p, { required: true })!;
    if (!NAME.test(name)) invalid(at(p, 'name'), 'must be 1-64 letters, digits, underscores or dashes');
    if (seen.has(name)) invalid(at(p, 'name'), `duplicate tool name ${name}`);
    seen.add(name);
    const description = readString(f, 'description', p);
    if (f.input_schema === undefined || f.input_schema === null) invalid(at(p, 'input_schema'), 'is required');
    const parameters = readToolSchema(f.input_schema, at(p, 'input_schema'));
    const cacheControl = readCacheControl(f, p);
    return {
      name,
      ...(description !== undefined ? { description } : {}),
      parameters,
      ...(cacheControl !== undefined ? { cacheControl } : {}),
    };
  });
}

/** The service's tool definition, read as chat completions reads it, with Anthropic's cache_control. */
function readServiceTool(f: Fields, p: string, seen: Set<string>): ToolDefinition {
  const tool = readFunctionTool(f, p, seen);
  const cacheControl = readCacheControl(f, p);
  return cacheControl === undefined ? tool : { ...tool, cacheControl };
}

/** `tool_choice` as a string, the service's form (`auto`, `none`, and `any`/`required`), next to Anthropic's objects. */
const TOOL_CHOICE_NAMES = ['auto', 'none', 'any', 'required'] as const;

/**
 * `tool_choice`. Without tools only `none` (what no tools means) is taken: Anthropic refuses a tool
 * choice without tools (docs/api-decisions.md, "Inference: fourth audit").
 */
function readToolChoice(body: Fields, tools: readonly ToolDefinition[]): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  const v = body.tool_choice;
  if (v === undefined || v === null) return {};
  const withoutTools = () => invalid('tool_choice', 'may only be specified while providing tools');
  if (typeof v === 'string') {
    if (!(TOOL_CHOICE_NAMES as readonly string[]).includes(v)) invalid('tool_choice', `must be one of ${TOOL_CHOICE_NAMES.join(', ')} or an object`);
    if (v === 'none') return { toolChoice: { type: v } };
    if (tools.length === 0) withoutTools();
    return { toolChoice: { type: v === 'auto' ? 'auto' : 'required' } };
  }
  const f = expectFields(v, 'tool_choice');
  const type = readEnum(f, 'type', 'tool_choice', ['auto', 'any', 'tool', 'none'] as const, { required: true })!;
  const disableParallel = readBoolean(f, 'disable_parallel_tool_use', 'tool_choice');
  const parallel = disableParallel !== undefined && type !== 'none' ? { parallelToolCalls: !disableParallel } : {};
  if (type !== 'none' && tools.length === 0) withoutTools();
  switch (type) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, ...parallel };
    case 'none':
      return { toolChoice: { type: 'none' } };
    case 'any':
      return { toolChoice: { type: 'required' }, ...parallel };
    case 'tool': {
      const name = readString(f, 'name', 'tool_choice', { required: true })!;
      if (!tools.some((t) => t.name === name)) invalid('tool_choice.name', `no tool named ${name} in tools`);
      return { toolChoice: { type: 'tool', name }, ...parallel };
    }
  }
}

function readJsonSchemaFormat(value: unknown, path: string): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const f = expectFields(value, path);
  readEnum(f, 'type', path, ['json_schema'] as const, { required: true });
  if (!isFields(f.schema)) invalid(at(path, 'schema'), f.schema === undefined ? 'is required' : 'must be a JSON Schema object');
  return { type: 'json_schema', name: 'response', schema: f.schema };
}

/**
 * Structured output as the Anthropic API takes it: `output_config.format` (current) or the beta
 * `output_format`, both `{type: 'json_schema', schema}`; and `output_config.effort`.
 */
function readOutputConfig(body: Fields): { responseFormat?: ResponseFormat; effort?: 'low' | 'medium' | 'high' } {
  let responseFormat = readJsonSchemaFormat(body.output_format, 'output_format');
  // The service's response format object (`json_schema` with `json_schema.{name, schema}`, or `json_object`).
  const serviceFormat = readResponseFormat(body);
  if (serviceFormat && responseFormat) invalid('response_format', 'give either response_format or output_format');
  responseFormat = serviceFormat ?? responseFormat;
  let effort: 'low' | 'medium' | 'high' | undefined;
  if (body.output_config !== undefined && body.output_config !== null) {
    const oc = expectFields(body.output_config, 'output_config');
    const format = readJsonSchemaFormat(oc.format, 'output_config.format');
    if (format && responseFormat) invalid('output_config.format', serviceFormat ? 'give either output_config.format or response_format' : 'give either output_config.format or output_format');
    responseFormat = format ?? responseFormat;
    const level = readEnum(oc, 'effort', 'output_config', ['low', 'medium', 'high', 'xhigh', 'max'] as const);
    // The canonical scale ends at high.
    effort = level === 'xhigh' || level === 'max' ? 'high' : level;
  }
  return { ...(responseFormat ? { responseFormat } : {}), ...(effort ? { effort } : {}) };
}

/**
 * Thinking: `enabled` with a budget; `adaptive` and `between_tools` leave the budget to the upstream.
 * A budget with another type is refused, as the API refuses it, rather than ignored while the client
 * believes it holds; `display` is checked and not acted on (the thinking text is returned).
 */
function readThinking(body: Fields): { on: boolean; budgetTokens?: number } {
  const v = body.thinking;
  if (v === undefined || v === null) return { on: false };
  const f = expectFields(v, 'thinking');
  const type = readEnum(f, 'type', 'thinking', ['enabled', 'disabled', 'adaptive', 'between_tools'] as const, { required: true });
  if (type !== 'enabled' && f.budget_tokens !== undefined && f.budget_tokens !== null) invalid('thinking.budget_tokens', 'is only taken with type enabled');
  readEnum(f, 'display', 'thinking', ['summarized', 'omitted'] as const);
  if (type === 'disabled') return { on: false };
  if (type !== 'enabled') return { on: true };
  return { on: true, budgetTokens: readInteger(f, 'budget_tokens', 'thinking', { required: true, min: MIN_THINKING_BUDGET })! };
}

/**
 * The request's top-level `cache_control` (the API's automatic caching): a marker on the last
 * block of the request, as the API applies it, unless that block has its own. Applied here so an
 * Anthropic upstream gets the marker it reads, whatever its API version; an OpenAI-compatible
 * upstream ignores markers. Whether it marked a block (it then takes one of the four places).
 */
function markLastBlock(messages: CanonicalMessage[], cacheControl: CacheControl | undefined): boolean {
  const last = messages.at(-1);
  if (cacheControl === undefined || last === undefined) return false;
  if (last.role === 'user') {
    const part = last.content.at(-1);
    if (part === undefined || part.cacheControl !== undefined) return false;
    messages[messages.length - 1] = { ...last, content: [...last.content.slice(0, -1), { ...part, cacheControl }] };
    return true;
  }
  if (last.cacheControl !== undefined) return false;
  messages[messages.length - 1] = { ...last, cacheControl };
  return true;
}

/**
 * A prefill (a final assistant turn) must not end in whitespace, as Anthropic refuses it; checked
 * for every model, whatever upstream serves it (docs/api-decisions.md, "Inference: fourth
 * audit"). Its text is the turn's text blocks joined, as the Anthropic adapter sends them; a turn
 * with a tool call ends in that call, not in text.
 */
function checkPrefill(path: string, assistant: CanonicalMessage | null): void {
  if (assistant === null || assistant.role !== 'assistant' || assistant.toolCalls.length > 0) return;
  if (/\s$/u.test(assistant.content)) invalid(at(path, 'content'), 'final assistant content cannot end with trailing whitespace');
}

const MAX_STOP_SEQUENCES = 4;

/**
 * Parses and validates an Anthropic Messages request into the canonical request. Fields the service
 * does not act on (`service_tier`, `container`, `context_management`, ...) are accepted and
 * ignored; `mcp_servers` is refused, like the server tools, because the service does not run them.
 * Signatures and redacted data of assistant turns are opened with the account's `sealer` (used
 * only when a turn has such a block).
 */
export function parseMessagesRequest(rawBody: unknown, sealer: ReasoningSealer): ParsedMessagesRequest {
  const body = readBody(rawBody);
  const model = readString(body, 'model', '', { nonEmpty: true });
  if (!Array.isArray(body.messages)) invalid('messages', body.messages === undefined ? 'is required' : 'must be an array');
  if (body.messages.length === 0) invalid('messages', 'must not be empty');
  if (Array.isArray(body.mcp_servers) && body.mcp_servers.length > 0) invalid('mcp_servers', 'MCP servers run by the API are not supported');
  const messages: CanonicalMessage[] = readSystem(body.system);
  // The last user or assistant turn: an assistant one is a prefill (system text goes to `system`).
  let final: { readonly path: string; readonly assistant: CanonicalMessage | null } | undefined;
  // Consecutive user turns are one turn to Anthropic, so each answers the last assistant turn.
  let calls: ReadonlySet<string> = new Set();
  // The tool_use ids of the last assistant turn its user turns have not answered yet.
  const unanswered = new Set<string>();
  let callsPath = '';
  const useIds = new Set<string>();
  const checkAnswered = () => {
    if (unanswered.size === 0) return;
    invalid(
      callsPath,
      `tool_use ids were found without tool_result blocks immediately after: ${[...unanswered].join(', ')}. Each tool_use block must have a corresponding tool_result block in the next message`,
    );
  };
  body.messages.forEach((m, i) => {
    const p = at('messages', i);
    const f = expectFields(m, p);
    const role = readEnum(f, 'role', p, ['user', 'assistant', 'system'] as const, { required: true });
    if (role === 'user') {
      const turn = readUserTurn(f.content, at(p, 'content'), calls);
      for (const message of turn) if (message.role === 'tool') unanswered.delete(message.toolCallId);
      messages.push(...turn);
      final = { path: p, assistant: null };
    } else if (role === 'system') messages.push(...readSystemTurn(f.content, at(p, 'content')));
    else {
      checkAnswered();
      const turn = readAssistantTurn(f.content, at(p, 'content'), sealer, useIds);
      calls = new Set(turn.role === 'assistant' ? turn.toolCalls.map((c) => c.id) : []);
      for (const id of calls) unanswered.add(id);
      callsPath = p;
      messages.push(turn);
      final = { path: p, assistant: turn };
    }
  });
  if (final === undefined) invalid('messages', 'must have a user or assistant message');
  // A final assistant turn of calls is a prefill, left to the upstream (docs/api-decisions.md, "Inference: eleventh audit").
  if (final.assistant === null) checkAnswered();
  checkPrefill(final.path, final.assistant);
  const tools = readTools(body);
  const marked = markLastBlock(messages, readCacheControl(body, ''));
  // Counted once every block is read, so a malformed one is named first.
  checkCacheMarkers(body, marked ? 1 : 0);
  const { toolChoice, parallelToolCalls } = readToolChoice(body, tools);
  const { responseFormat, effort } = readOutputConfig(body);
  const maxTokens = readInteger(body, 'max_tokens', '', { min: 1 });
  const thinking = readThinking(body);
  const budgetTokens = thinking.budgetTokens;
  if (budgetTokens !== undefined && maxTokens !== undefined && budgetTokens >= maxTokens) {
    invalid('thinking.budget_tokens', 'must be less than max_tokens');
  }
  const temperature = readNumber(body, 'temperature', '', { min: 0, max: 1 });
  const topP = readNumber(body, 'top_p', '', { min: 0, max: 1 });
  const topK = readInteger(body, 'top_k', '', { min: 0 });
  const stop = body.stop_sequences ?? [];
  if (!Array.isArray(stop) || !stop.every((s): s is string => typeof s === 'string' && s !== '')) {
    invalid('stop_sequences', 'must be an array of non-empty strings');
  }
  // The API refuses a stop sequence of whitespace only; refused here on every model, in its words,
  // so the answer does not depend on the upstream kind that serves the model.
  if (stop.some((s) => s.trim() === '')) invalid('stop_sequences', 'each stop sequence must contain non-whitespace');
  // OpenAI-compatible upstreams take at most four; a model may be served or fall back to one, so
  // the limit is the same on every model (docs/api-decisions.md, "Inference: fourteenth audit").
  if (stop.length > MAX_STOP_SEQUENCES) invalid('stop_sequences', `must have at most ${MAX_STOP_SEQUENCES} items`);
  const stream = readBoolean(body, 'stream', '') ?? false;
  // Accepted and ignored (one tier here), but only with the API's values.
  readEnum(body, 'service_tier', '', ['auto', 'standard_only'] as const);
  let user: string | undefined;
  if (body.metadata !== undefined && body.metadata !== null) user = readString(expectFields(body.metadata, 'metadata'), 'user_id', 'metadata');
  const reasoning = thinking.on || effort !== undefined ? { ...(effort ? { effort } : {}), ...(budgetTokens !== undefined ? { budgetTokens } : {}) } : undefined;
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
    ...(topK !== undefined ? { topK } : {}),
    ...(reasoning ? { reasoning } : {}),
    ...(user !== undefined && user !== '' ? { user } : {}),
  };
  return { model, request };
}

/**
 * Output tokens asked for when the client gave no `max_tokens`: 4,096 (the output the credit hold
 * reserves for a request without a cap, so the hold covers the answer), plus the thinking budget
 * when thinking is on (the upstream wants max_tokens above it), at most the model's max output.
 * A budget the model's max output cannot stay above is refused, as it is against a `max_tokens`
 * the client gives, rather than cut down to leave the answer a token.
 */
export const MESSAGES_DEFAULT_MAX_TOKENS = 4096;

export function messagesMaxTokens(request: CanonicalChatRequest, model: { readonly id: string; readonly maxOutput: number | null }): number {
  if (request.maxTokens !== undefined) return request.maxTokens;
  const budget = request.reasoning?.budgetTokens ?? 0;
  if (model.maxOutput !== null && budget >= model.maxOutput) {
    invalid('thinking.budget_tokens', `must be less than ${model.maxOutput}, the max output of model ${model.id} (max_tokens when it is not given)`);
  }
  const wanted = MESSAGES_DEFAULT_MAX_TOKENS + budget;
  return model.maxOutput === null ? wanted : Math.min(wanted, model.maxOutput);
}
