import { documentFixedTokens, documentText } from '../canonical/documents.ts';
import { createRequire } from 'node:module';
import type { CanonicalChatRequest, ToolCall } from '../canonical/chat.ts';
import type { Usage } from '../canonical/usage.ts';

// Text is counted as text: special-token markers a client sends are ordinary characters here.
const PLAIN = { disallowedSpecial: new Set<string>() };

/** Framing tokens a chat format adds around each message (role markers, separators). */
const PER_MESSAGE = 4;
/** What one image costs on OpenAI-style vision models at 1024x1024, high detail. */
const PER_IMAGE = 765;

/**
 * Token count with the o200k tokenizer. Upstreams tokenize differently; this is only used when an
 * upstream does not report usage (a stream cut short, a server that omits it), so billing still
 * charges for what was produced.
 */
export function countTextTokens(text: string): number {
  return text === '' ? 0 : tokenizer()(text, PLAIN);
}

type CountTokens = typeof import('gpt-tokenizer').countTokens;
let loaded: CountTokens | null = null;
/**
 * The o200k tables are loaded on the first count, not at start: they are some 60 MB of resident
 * memory (a 3.7 MB source of array literals, and the maps built from it), and most processes
 * never count, because upstreams report usage. Synchronous, so counting stays synchronous.
 */
function tokenizer(): CountTokens {
  loaded ??= (createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).countTokens;
  return loaded;
}

export function estimateChatInputTokens(request: CanonicalChatRequest): number {
  let n = 3; // the assistant reply primer
  for (const m of request.messages) {
    n += PER_MESSAGE;
    switch (m.role) {
      case 'system':
      case 'tool':
        n += countTextTokens(m.content);
        break;
      case 'user':
        for (const p of m.content) n += p.type === 'text' ? countTextTokens(p.text) : p.type === 'image' ? PER_IMAGE : countTextTokens(documentText(p) ?? '') + documentFixedTokens(p);
        break;
      case 'assistant':
        n += countTextTokens(m.content);
        for (const c of m.toolCalls) n += countTextTokens(c.name) + countTextTokens(c.arguments);
        break;
    }
  }
  if (request.tools.length > 0) n += countTextTokens(JSON.stringify(request.tools));
  if (request.responseFormat?.type === 'json_schema') n += countTextTokens(JSON.stringify(request.responseFormat.schema));
  return n;
}

/**
 * Whether the request's input is more than `limit` tokens as estimateChatInputTokens counts them,
 * without tokenizing what cannot matter: a token is at least one byte, so an input of at most
 * `limit` bytes (images at their fixed cost) fits uncounted, and counting stops once past the limit
 * (the work is bounded by the limit, not by the size of the body).
 */
export function chatInputExceeds(request: CanonicalChatRequest, limit: number): boolean {
  let fixed = 3;
  const texts: string[] = [];
  for (const m of request.messages) {
    fixed += PER_MESSAGE;
    switch (m.role) {
      case 'system':
      case 'tool':
        texts.push(m.content);
        break;
      case 'user':
        for (const p of m.content) {
          if (p.type === 'text') texts.push(p.text);
          else if (p.type === 'image') fixed += PER_IMAGE;
          else {
            texts.push(documentText(p) ?? '');
            fixed += documentFixedTokens(p);
          }
        }
        break;
      case 'assistant':
        texts.push(m.content);
        for (const c of m.toolCalls) texts.push(c.name, c.arguments);
        break;
    }
  }
  if (request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  if (request.responseFormat?.type === 'json_schema') texts.push(JSON.stringify(request.responseFormat.schema));
  return textsExceed(texts, limit - fixed);
}

/** Whether any one of the texts is more than `limit` tokens (embeddings: each input is embedded alone). */
export function someTextExceeds(texts: readonly string[], limit: number): boolean {
  return texts.some((t) => textsExceed([t], limit));
}

function textsExceed(texts: readonly string[], limit: number): boolean {
  if (limit < 0) return true;
  let bytes = 0;
  for (const t of texts) bytes += Buffer.byteLength(t);
  if (bytes <= limit) return false;
  let remaining = limit;
  for (const t of texts) {
    if (t === '') continue;
    const n = withinLimit()(t, remaining, PLAIN);
    if (n === false) return true;
    remaining -= n;
  }
  return false;
}

type IsWithinTokenLimit = typeof import('gpt-tokenizer').isWithinTokenLimit;
let loadedLimit: IsWithinTokenLimit | null = null;
function withinLimit(): IsWithinTokenLimit {
  loadedLimit ??= (createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).isWithinTokenLimit;
  return loadedLimit;
}

export function estimateOutputTokens(output: {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: readonly Pick<ToolCall, 'name' | 'arguments'>[];
}): number {
  let n = countTextTokens(output.text) + countTextTokens(output.reasoning);
  for (const c of output.toolCalls) n += countTextTokens(c.name) + countTextTokens(c.arguments);
  return n;
}

/**
 * The usage with its reasoning tokens filled in: the upstream's count when it reported one; else,
 * when the answer carried reasoning text (Anthropic thinking, which its usage counts inside
 * `output_tokens` without saying how much), the tokenizer's count of that text, never more than
 * the output. A lower bound when the upstream summarises its thinking (docs/api-decisions.md).
 */
export function withReasoningTokens(usage: Usage, reasoning: string): Usage {
  if (usage.reasoningTokens !== undefined || reasoning === '') return usage;
  return Object.assign({}, usage, { reasoningTokens: Math.min(countTextTokens(reasoning), usage.outputTokens) });
}
