import type { JsonObject } from '../../canonical/chat.ts';

/**
 * The items of the OpenAI Responses API as the service stores and answers them. Input items are
 * kept in the normalized shapes below (a string input becomes one user message), output items
 * exactly as the client receives them, so a stored conversation replays without conversion.
 */

export interface InputTextPart {
  readonly type: 'input_text';
  readonly text: string;
}

export interface InputImagePart {
  readonly type: 'input_image';
  readonly image_url: string;
  readonly detail: 'auto' | 'low' | 'high';
}

/**
 * A file as input: `file_data` a data URI (PDF or plain text), or `file_url` an http(s) URL of a
 * PDF the upstream fetches. Stored as the client gave it, so a stored conversation replays it.
 */
export interface InputFilePart {
  readonly type: 'input_file';
  readonly file_data?: string;
  readonly file_url?: string;
  readonly filename?: string;
}

export interface OutputTextPart {
  readonly type: 'output_text';
  readonly text: string;
  readonly annotations: readonly unknown[];
  readonly logprobs?: readonly unknown[];
}

/** A model's refusal, a part of an assistant message of its own (OpenAI's `refusal` content). */
export interface RefusalPart {
  readonly type: 'refusal';
  readonly refusal: string;
}

export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';

export interface MessageItem {
  readonly type: 'message';
  readonly id?: string;
  readonly role: MessageRole;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
  readonly content: readonly (InputTextPart | InputImagePart | InputFilePart | OutputTextPart | RefusalPart)[];
}

export interface FunctionCallItem {
  readonly type: 'function_call';
  readonly id?: string;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface FunctionCallOutputItem {
  readonly type: 'function_call_output';
  readonly id?: string;
  readonly call_id: string;
  /** Text, or OpenAI's output list of text, image and file parts (a screenshot tool's result). */
  readonly output: string | readonly (InputTextPart | InputImagePart | InputFilePart)[];
}

/** A call of a `custom` (free-form) tool: `input` is the model's text as it is, not JSON. */
export interface CustomToolCallItem {
  readonly type: 'custom_tool_call';
  readonly id?: string;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
  readonly call_id: string;
  readonly name: string;
  readonly input: string;
}

export interface CustomToolCallOutputItem {
  readonly type: 'custom_tool_call_output';
  readonly id?: string;
  readonly call_id: string;
  /** As a function call's output: text, or text, image and file parts. */
  readonly output: FunctionCallOutputItem['output'];
}

export interface ReasoningItem {
  readonly type: 'reasoning';
  readonly id: string;
  readonly summary: readonly { readonly type: 'summary_text'; readonly text: string }[];
  readonly content?: readonly { readonly type: 'reasoning_text'; readonly text: string }[];
  /**
   * The upstream's reasoning blocks that must go back to it, sealed (formats/reasoning-content.ts).
   * Stored items always keep it; answers show it only to a request with
   * `include: ["reasoning.encrypted_content"]`.
   */
  readonly encrypted_content?: string | null;
}

export interface McpToolListing {
  readonly name: string;
  readonly description: string | null;
  readonly input_schema: JsonObject;
  readonly annotations: JsonObject | null;
}

export interface McpListToolsItem {
  readonly type: 'mcp_list_tools';
  readonly id: string;
  readonly server_label: string;
  readonly tools: readonly McpToolListing[];
  readonly error: string | null;
}

export interface McpCallItem {
  readonly type: 'mcp_call';
  readonly id: string;
  readonly status: 'in_progress' | 'completed' | 'failed';
  readonly server_label: string;
  readonly name: string;
  readonly arguments: string;
  readonly output: string | null;
  readonly error: string | null;
  readonly approval_request_id: string | null;
}

export interface McpApprovalRequestItem {
  readonly type: 'mcp_approval_request';
  readonly id: string;
  readonly server_label: string;
  readonly name: string;
  readonly arguments: string;
}

export interface McpApprovalResponseItem {
  readonly type: 'mcp_approval_response';
  readonly id?: string;
  readonly approval_request_id: string;
  readonly approve: boolean;
  readonly reason: string | null;
}

export type OutputItem = MessageItem | FunctionCallItem | CustomToolCallItem | ReasoningItem | McpListToolsItem | McpCallItem | McpApprovalRequestItem;

/** What a conversation is made of: what clients send, and every output item sent back in. */
export type ConversationItem = OutputItem | FunctionCallOutputItem | CustomToolCallOutputItem | McpApprovalResponseItem;

/** A `custom` tool's input format: free text, or text meant to match a Lark or regex grammar. */
export type CustomToolFormat =
  | { readonly type: 'text' }
  | { readonly type: 'grammar'; readonly syntax: 'lark' | 'regex'; readonly definition: string };

/** A `custom` (free-form) tool of a request. */
export interface CustomToolSpec {
  readonly name: string;
  readonly description?: string;
  readonly format: CustomToolFormat;
}

/** `require_approval` resolved per tool. */
export interface McpApprovalPolicy {
  readonly default: 'always' | 'never';
  readonly always: readonly string[];
  readonly never: readonly string[];
}

/** An `mcp` tool of a request. */
export interface McpServerSpec {
  readonly server_label: string;
  readonly server_url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** null: every tool of the server. */
  readonly allowed_tools: readonly string[] | null;
  readonly require_approval: McpApprovalPolicy;
}

export function needsApproval(spec: McpServerSpec, tool: string): boolean {
  if (spec.require_approval.never.includes(tool)) return false;
  if (spec.require_approval.always.includes(tool)) return true;
  return spec.require_approval.default === 'always';
}

/** A tool `tool_choice: {type: "allowed_tools"}` lets the model call (an MCP entry without a name: all of the server's tools). */
export type AllowedTool =
  | { readonly kind: 'function' | 'custom'; readonly name: string }
  | { readonly kind: 'mcp'; readonly serverLabel: string; readonly name: string | null };
