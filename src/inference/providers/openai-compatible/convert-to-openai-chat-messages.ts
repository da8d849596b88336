import type { CanonicalMessage, UserContentPart } from '../../canonical/chat.ts';

type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

function userContent(parts: readonly UserContentPart[]): string | OpenAIContentPart[] {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text') return only.text;
  return parts.map((p): OpenAIContentPart =>
    p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: p.detail ? { url: p.url, detail: p.detail } : { url: p.url } },
  );
}

/**
 * Canonical messages in the chat-completions wire shape; a lone text part is sent as a string.
 * Tool messages carry text only, so images a tool returned follow the run of tool messages as a
 * user message. Reasoning blocks and cache markers have no place here and are left out.
 */
export function convertToOpenAIChatMessages(messages: readonly CanonicalMessage[]): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  let toolImages: UserContentPart[] = [];
  const flushImages = () => {
    if (toolImages.length > 0) out.push({ role: 'user', content: userContent(toolImages) });
    toolImages = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flushImages();
    else toolImages.push(...(m.parts ?? []).filter((p) => p.type === 'image'));
    out.push(convertOne(m));
  }
  flushImages();
  return out;
}

function convertOne(m: CanonicalMessage): OpenAIChatMessage {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: userContent(m.content) };
    case 'assistant':
      if (m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}
