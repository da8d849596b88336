import type { Usage } from './usage.ts';

/** A JSON Schema or any other JSON object passed through untouched. */
export type JsonObject = { readonly [key: string]: unknown };

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image given by an http(s) URL or a `data:image/...;base64,` URI. */
export interface ImagePart {
  readonly type: 'image';
  readonly url: string;
  readonly detail?: 'auto' | 'low' | 'high';
}

export type UserContentPart = TextPart | ImagePart;

export interface ToolCall {
  /** Issued by the service (`call_...`), never an upstream id. */
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, as the model produced them. */
  readonly arguments: string;
}

export type CanonicalMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: readonly UserContentPart[] }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly parameters: JsonObject;
}

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

export type ResponseFormat =
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema';
      readonly name: string;
      readonly schema: JsonObject;
      readonly description?: string;
      readonly strict?: boolean;
    };

/**
 * The one internal chat request every client format parses into and every upstream adapter reads.
 * Whether the answer streams is decided by the call (`chat` or `chatStream`), not by `stream`,
 * which only records what the client asked for.
 */
export interface CanonicalChatRequest {
  readonly messages: readonly CanonicalMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly responseFormat?: ResponseFormat;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop: readonly string[];
  readonly stream: boolean;
  /** The client's end-user id, forwarded to upstreams for abuse tracking. */
  readonly user?: string;
  readonly reasoning?: { readonly effort?: 'minimal' | 'low' | 'medium' | 'high'; readonly budgetTokens?: number };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface CanonicalChatResponse {
  readonly text: string;
  /** Reasoning text the upstream exposed (Anthropic thinking); formats may drop it. */
  readonly reasoning: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  /** True when the upstream reported no usage and the counts were estimated with a tokenizer. */
  readonly usageEstimated: boolean;
}

/**
 * One piece of a streamed answer. Tool calls are numbered by `index` in the order they start
 * (0, 1, ...); their arguments arrive as JSON text fragments. A stream ends with exactly one
 * `finish` and then one `usage` part.
 */
export type StreamPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: 'finish'; readonly reason: FinishReason }
  | { readonly type: 'usage'; readonly usage: Usage; readonly estimated: boolean };
