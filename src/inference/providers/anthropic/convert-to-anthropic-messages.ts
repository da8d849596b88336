import { createHash } from 'node:crypto';
import type { CacheControl, CanonicalMessage, DocumentPart, DocumentSource, ReasoningBlock, UserContentPart } from '../../canonical/chat.ts';

export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };

type Cached = { cache_control?: CacheControl };

export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'content'; content: { type: 'text'; text: string }[] }
  | { type: 'url'; url: string };

export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicDocumentSource;
  title?: string;
  context?: string;
  citations?: Record<string, unknown>;
}

export type AnthropicContentBlock = (
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | AnthropicDocumentBlock
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | ({ type: 'text'; text: string } | { type: 'image'; source: AnthropicImageSource } | AnthropicDocumentBlock)[];
      is_error?: boolean;
    }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
) &
  Cached;

export type AnthropicSystem = string | ({ type: 'text'; text: string } & Cached)[];

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

const DATA_URI = /^data:([^;,]+);base64,(.*)$/s;

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The API refuses a tool_use id (and a tool_result's tool_use_id) outside `[a-zA-Z0-9_-]+`, and
 * other providers issue such ids (Kimi's `functions.lookup:0`), which clients send back in their
 * history. Such an id becomes one the API takes, the same for the call and its result; the hash
 * keeps ids apart that differ only in a refused character. The answer's ids are the service's own.
 */
function anthropicToolId(id: string): string {
  if (TOOL_ID.test(id)) return id;
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_')}_${createHash('sha256').update(id).digest('hex').slice(0, 12)}`;
}

/**
 * The type of an image from its first bytes (base64): PNG, JPEG, GIF, or WebP (`RIFF....WEBP`);
 * undefined for anything else.
 */
function sniffImageType(data: string): string | undefined {
  if (data.startsWith('iVBORw0KGgo')) return 'image/png';
  if (data.startsWith('/9j/')) return 'image/jpeg';
  if (data.startsWith('R0lGOD')) return 'image/gif';
  const head = Buffer.from(data.slice(0, 16), 'base64');
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * Anthropic checks that a base64 image's bytes are of the declared type (`Image does not match the
 * provided media type`), where OpenAI reads the bytes whatever the label; clients label a JPEG
 * `image/png` often enough (a renamed file, a fixed label in their code). So the type sent is the
 * one the bytes show when they show one, the declared one otherwise (docs/api-decisions.md,
 * "Inference: twelfth audit").
 */
function imageSource(url: string): AnthropicImageSource {
  const m = DATA_URI.exec(url);
  if (!m) return { type: 'url', url };
  const data = m[2]!.replace(/\s+/g, '');
  return { type: 'base64', media_type: sniffImageType(data) ?? m[1]!, data };
}

const cache = (c: CacheControl | undefined): Cached => (c === undefined ? {} : { cache_control: c });

/** Anthropic refuses text blocks that are empty or only whitespace ("must contain non-whitespace text"). */
const NOT_BLANK = /\S/;

type UserBlock = AnthropicContentBlock & { type: 'text' | 'image' | 'document' };

function documentSource(s: DocumentSource): AnthropicDocumentSource {
  switch (s.type) {
    case 'pdf':
      return { type: 'base64', media_type: 'application/pdf', data: s.data };
    case 'text':
      return { type: 'text', media_type: 'text/plain', data: s.text };
    case 'content':
      return { type: 'content', content: s.texts.map((text) => ({ type: 'text', text })) };
    case 'url':
      return { type: 'url', url: s.url };
  }
}

function documentBlock(p: DocumentPart): AnthropicDocumentBlock {
  const block: AnthropicDocumentBlock = { type: 'document', source: documentSource(p.source) };
  if (p.title !== undefined) block.title = p.title;
  if (p.context !== undefined) block.context = p.context;
  if (p.citations !== undefined) block.citations = { ...p.citations };
  return block;
}

/** A loop with `cache_control` set only when there is one: the spread per block cost 2 µs a request. */
function userBlocks(parts: readonly UserContentPart[]): UserBlock[] {
  const out: UserBlock[] = [];
  for (const p of parts) {
    let block: UserBlock;
    if (p.type === 'image') block = { type: 'image', source: imageSource(p.url) };
    else if (p.type === 'document') block = documentBlock(p);
    else if (NOT_BLANK.test(p.text)) block = { type: 'text', text: p.text };
    else continue;
    if (p.cacheControl !== undefined) block.cache_control = p.cacheControl;
    out.push(block);
  }
  return out;
}

/**
 * Reasoning blocks go back as the client received them. A thinking block without a signature
 * (reasoning another upstream kind produced) cannot be verified by Anthropic and is left out.
 */
function reasoningBlocks(blocks: readonly ReasoningBlock[] | undefined): AnthropicContentBlock[] {
  return (blocks ?? []).flatMap((b): AnthropicContentBlock[] => {
    if (b.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: b.data }];
    return b.signature ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }] : [];
  });
}

/** A marker given for a whole turn goes on its last block, where Anthropic reads it. */
function markLast(blocks: AnthropicContentBlock[], c: CacheControl | undefined): AnthropicContentBlock[] {
  const last = blocks.at(-1);
  if (c === undefined || last === undefined) return blocks;
  return [...blocks.slice(0, -1), { ...last, cache_control: c }];
}

function toolInput(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // arguments were validated as JSON when the client sent them; anything else has no object form
  }
  return {};
}

/**
 * Canonical messages -> the Messages API: system messages lifted into `system` (joined, Anthropic
 * has one), tool results sent as `tool_result` blocks of a user turn, consecutive turns of one role
 * merged (the API wants them alternating), with tool results first in a merged user turn as the
 * API requires. Blank text blocks and assistant turns with nothing in them are dropped; the API
 * refuses empty content.
 */
export function convertToAnthropicMessages(messages: readonly CanonicalMessage[]): {
  system: AnthropicSystem | undefined;
  messages: AnthropicMessage[];
} {
  const system: { text: string; cacheControl?: CacheControl }[] = [];
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) {
      const merged = [...last.content, ...blocks];
      last.content = role === 'user' ? [...merged.filter((b) => b.type === 'tool_result'), ...merged.filter((b) => b.type !== 'tool_result')] : merged;
    } else {
      out.push({ role, content: blocks });
    }
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (NOT_BLANK.test(m.content)) system.push(m.cacheControl === undefined ? { text: m.content } : { text: m.content, cacheControl: m.cacheControl });
        break;
      case 'user':
        push('user', userBlocks(m.content));
        break;
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: anthropicToolId(m.toolCallId),
            content: m.parts !== undefined ? userBlocks(m.parts) : m.content,
            ...(m.isError !== undefined ? { is_error: m.isError } : {}),
            ...cache(m.cacheControl),
          },
        ]);
        break;
      case 'assistant':
        push(
          'assistant',
          markLast(
            [
              ...reasoningBlocks(m.reasoning),
              // A model's turn of whitespace before its tool call comes back as such; the API refuses it.
              ...(NOT_BLANK.test(m.content) ? [{ type: 'text' as const, text: m.content }] : []),
              ...m.toolCalls.map((c) => ({ type: 'tool_use' as const, id: anthropicToolId(c.id), name: c.name, input: toolInput(c.arguments) })),
            ],
            m.cacheControl,
          ),
        );
        break;
    }
  }
  // Joined into one string unless a block carries a cache marker, which needs the block form.
  const systemOut: AnthropicSystem | undefined =
    system.length === 0
      ? undefined
      : system.some((b) => b.cacheControl !== undefined)
        ? system.map((b) => ({ type: 'text' as const, text: b.text, ...cache(b.cacheControl) }))
        : system.map((b) => b.text).join('\n\n');
  return { system: systemOut, messages: out };
}
