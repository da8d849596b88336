import { documentText } from '../../canonical/documents.ts';
import { createHash } from 'node:crypto';
import type { CanonicalChatRequest, CanonicalMessage, JsonObject, ToolDefinition } from '../../canonical/chat.ts';
import type { CanonicalEmbeddingRequest } from '../../canonical/embeddings.ts';
import type { CanonicalImageRequest, GeneratedImage } from '../../canonical/images.ts';
import type { CanonicalRerankRequest, RerankResult } from '../../canonical/rerank.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { ProviderChatResult, ProviderStreamEvent } from '../provider-stream.ts';

/**
 * The built-in demo provider: answers in canonical terms without any network, so a fresh install
 * shows a working, billed call before anyone owns an upstream key. Every answer is deterministic
 * (the same request gives the same text, vectors and scores) and says that it is a demo.
 */

/** Opens every demo text, so no one mistakes it for a model's answer. */
export const DEMO_NOTICE = '[demo]';

const CHARS_PER_TOKEN = 4;
const DEFAULT_DIMENSIONS = 256;
const WORDS_PER_CHUNK = 3;

/** Token counts the demo reports: a quarter of the characters, as a rough tokenizer would give. */
export function demoTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function messageText(m: CanonicalMessage): string {
  if (m.role === 'user') return m.content.map((p) => (p.type === 'text' ? p.text : p.type === 'image' ? p.url : (documentText(p) ?? p.title ?? 'document'))).join(' ');
  if (m.role === 'assistant') return m.content + m.toolCalls.map((c) => c.name + c.arguments).join('');
  return m.content;
}

function inputTokens(request: CanonicalChatRequest): number {
  const text = request.messages.map(messageText).join('\n') + request.tools.map((t) => JSON.stringify(t)).join('');
  return Math.max(1, demoTokens(text));
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A value that satisfies the common shapes of a JSON Schema: its first enum, const or type. */
export function sampleOf(schema: unknown, depth = 0): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return 'demo';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 4 ? [] : [sampleOf(s.items, depth + 1)];
    case 'null':
      return null;
    default: {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const [k, v] of Object.entries(props)) out[k] = sampleOf(v, depth + 1);
      return out;
    }
  }
}

/** The tool the demo calls: none when tools are off or the last message already is a tool result. */
function toolToCall(request: CanonicalChatRequest): ToolDefinition | null {
  const choice = request.toolChoice ?? { type: 'auto' };
  if (request.tools.length === 0 || choice.type === 'none') return null;
  if (choice.type === 'tool') return request.tools.find((t) => t.name === choice.name) ?? null;
  if (choice.type === 'auto' && request.messages.at(-1)?.role === 'tool') return null;
  return request.tools[0]!;
}

function replyText(request: CanonicalChatRequest, brandModel: string): string {
  const format = request.responseFormat;
  if (format?.type === 'json_schema') return JSON.stringify(sampleOf(format.schema as JsonObject));
  if (format?.type === 'json_object') return JSON.stringify({ demo: true, model: brandModel, note: 'a demo answer: no upstream model is configured' });
  const last = request.messages.at(-1);
  const about =
    last?.role === 'tool'
      ? `The tool answered: "${clip(last.content, 80)}".`
      : last?.role === 'user'
        ? `You said: "${clip(messageText(last), 80)}".`
        : '';
  return (
    `${DEMO_NOTICE} This is a demo answer from ${brandModel}, served by svc's built-in demo provider because no ` +
    `upstream is configured, so no language model wrote it. ${about} Configure an upstream ` +
    '(docs/configuration.md) and restart the service to get real answers.'
  ).replace(/\s+/g, ' ');
}

interface DemoTurn {
  readonly text: string;
  readonly toolCall: { readonly name: string; readonly arguments: string } | null;
  readonly finishReason: 'stop' | 'length' | 'tool_calls';
  readonly usage: Usage;
}

