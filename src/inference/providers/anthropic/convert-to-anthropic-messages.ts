import type { CanonicalMessage, UserContentPart } from '../../canonical/chat.ts';

export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

const DATA_URI = /^data:([^;,]+);base64,(.*)$/s;

function imageSource(url: string): AnthropicImageSource {
  const m = DATA_URI.exec(url);
  return m ? { type: 'base64', media_type: m[1]!, data: m[2]!.replace(/\s+/g, '') } : { type: 'url', url };
}

function userBlocks(parts: readonly UserContentPart[]): AnthropicContentBlock[] {
  return parts.flatMap((p): AnthropicContentBlock[] => {
    if (p.type === 'image') return [{ type: 'image', source: imageSource(p.url) }];
    // Anthropic refuses empty text blocks.
    return p.text === '' ? [] : [{ type: 'text', text: p.text }];
  });
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
 * API requires. Assistant turns with nothing in them are dropped; the API refuses empty content.
 */
export function convertToAnthropicMessages(messages: readonly CanonicalMessage[]): {
  system: string | undefined;
  messages: AnthropicMessage[];
} {
  const system: string[] = [];
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
        if (m.content !== '') system.push(m.content);
        break;
      case 'user':
        push('user', userBlocks(m.content));
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...(m.content === '' ? [] : [{ type: 'text' as const, text: m.content }]),
          ...m.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: toolInput(c.arguments) })),
        ]);
        break;
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}
