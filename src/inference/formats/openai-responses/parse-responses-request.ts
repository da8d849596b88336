import { readOpenAIFile } from '../document-input.ts';
import { REASONING_EFFORTS, type JsonObject, type ReasoningEffort, type ResponseFormat, type ToolDefinition } from '../../canonical/chat.ts';
import { readFunctionTool, readToolSchema } from '../openai-chat/parse-chat-completion-request.ts';
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
import { decodeReasoningContent, type ReasoningSealer } from '../reasoning-content.ts';
import { readStreamOptions } from '../stream-options.ts';
import { imageUrlForUpstream } from '../image-data-uri.ts';
import { mentionsJson } from '../json-mode.ts';
import { readMetadata } from '../openai-metadata.ts';
import { checkIncludes } from './include-values.ts';
import { checkUserParts, checkUserText } from '../user-content.ts';
import type {
  AllowedTool,
  ConversationItem,
  CustomToolFormat,
  CustomToolSpec,
  InputFilePart,
  InputImagePart,
  InputTextPart,
  McpApprovalPolicy,
  McpServerSpec,
  MessageItem,
  MessageRole,
  OutputTextPart,
} from './response-items.ts';

/** An input item that names an output item of a stored response by its id (the AI SDK sends these). */
export interface ItemReference {
  readonly type: 'item_reference';
  readonly id: string;
}

export type InputItem = ConversationItem | ItemReference;

export type ResponsesToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'function'; readonly name: string }
  | { readonly type: 'mcp'; readonly serverLabel: string; readonly name: string | null }
  | { readonly type: 'custom'; readonly name: string }
  /** `echo` is the choice as the client sent it, for the response's `tool_choice`. */
  | { readonly type: 'allowed_tools'; readonly mode: 'auto' | 'required'; readonly tools: readonly AllowedTool[]; readonly echo: JsonObject };


export interface ParsedResponsesRequest {
  readonly model: string | undefined;
  readonly input: readonly InputItem[];
  readonly instructions: string | null;
  readonly previousResponseId: string | null;
  readonly store: boolean;
  readonly stream: boolean;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly functionTools: readonly ToolDefinition[];
  /** `custom` (free-form) tools; upstreams get them as function tools (client-tools.ts). */
  readonly customTools: readonly CustomToolSpec[];
  readonly mcpServers: readonly McpServerSpec[];
  /** Every tool as the client sent it, in order, for the response's `tools`. */
  readonly toolsEcho: readonly JsonObject[];
  readonly toolChoice: ResponsesToolChoice;
  readonly parallelToolCalls: boolean;
  readonly responseFormat?: ResponseFormat;
  /** The response's `text` field. */
  readonly textEcho: JsonObject;
  readonly reasoningEffort?: ReasoningEffort;
  /**
   * `reasoning.summary` as asked, or its deprecated name `generate_summary`, echoed (reasoning
   * items carry a summary either way).
   */
  readonly reasoningSummary?: 'auto' | 'concise' | 'detailed';
  /** The client named it `generate_summary`: the echo carries that name too, as OpenAI's does. */
  readonly reasoningSummaryByOldName?: boolean;
  /** `include` has `reasoning.encrypted_content`: reasoning items show their encrypted_content. */
  readonly includeEncryptedReasoning: boolean;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly truncation: 'auto' | 'disabled';
  readonly user?: string;
  /** Echoed only: MCP calls are bounded by the gateway's own round limit, not by this. */
  readonly maxToolCalls?: number;
  /** Echoed only: upstream prompt caching here is automatic. */
  readonly promptCacheKey?: string;
  readonly safetyIdentifier?: string;
  /** Echoed only: output items carry no logprobs here. */
  readonly topLogprobs?: number;
}