function demoTurn(request: CanonicalChatRequest, brandModel: string): DemoTurn {
  const tool = toolToCall(request);
  const input = inputTokens(request);
  if (tool) {
    const args = JSON.stringify(sampleOf(tool.parameters));
    return { text: '', toolCall: { name: tool.name, arguments: args }, finishReason: 'tool_calls', usage: { inputTokens: input, cachedInputTokens: 0, outputTokens: demoTokens(tool.name + args) } };
  }
  let text = replyText(request, brandModel);
  let finishReason: DemoTurn['finishReason'] = 'stop';
  if (request.maxTokens !== undefined && demoTokens(text) > request.maxTokens) {
    text = text.slice(0, request.maxTokens * CHARS_PER_TOKEN);
    finishReason = 'length';
  }
  return { text, toolCall: null, finishReason, usage: { inputTokens: input, cachedInputTokens: 0, outputTokens: demoTokens(text) } };
}

/** A non-streamed demo answer. */
export function demoChat(request: CanonicalChatRequest, brandModel: string, newToolCallId: () => string): ProviderChatResult {
  const turn = demoTurn(request, brandModel);
  return {
    text: turn.text,
    reasoning: '',
    toolCalls: turn.toolCall ? [{ id: newToolCallId(), ...turn.toolCall }] : [],
    finishReason: turn.finishReason,
    usage: turn.usage,
  };
}

/** The same answer as demoChat, as a stream: a few words per chunk, then finish and usage. */
export function demoChatEvents(request: CanonicalChatRequest, brandModel: string, newToolCallId: () => string): ProviderStreamEvent[] {
  const turn = demoTurn(request, brandModel);
  const events: ProviderStreamEvent[] = [];
  if (turn.toolCall) {
    events.push({ type: 'tool-call-start', index: 0, id: newToolCallId(), name: turn.toolCall.name });
    const args = turn.toolCall.arguments;
    const step = Math.max(1, Math.ceil(args.length / 3));
    for (let i = 0; i < args.length; i += step) events.push({ type: 'tool-call-delta', index: 0, argumentsDelta: args.slice(i, i + step) });
  } else {
    const words = turn.text.split(/(?<= )/);
    for (let i = 0; i < words.length; i += WORDS_PER_CHUNK) events.push({ type: 'text-delta', text: words.slice(i, i + WORDS_PER_CHUNK).join('') });
  }
  events.push({ type: 'finish', reason: turn.finishReason });
  events.push({ type: 'reported-usage', usage: turn.usage });
  return events;
}

/** Unit vectors derived from a hash of each text: equal texts get equal vectors. */
export function demoEmbeddings(request: CanonicalEmbeddingRequest): { embeddings: number[][]; usage: Usage } {
  const dims = request.dimensions ?? DEFAULT_DIMENSIONS;
  const embeddings = request.input.map((text) => {
    const v: number[] = [];
    for (let block = 0; v.length < dims; block++) {
      const digest = createHash('sha256').update(`${block}:${text}`).digest();
      for (let i = 0; i + 1 < digest.length && v.length < dims; i += 2) v.push(digest.readUInt16BE(i) / 32767.5 - 1);
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  });
  const inputTokens = request.input.reduce((n, s) => n + demoTokens(s), 0);
  return { embeddings, usage: { inputTokens, cachedInputTokens: 0, outputTokens: 0 } };
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Scores by the share of the query's words found in each document (0 to 1). */
export function demoRerank(request: CanonicalRerankRequest): { results: RerankResult[]; usage: Usage } {
  const q = words(request.query);
  const scored = request.documents.map((doc, index) => {
    const d = words(doc);
    let hits = 0;
    for (const w of q) if (d.has(w)) hits++;
    return { index, relevanceScore: q.size === 0 ? 0 : Math.round((hits / q.size) * 1e6) / 1e6 };
  });
  scored.sort((a, b) => b.relevanceScore - a.relevanceScore || a.index - b.index);
  const q0 = demoTokens(request.query);
  const inputTokens = request.documents.reduce((n, d) => n + q0 + demoTokens(d), 0);
  return { results: scored.slice(0, request.topN ?? scored.length), usage: { inputTokens, cachedInputTokens: 0, outputTokens: 0 } };
}

// A 1x1 transparent PNG: the demo draws nothing, it shows the call and its billing working.
const DEMO_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export function demoImages(request: CanonicalImageRequest): GeneratedImage[] {
  return Array.from({ length: request.n }, () => ({
    base64: DEMO_PNG,
    mediaType: 'image/png',
    revisedPrompt: `${DEMO_NOTICE} a placeholder image for: ${clip(request.prompt, 80)}`,
  }));
}
