import { createHash } from 'node:crypto';
import type { CanonicalMessage, DocumentPart, UserContentPart } from '../../canonical/chat.ts';
import { documentText } from '../../canonical/documents.ts';
import { ProviderFailure } from '../provider-failure.ts';

type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'file'; file: { file_data: string; filename: string } };

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
  return parts.map((p): OpenAIContentPart => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'document') return documentPart(p);
    return { type: 'image_url', image_url: p.detail ? { url: p.url, detail: p.detail } : { url: p.url } };
  });
}

/**
 * A PDF goes as chat's `file` part (a data URI and a filename, which OpenAI requires). Chat takes
 * files as PDFs only, so a text document goes as its text; and it has no file by URL, which the
 * service will not fetch itself: a 400 the client can act on (docs/api-decisions.md, "Documents
 * and files as input").
 */
function documentPart(p: DocumentPart): OpenAIContentPart {
  const text = documentText(p);
  if (text !== undefined) return { type: 'text', text };
  if (p.source.type === 'url') {
    throw new ProviderFailure(400, 'url: this model cannot read a document by URL; send the file itself (base64 data)');
  }
  return { type: 'file', file: { file_data: `data:application/pdf;base64,${p.source.type === 'pdf' ? p.source.data : ''}`, filename: p.title ?? 'document.pdf' } };
}

/**
 * Canonical messages in the chat-completions wire shape; a lone text part is sent as a string.
 * Tool messages carry text only, so images and documents a tool returned follow the run of tool messages as a
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
    else toolImages.push(...(m.parts ?? []).filter((p) => p.type !== 'text'));
    out.push(convertOne(m));
  }
  flushImages();
  return out;
}

/**
 * OpenAI refuses a tool call id (and a tool message's `tool_call_id`) over 40 characters, and other
 * providers and gateways issue longer ones, which clients send back in their history. Such an id is
 * cut to 40, the same for the call and its result; the hash keeps ids apart that share their start.
 * The answer's ids are the service's own.
 */
function openaiToolCallId(id: string): string {
  if (id.length <= 40) return id;
  return `${id.slice(0, 27)}_${createHash('sha256').update(id).digest('hex').slice(0, 12)}`;
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
        tool_calls: m.toolCalls.map((c) => ({ id: openaiToolCallId(c.id), type: 'function', function: { name: c.name, arguments: c.arguments } })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: openaiToolCallId(m.toolCallId), content: m.content };
  }
}