const SERVICE_TIERS = ['auto', 'default', 'flex', 'scale', 'priority'] as const;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const LABEL = /^[a-zA-Z0-9_-]{1,64}$/;
const IMAGE_URL = /^(?:https?:\/\/\S+|data:image\/[a-zA-Z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+)$/i;
const SUMMARIES = ['auto', 'concise', 'detailed'] as const;
const MAX_TOOLS = 128;
const MAX_ITEMS = 10_000;
const ROLES: readonly MessageRole[] = ['user', 'assistant', 'system', 'developer'];

function readContent(value: unknown, path: string, role: MessageRole): MessageItem['content'] {
  if (typeof value === 'string') {
    return [role === 'assistant' ? { type: 'output_text', text: value, annotations: [] } : { type: 'input_text', text: value }];
  }
  if (!Array.isArray(value)) invalid(path, 'must be a string or an array of content parts');
  return value.map((part, i): InputTextPart | InputImagePart | InputFilePart | OutputTextPart => {
    const p = at(path, i);
    const f = expectFields(part, p);
    const type = readString(f, 'type', p, { required: true })!;
    switch (type) {
      case 'input_text':
        if (role === 'assistant') return { type: 'output_text', text: readString(f, 'text', p, { required: true })!, annotations: [] };
        return { type: 'input_text', text: readString(f, 'text', p, { required: true })! };
      case 'output_text':
      case 'refusal':
        if (role !== 'assistant') invalid(at(p, 'type'), `"${type}" is only allowed in assistant messages`);
        return { type: 'output_text', text: readString(f, type === 'refusal' ? 'refusal' : 'text', p, { required: true })!, annotations: [] };
      case 'input_image': {
        if (role !== 'user') invalid(at(p, 'type'), 'images are only allowed in user messages');
        if (f.file_id !== undefined && f.file_id !== null) invalid(at(p, 'file_id'), 'file ids are not supported; send image_url');
        const given = readString(f, 'image_url', p, { required: true })!;
        if (!IMAGE_URL.test(given)) invalid(at(p, 'image_url'), 'must be an http(s) URL or a data:image/...;base64 URI');
        const url = imageUrlForUpstream(given, at(p, 'image_url'));
        const detail = readEnum(f, 'detail', p, ['auto', 'low', 'high'] as const) ?? 'auto';
        return { type: 'input_image', image_url: url, detail };
      }
      case 'input_file': {
        if (role !== 'user') invalid(at(p, 'type'), 'files are only allowed in user messages');
        readOpenAIFile(f, p, true);
        const filename = typeof f.filename === 'string' && f.filename !== '' ? { filename: f.filename } : {};
        if (typeof f.file_data === 'string') return { type: 'input_file', file_data: f.file_data, ...filename };
        return { type: 'input_file', file_url: f.file_url as string, ...filename };
      }
      default:
        return invalid(at(p, 'type'), `unsupported content part type "${type}"; expected input_text, input_image or input_file`);
    }
  });
}

function readJsonText(f: Fields, key: string, path: string): string {
  const v = f[key];
  if (typeof v === 'string') return v;
  // Some clients send the arguments or an output as JSON rather than as JSON text.
  if (v !== undefined && v !== null && (isFields(v) || Array.isArray(v))) return JSON.stringify(v);
  return invalid(at(path, key), 'must be a string');
}

/** A tool output: a string, or text parts joined. */
/**
 * A tool output (`function_call_output`, `custom_tool_call_output`): text, or OpenAI's list of
 * text, image and file parts, read as a user message's are (an image as the result of a
 * screenshot tool). Text only stays a string, as it was stored before.
 */
function readToolOutput(f: Fields, path: string): string | (InputTextPart | InputImagePart | InputFilePart)[] {
  const output = f.output;
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return invalid(at(path, 'output'), 'must be a string or an array of input_text, input_image and input_file parts');
  const parts = readContent(output.map((part) => (isFields(part) && (part.type === undefined || part.type === 'text' || part.type === 'output_text') ? { ...part, type: 'input_text' } : part)), at(path, 'output'), 'user');
  if (parts.every((p) => p.type === 'input_text')) return parts.map((p) => p.text).join('');
  return parts as (InputTextPart | InputImagePart | InputFilePart)[];
}

function readItem(value: unknown, path: string, sealer: ReasoningSealer): InputItem {
  const f = expectFields(value, path);
  const type = readString(f, 'type', path) ?? (f.role !== undefined ? 'message' : undefined);
  const id = readString(f, 'id', path);
  const withId = id === undefined ? {} : { id };
  switch (type) {
    case 'message': {
      const role = readEnum(f, 'role', path, ROLES, { required: true })!;
      const content = readContent(f.content, at(path, 'content'), role);
      if (role === 'user') checkUserParts(content, at(path, 'content'));
      return { type: 'message', role, content, ...withId };
    }
    case 'function_call':
      return {
        type: 'function_call',
        call_id: readString(f, 'call_id', path, { required: true, nonEmpty: true })!,
        name: readString(f, 'name', path, { required: true, nonEmpty: true })!,
        arguments: readJsonText(f, 'arguments', path),
        ...withId,
      };
    case 'function_call_output':
    case 'custom_tool_call_output':
      return { type, call_id: readString(f, 'call_id', path, { required: true, nonEmpty: true })!, output: readToolOutput(f, path), ...withId };
    case 'custom_tool_call':
      return {
        type: 'custom_tool_call',
        call_id: readString(f, 'call_id', path, { required: true, nonEmpty: true })!,
        name: readString(f, 'name', path, { required: true, nonEmpty: true })!,
        input: readString(f, 'input', path, { required: true })!,
        ...withId,
      };
    case 'mcp_approval_response':
      return {
        type: 'mcp_approval_response',
        approval_request_id: readString(f, 'approval_request_id', path, { required: true, nonEmpty: true })!,
        approve: readBoolean(f, 'approve', path) ?? invalid(at(path, 'approve'), 'is required'),
        reason: readString(f, 'reason', path) ?? null,
        ...withId,
      };
    case 'item_reference':
      return { type: 'item_reference', id: readString(f, 'id', path, { required: true, nonEmpty: true })! };
    case 'reasoning': {
      // encrypted_content carries the upstream's reasoning blocks back, sealed (reasoning-content.ts):
      // one the service did not issue to this account is a 400, as OpenAI refuses content it cannot decrypt.
      const encrypted = readString(f, 'encrypted_content', path) ?? null;
      if (encrypted !== null && decodeReasoningContent(encrypted, sealer) === null) invalid(at(path, 'encrypted_content'), 'is not reasoning content this service issued');
      return {
        type: 'reasoning',
        id: id ?? '',
        summary: [],
        ...(Array.isArray(f.content) ? { content: f.content.filter(isFields).map((c) => ({ type: 'reasoning_text' as const, text: String(c.text ?? '') })) } : {}),
        ...(encrypted !== null ? { encrypted_content: encrypted } : {}),
      };
    }
    case 'mcp_list_tools':
    case 'mcp_call':
    case 'mcp_approval_request':
      // Output items sent back as they came; kept as given (the conversation reads their fields).
      readString(f, 'server_label', path, { required: true });
      return { ...(f as object), type } as ConversationItem;
    case undefined:
      return invalid(at(path, 'type'), 'is required');
    default:
      return invalid(
        at(path, 'type'),
        `unsupported item type "${type}"; expected message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, mcp_approval_response or item_reference`,
      );
  }
}

function readInput(body: Fields, sealer: ReasoningSealer): InputItem[] {
  const v = body.input;
  if (v === undefined || v === null) invalid('input', 'is required');
  // Nothing to answer is refused as on the other endpoints (docs/api-decisions.md), not sent upstream.
  if ((typeof v === 'string' || Array.isArray(v)) && v.length === 0) invalid('input', 'must not be empty');
  if (typeof v === 'string') {
    checkUserText(v, 'input');
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: v }] }];
  }
  if (!Array.isArray(v)) invalid('input', 'must be a string or an array of items');
  if (v.length > MAX_ITEMS) invalid('input', `must have at most ${MAX_ITEMS} items`);
  return v.map((item, i) => readItem(item, at('input', i), sealer));
}

