import type { Usage } from './usage.ts';

/** A JSON Schema or any other JSON object passed through untouched. */
export type JsonObject = { readonly [key: string]: unknown };

/**
 * A client's prompt-cache marker (Anthropic `cache_control`), carried unread through canonical so
 * that an Anthropic upstream gets it back unchanged; other upstreams ignore it.
 */
export type CacheControl = JsonObject;

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  readonly cacheControl?: CacheControl;
}

/** An image given by an http(s) URL or a `data:image/...;base64,` URI. */
export interface ImagePart {
  readonly type: 'image';
  readonly url: string;
  readonly detail?: 'auto' | 'low' | 'high';
  readonly cacheControl?: CacheControl;
}

/**
 * Where a document's content is: a PDF's bytes (base64, no whitespace), plain text, text chunks
 * (Anthropic's `content` source: each chunk citable on its own), or an http(s) URL of a PDF that
 * the upstream fetches (the service never fetches it).
 */
export type DocumentSource =
  | { readonly type: 'pdf'; readonly data: string }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'content'; readonly texts: readonly string[] }
  | { readonly type: 'url'; readonly url: string };

/**
 * A file given as input (Anthropic `document`, responses `input_file`, chat `file`). `title` is
 * Anthropic's title or OpenAI's filename; `context` and `citations` are Anthropic's, carried for an
 * Anthropic upstream only (docs/api-decisions.md, "Documents and files as input").
 */
export interface DocumentPart {
  readonly type: 'document';
  readonly source: DocumentSource;
  readonly title?: string;
  readonly context?: string;
  readonly citations?: JsonObject;
  readonly cacheControl?: CacheControl;
}

export type UserContentPart = TextPart | ImagePart | DocumentPart;

export interface ToolCall {
  /** Issued by the service (`call_...`), never an upstream id. */
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, as the model produced them. */
  readonly arguments: string;
}

/**
 * Reasoning an assistant turn carried, as a client sends it back in history (an Anthropic client's
 * thinking blocks, a responses client's reasoning item with its encrypted_content, a chat client's
 * reasoning_details; the last two sealed, formats/reasoning-content.ts): thinking text
 * with its signature (opaque, verified by the upstream that issued it), or a redacted block's
 * encrypted data. Only an Anthropic upstream can use them; other upstreams, and deployments
 * without reasoning, do not get them.
 */
export type ReasoningBlock =
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
  | { readonly type: 'redacted_thinking'; readonly data: string };

export type CanonicalMessage =
  | { readonly role: 'system'; readonly content: string; readonly cacheControl?: CacheControl }
  | { readonly role: 'user'; readonly content: readonly UserContentPart[] }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly toolCalls: readonly ToolCall[];
      /** Reasoning blocks of this turn, sent before its text and tool calls. */
      readonly reasoning?: readonly ReasoningBlock[];
      readonly cacheControl?: CacheControl;
    }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      /** The result as text (image and document parts of `parts` left out). */
      readonly content: string;
      /** The tool reported a failure (Anthropic `is_error`). */
      readonly isError?: boolean;
      /** The result as blocks when the client gave blocks (text, images and documents). */
      readonly parts?: readonly UserContentPart[];
      readonly cacheControl?: CacheControl;
    };

export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly parameters: JsonObject;
  readonly cacheControl?: CacheControl;
}

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

/** The OpenAI reasoning efforts, `none` (no reasoning) to `xhigh`. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

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
  /** Sample only from the k most likely tokens (Anthropic; OpenAI-compatible servers that take it). */
  readonly topK?: number;
  /**
   * Reasoning the client asked for, from every client format (chat `reasoning_effort`, responses
   * `reasoning.effort`, messages `thinking` and `output_config.effort`): an effort, a thinking
   * budget in tokens, or both. Effort `none` asks for no reasoning. Each upstream adapter turns it
   * into its own parameter (docs/api-decisions.md, "Reasoning").
   */
  readonly reasoning?: { readonly effort?: ReasoningEffort; readonly budgetTokens?: number };
  readonly stop: readonly string[];
  readonly stream: boolean;
  /** The client's end-user id, forwarded to upstreams for abuse tracking. */
  readonly user?: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * A piece of an answer's text as the upstream's own block, with the citations it has (Anthropic
 * cites documents by splitting its text into blocks, the cited ones carrying `citations`). The
 * citations are the upstream's objects, passed on unread.
 */
