import type { CanonicalMessage } from '../../canonical/chat.ts';

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

/** Canonical messages in the chat-completions wire shape; a lone text part is sent as a string. */
export function convertToOpenAIChatMessages(messages: readonly CanonicalMessage[]): OpenAIChatMessage[] {
  return messages.map((m): OpenAIChatMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user': {
        const only = m.content[0];
        if (m.content.length === 1 && only?.type === 'text') return { role: 'user', content: only.text };
        return {
          role: 'user',
          content: m.content.map((p): OpenAIContentPart =>
            p.type === 'text'
              ? { type: 'text', text: p.text }
              : { type: 'image_url', image_url: p.detail ? { url: p.url, detail: p.detail } : { url: p.url } },
          ),
        };
      }
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
  });
}