/** The text of the request's messages and its instructions. */
function* requestTexts(input: readonly InputItem[], instructions: string | null): Iterable<string> {
  if (instructions !== null) yield instructions;
  for (const item of input) {
    if (item.type !== 'message') continue;
    for (const part of item.content) if (part.type === 'input_text' || part.type === 'output_text') yield part.text;
  }
}

/**
 * OpenAI's JSON-mode rule (json-mode.ts), in its words but naming `input`. The instructions count
 * too: every upstream gets them as a system message, where the word serves. A request that
 * continues a stored response or names stored items is not checked: its conversation is not all here.
 */
function checkJsonMode(input: readonly InputItem[], instructions: string | null, continues: boolean): void {
  if (continues || input.some((item) => item.type === 'item_reference') || mentionsJson(requestTexts(input, instructions))) return;
  invalid('input', "must contain the word 'json' in some form (or instructions must), to use 'text.format' of type 'json_object'");
}

const isInstruction = (item: InputItem): boolean => item.type === 'message' && (item.role === 'system' || item.role === 'developer');

function readNames(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || !value.every((s): s is string => typeof s === 'string')) invalid(path, 'must be an array of tool names');
  return value;
}

/** `allowed_tools`: an array of names or `{tool_names}`. */
function readAllowed(f: Fields, path: string): string[] | null {
  const v = f.allowed_tools;
  const p = at(path, 'allowed_tools');
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return readNames(v, p);
  const o = expectFields(v, p);
  return o.tool_names === undefined ? null : readNames(o.tool_names, at(p, 'tool_names'));
}