export interface CitedTextBlock {
  readonly text: string;
  readonly citations?: readonly JsonObject[];
}

/**
 * What the upstream said about why an answer stopped beyond the finish reason: the stop sequence
 * that ended it (when the upstream says which), and whether a `length` finish was the model's
 * context window rather than `max_tokens` (Anthropic's `model_context_window_exceeded`). The
 * Messages API tells its clients both; the OpenAI protocols have no field for either.
 */
export interface FinishDetail {
  readonly stopSequence?: string;
  readonly contextWindowExceeded?: true;
}

/** The detail's fields that are set, to spread into a response or a finish part. */
export function finishDetail(d: FinishDetail): FinishDetail {
  return {
    ...(d.stopSequence !== undefined ? { stopSequence: d.stopSequence } : {}),
    ...(d.contextWindowExceeded === true ? { contextWindowExceeded: true as const } : {}),
  };
}

export interface CanonicalChatResponse extends FinishDetail {
  readonly text: string;
  /** Reasoning text the upstream exposed (Anthropic thinking, OpenAI-compatible reasoning_content). */
  readonly reasoning: string;
  readonly toolCalls: readonly ToolCall[];
  /**
   * How much of `text` the model had written before each tool call, set only when some text came
   * after a call (an Anthropic answer's blocks: text, tool_use, text), so that a protocol whose
   * items keep the model's order (responses) can put that text after the call, as a stream does.
   */
  readonly textBeforeCalls?: readonly number[];
  readonly finishReason: FinishReason;
  /**
   * The model's refusal (OpenAI's `message.refusal`, structured outputs and safety), set only when
   * the upstream refused: kept apart from `text` so that each protocol can say it was one.
   */
  readonly refusal?: string;
  /** `text` as the upstream's blocks, when one of them has citations (their texts joined are `text`). */
  readonly textBlocks?: readonly CitedTextBlock[];
  /** The reasoning as the upstream's blocks (with signatures), when it gave blocks. */
  readonly reasoningBlocks?: readonly ReasoningBlock[];
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
  /** A piece of the model's refusal (chat.ts, CanonicalChatResponse.refusal). */
  | { readonly type: 'refusal-delta'; readonly text: string }
  /**
   * Reasoning text; `signature` (Anthropic) closes the current thinking block, `redacted` is a
   * whole redacted block's data (its text is empty).
   */
  | { readonly type: 'reasoning-delta'; readonly text: string; readonly signature?: string; readonly redacted?: string }
  /**
   * A citation of the text block the upstream has open (Anthropic's `citations_delta`, sent before
   * the block's text); a cited block ends with a `text-break`, so that the text after it is not
   * taken for cited text.
   */
  | { readonly type: 'citation'; readonly citation: JsonObject }
  | { readonly type: 'text-break' }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argumentsDelta: string }
  | ({ readonly type: 'finish'; readonly reason: FinishReason } & FinishDetail)
  | { readonly type: 'usage'; readonly usage: Usage; readonly estimated: boolean };

/**
 * The answer's text cut where its tool calls came, for protocols whose blocks or items keep the
 * model's order (messages, responses): piece `i` is the text written just before call `i`, the
 * last piece what came after every call; empty pieces are ''. Without `textBeforeCalls` all text
 * comes before the calls, as a protocol without order (chat completions) gives it.
 */
export function textAroundCalls(r: Pick<CanonicalChatResponse, 'text' | 'toolCalls' | 'textBeforeCalls'>): string[] {
  const before = r.textBeforeCalls;
  if (!before) return [r.text, ...r.toolCalls.map(() => '')];
  const pieces: string[] = [];
  let written = 0;
  for (let i = 0; i < r.toolCalls.length; i++) {
    const upTo = Math.max(written, before[i] ?? r.text.length);
    pieces.push(r.text.slice(written, upTo));
    written = upTo;
  }
  pieces.push(r.text.slice(written));
  return pieces;
}

/**
 * The answer for a protocol that has no refusal field (messages, legacy completions): the refusal
 * is the text, after any text, and the finish `content_filter`, which is what an Anthropic
 * upstream's own refusal maps to.
 */
export function refusalAsText(r: CanonicalChatResponse): CanonicalChatResponse {
  if (r.refusal === undefined) return r;
  const { refusal, textBlocks, ...rest } = r;
  return { ...rest, ...(textBlocks ? { textBlocks: [...textBlocks, { text: refusal }] } : {}), text: r.text + refusal, finishReason: 'content_filter' };
}