/** `require_approval`: `always`, `never`, or `{always: {tool_names}, never: {tool_names}}` (OpenAI's default is always). */
function readApproval(f: Fields, path: string): McpApprovalPolicy {
  const v = f.require_approval;
  const p = at(path, 'require_approval');
  if (v === undefined || v === null) return { default: 'always', always: [], never: [] };
  if (v === 'always' || v === 'never') return { default: v, always: [], never: [] };
  if (typeof v === 'string') invalid(p, 'must be always, never or an object');
  const o = expectFields(v, p);
  const names = (k: 'always' | 'never') => {
    if (o[k] === undefined || o[k] === null) return [];
    const g = expectFields(o[k], at(p, k));
    return g.tool_names === undefined ? [] : readNames(g.tool_names, at(at(p, k), 'tool_names'));
  };
  return { default: 'always', always: names('always'), never: names('never') };
}

/** A custom tool's `format`: `{type: "text"}` (the default) or `{type: "grammar", syntax, definition}`. */
function readCustomFormat(f: Fields, path: string): CustomToolFormat {
  if (f.format === undefined || f.format === null) return { type: 'text' };
  const p = at(path, 'format');
  const g = expectFields(f.format, p);
  const type = readEnum(g, 'type', p, ['text', 'grammar'] as const, { required: true })!;
  if (type === 'text') return { type: 'text' };
  const syntax = readEnum(g, 'syntax', p, ['lark', 'regex'] as const, { required: true })!;
  const definition = readString(g, 'definition', p, { required: true, nonEmpty: true })!;
  return { type: 'grammar', syntax, definition };
}

function readTools(body: Fields): { functions: ToolDefinition[]; customs: CustomToolSpec[]; mcp: McpServerSpec[]; echo: JsonObject[] } {
  const functions: ToolDefinition[] = [];
  const customs: CustomToolSpec[] = [];
  const mcp: McpServerSpec[] = [];
  const echo: JsonObject[] = [];
  const v = body.tools;
  if (v === undefined || v === null) return { functions, customs, mcp, echo };
  if (!Array.isArray(v)) invalid('tools', 'must be an array');
  if (v.length > MAX_TOOLS) invalid('tools', `must have at most ${MAX_TOOLS} tools`);
  v.forEach((tool, i) => {
    const p = at('tools', i);
    const f = expectFields(tool, p);
    const type = readString(f, 'type', p, { required: true })!;
    if (type === 'function' && f.name === undefined && f.function !== undefined) {
      // The service's one tool definition, chat completions' nested form (docs/api-decisions.md).
      const t = readFunctionTool(f, p, new Set([...functions, ...customs].map((d) => d.name)));
      functions.push(t);
      echo.push({ type: 'function', name: t.name, description: t.description ?? null, parameters: t.parameters, strict: true });
      return;
    }
    if (type === 'function') {
      const name = readString(f, 'name', p, { required: true })!;
      if (!NAME.test(name)) invalid(at(p, 'name'), 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
      if (functions.some((t) => t.name === name)) invalid(at(p, 'name'), `duplicate function name "${name}"`);
      // Upstreams know custom tools as functions: one name for one tool.
      if (customs.some((t) => t.name === name)) invalid(at(p, 'name'), `duplicate tool name "${name}"`);
      const parameters = readToolSchema(f.parameters, at(p, 'parameters'));
      const description = readString(f, 'description', p);
      const strict = readBoolean(f, 'strict', p);
      functions.push({ name, parameters, ...(description === undefined ? {} : { description }) });
      echo.push({ type: 'function', name, description: description ?? null, parameters, strict: strict ?? true });
      return;
    }
    if (type === 'custom') {
      const name = readString(f, 'name', p, { required: true })!;
      if (!NAME.test(name)) invalid(at(p, 'name'), 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
      if (functions.some((t) => t.name === name) || customs.some((t) => t.name === name)) invalid(at(p, 'name'), `duplicate tool name "${name}"`);
      const description = readString(f, 'description', p);
      const format = readCustomFormat(f, p);
      customs.push({ name, format, ...(description === undefined ? {} : { description }) });
      echo.push({ type: 'custom', name, ...(description === undefined ? {} : { description }), format });
      return;
    }
    if (type === 'mcp') {
      const label = readString(f, 'server_label', p, { required: true })!;
      if (!LABEL.test(label)) invalid(at(p, 'server_label'), 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
      if (mcp.some((s) => s.server_label === label)) invalid(at(p, 'server_label'), `duplicate server_label "${label}"`);
      if (f.connector_id !== undefined && f.connector_id !== null) invalid(at(p, 'connector_id'), 'connectors are not supported; give server_url');
      const url = readString(f, 'server_url', p, { required: true })!;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return invalid(at(p, 'server_url'), 'must be an http(s) URL');
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') invalid(at(p, 'server_url'), 'must be an http(s) URL');
      const headers: Record<string, string> = {};
      if (f.headers !== undefined && f.headers !== null) {
        for (const [k, hv] of Object.entries(expectFields(f.headers, at(p, 'headers')))) {
          if (typeof hv !== 'string') invalid(at(at(p, 'headers'), k), 'must be a string');
          headers[k] = hv;
        }
      }
      const allowed = readAllowed(f, p);
      const approval = readApproval(f, p);
      const description = readString(f, 'server_description', p);
      mcp.push({ server_label: label, server_url: url, headers, allowed_tools: allowed, require_approval: approval });
      // The echo leaves the headers out: they usually carry the caller's credentials for the server.
      echo.push({
        type: 'mcp',
        server_label: label,
        server_url: url,
        allowed_tools: allowed,
        require_approval: f.require_approval ?? 'always',
        ...(description === undefined ? {} : { server_description: description }),
      });
      return;
    }
    invalid(at(p, 'type'), `unsupported tool type "${type}"; expected function, custom or mcp`);
  });
  return { functions, customs, mcp, echo };
}

/** The tools of a request that `tool_choice` can name. */
interface Declared {
  readonly functions: readonly ToolDefinition[];
  readonly customs: readonly CustomToolSpec[];
  readonly mcp: readonly McpServerSpec[];
}

/**
 * `tool_choice`. Without tools, `required` is a 400 as OpenAI answers it (`auto`, the default,
 * and `none` mean what no tools means, and OpenAI takes them); a named tool must be in `tools`
 * (docs/api-decisions.md, "Inference: fourth audit"), and so must every tool `allowed_tools` lists
 * ("Responses: allowed tools and custom tools").
 */
function readToolChoice(body: Fields, d: Declared): ResponsesToolChoice {
  const v = body.tool_choice;
  if (v === undefined || v === null) return { type: 'auto' };
  if (v === 'required' && d.functions.length === 0 && d.customs.length === 0 && d.mcp.length === 0) {
    invalid('tool_choice', 'required is only allowed when tools are specified');
  }
  if (v === 'auto' || v === 'none' || v === 'required') return { type: v };
  if (typeof v === 'string') invalid('tool_choice', 'must be none, auto, required or an object');
  const f = expectFields(v, 'tool_choice');
  const type = readString(f, 'type', 'tool_choice', { required: true });
  if (type === 'function' || type === 'custom') {
    return { type, name: readNamedTool(f, 'tool_choice', type, d) };
  }
  if (type === 'mcp') {
    const label = readMcpLabel(f, 'tool_choice', d);
    return { type: 'mcp', serverLabel: label, name: readString(f, 'name', 'tool_choice') ?? null };
  }
  if (type === 'allowed_tools') return readAllowedTools(f, d);
  return invalid('tool_choice.type', 'must be function, custom, mcp or allowed_tools');
}

/** The name of a function or custom tool a choice names; it must be a tool of that type in `tools`. */
function readNamedTool(f: Fields, path: string, type: 'function' | 'custom', d: Declared): string {
  // Chat completions' nested form `{type: "function", function: {name}}` is taken too.
  const nested = type === 'function' && f.name === undefined && isFields(f.function) ? f.function : null;
  const name = nested ? readString(nested, 'name', at(path, 'function'), { required: true })! : readString(f, 'name', path, { required: true })!;
  const known = type === 'function' ? d.functions.some((t) => t.name === name) : d.customs.some((t) => t.name === name);
  if (!known) invalid(at(nested ? at(path, 'function') : path, 'name'), `no ${type === 'function' ? 'function' : 'custom tool'} named "${name}" in tools`);
  return name;
}

function readMcpLabel(f: Fields, path: string, d: Declared): string {
  const label = readString(f, 'server_label', path, { required: true })!;
  if (!d.mcp.some((s) => s.server_label === label)) invalid(at(path, 'server_label'), `no mcp tool with server_label "${label}" in tools`);
  return label;
}

/**
 * `{type: "allowed_tools", mode: "auto" | "required", tools: [{type: "function", name}, {type:
 * "custom", name}, {type: "mcp", server_label, name?}]}`: the model may call only these tools.
 */
function readAllowedTools(f: Fields, d: Declared): ResponsesToolChoice {
  const mode = readEnum(f, 'mode', 'tool_choice', ['auto', 'required'] as const, { required: true })!;
  const list = f.tools;
  if (!Array.isArray(list)) return invalid('tool_choice.tools', list === undefined || list === null ? 'is required' : 'must be an array of tools');
  if (list.length === 0) invalid('tool_choice.tools', 'must not be empty');
  if (list.length > MAX_TOOLS) invalid('tool_choice.tools', `must have at most ${MAX_TOOLS} tools`);
  const tools = list.map((entry, i): AllowedTool => {
    const p = at('tool_choice.tools', i);
    const e = expectFields(entry, p);
    const type = readString(e, 'type', p, { required: true })!;
    if (type === 'function' || type === 'custom') return { kind: type, name: readNamedTool(e, p, type, d) };
    if (type === 'mcp') return { kind: 'mcp', serverLabel: readMcpLabel(e, p, d), name: readString(e, 'name', p) ?? null };
    return invalid(at(p, 'type'), `unsupported tool type "${type}"; expected function, custom or mcp`);
  });
  return { type: 'allowed_tools', mode, tools, echo: { type: 'allowed_tools', mode, tools: list as JsonObject[] } };
}

function readTextFormat(body: Fields): { format?: ResponseFormat; echo: JsonObject } {
  if (body.text === undefined || body.text === null) return { echo: { format: { type: 'text' } } };
  const text = expectFields(body.text, 'text');
  // Read only to refuse a value OpenAI does not define: no upstream here takes it, and it is not
  // echoed (docs/api-decisions.md, "Responses: seventeenth audit").
  readEnum(text, 'verbosity', 'text', ['low', 'medium', 'high'] as const);
  if (text.format === undefined || text.format === null) return { echo: { format: { type: 'text' } } };
  const f = expectFields(text.format, 'text.format');
  const type = readEnum(f, 'type', 'text.format', ['text', 'json_object', 'json_schema'] as const, { required: true });
  if (type === 'text') return { echo: { format: { type: 'text' } } };
  if (type === 'json_object') return { format: { type: 'json_object' }, echo: { format: { type: 'json_object' } } };
  const name = readString(f, 'name', 'text.format', { required: true })!;
  if (!NAME.test(name)) invalid('text.format.name', 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
  const schema = expectFields(f.schema, 'text.format.schema');
  const description = readString(f, 'description', 'text.format');
  const strict = readBoolean(f, 'strict', 'text.format');
  return {
    format: { type: 'json_schema', name, schema, ...(description === undefined ? {} : { description }), ...(strict === undefined ? {} : { strict }) },
    echo: { format: { type: 'json_schema', name, schema, description: description ?? null, strict: strict ?? null } },
  };
}

/** The least `max_output_tokens` OpenAI's Responses API takes. */
export const MIN_OUTPUT_TOKENS = 16;

/**
 * Parses a `POST /v1/responses` body. Every refusal is a 400 naming the field. Fields OpenAI
 * defines that change nothing here (`include` values other than `reasoning.encrypted_content`,
 * `service_tier`, `prompt_cache_key`, `max_tool_calls`, `top_logprobs`, ...) are checked, echoed
 * and otherwise ignored; `background`, `conversation`
 * and `prompt` are refused (not supported). `sealer` opens the `encrypted_content` of reasoning
 * items sent back (the account's: reasoning-content.ts).
 */
export function parseResponsesRequest(raw: unknown, sealer: ReasoningSealer): ParsedResponsesRequest {
  const body = readBody(raw);
  // Optional: a request that names no model is served by the catalog's default (routing/chat-model-id.ts).
  const model = readString(body, 'model', '', { nonEmpty: true });
  for (const unsupported of ['background', 'conversation', 'prompt'] as const) {
    const v = body[unsupported];
    if (v !== undefined && v !== null && v !== false) invalid(unsupported, 'is not supported');
  }
  const input = readInput(body, sealer);
  const instructions = readString(body, 'instructions', '') ?? null;
  const previousResponseId = readString(body, 'previous_response_id', '', { nonEmpty: true }) ?? null;
  // System text alone is no conversation (as on chat completions and messages), unless it continues one.
  if (previousResponseId === null && input.every(isInstruction)) {
    invalid('input', 'must have a user or assistant message');
  }
  const { functions, customs, mcp, echo } = readTools(body);
  const toolChoice = readToolChoice(body, { functions, customs, mcp });
  const text = readTextFormat(body);
  if (text.format?.type === 'json_object') checkJsonMode(input, instructions, previousResponseId !== null);
  let reasoningEffort: ReasoningEffort | undefined;
  let reasoningSummary: ParsedResponsesRequest['reasoningSummary'];
  let reasoningSummaryByOldName = false;
  if (body.reasoning !== undefined && body.reasoning !== null) {
    const r = expectFields(body.reasoning, 'reasoning');
    reasoningEffort = readEnum(r, 'effort', 'reasoning', REASONING_EFFORTS);
    reasoningSummary = readEnum(r, 'summary', 'reasoning', SUMMARIES);
    // OpenAI's deprecated name of summary, still in the SDK's types: the same setting.
    const oldName = readEnum(r, 'generate_summary', 'reasoning', SUMMARIES);
    if (oldName !== undefined && reasoningSummary !== undefined && oldName !== reasoningSummary) {
      invalid('reasoning.generate_summary', 'is the deprecated name of reasoning.summary and must not differ from it; send reasoning.summary alone');
    }
    if (oldName !== undefined) {
      reasoningSummary = oldName;
      reasoningSummaryByOldName = true;
    }
  }
  if (body.include !== undefined && body.include !== null && !Array.isArray(body.include)) invalid('include', 'must be an array');
  const includeEncryptedReasoning = Array.isArray(body.include) && checkIncludes(body.include).includes('reasoning.encrypted_content');
  // OpenAI's minimum (docs/api-decisions.md, "Inference: fourth audit").
  const maxOutputTokens = readInteger(body, 'max_output_tokens', '', { min: MIN_OUTPUT_TOKENS });
  const temperature = readNumber(body, 'temperature', '', { min: 0, max: 2 });
  const topP = readNumber(body, 'top_p', '', { min: 0, max: 1 });
  const safetyIdentifier = readString(body, 'safety_identifier', '');
  const user = readString(body, 'user', '') ?? safetyIdentifier;
  const maxToolCalls = readInteger(body, 'max_tool_calls', '', { min: 1 });
  const promptCacheKey = readString(body, 'prompt_cache_key', '');
  const topLogprobs = readInteger(body, 'top_logprobs', '', { min: 0, max: 20 });
  // Read only to refuse a tier OpenAI does not define; every request is served at the default tier.
  readEnum(body, 'service_tier', '', SERVICE_TIERS);
  const stream = readBoolean(body, 'stream', '') ?? false;
  // `include_obfuscation` only pads deltas against side channels; the answer is the same without it.
  const streamOptions = readStreamOptions(body, stream);
  if (streamOptions !== undefined) readBoolean(streamOptions, 'include_obfuscation', 'stream_options');
  return {
    model,
    input,
    instructions,
    previousResponseId,
    store: readBoolean(body, 'store', '') ?? true,
    stream,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    functionTools: functions,
    customTools: customs,
    mcpServers: mcp,
    toolsEcho: echo,
    toolChoice,
    parallelToolCalls: readBoolean(body, 'parallel_tool_calls', '') ?? true,
    ...(text.format === undefined ? {} : { responseFormat: text.format }),
    textEcho: text.echo,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(reasoningSummary === undefined ? {} : { reasoningSummary }),
    ...(reasoningSummaryByOldName ? { reasoningSummaryByOldName } : {}),
    includeEncryptedReasoning,
    metadata: readMetadata(body),
    truncation: readEnum(body, 'truncation', '', ['auto', 'disabled'] as const) ?? 'disabled',
    ...(user === undefined ? {} : { user }),
    ...(safetyIdentifier === undefined ? {} : { safetyIdentifier }),
    ...(maxToolCalls === undefined ? {} : { maxToolCalls }),
    ...(promptCacheKey === undefined ? {} : { promptCacheKey }),
    ...(topLogprobs === undefined ? {} : { topLogprobs }),
  };
}
