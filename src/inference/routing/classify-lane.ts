import type { CanonicalChatRequest } from '../canonical/chat.ts';

/** The pipeline lanes, in the order their rules are tried (first match wins). */
export const LANES = ['vision', 'agent', 'code', 'math', 'multilingual', 'general'] as const;
export type Lane = (typeof LANES)[number];

/**
 * The lane of a chat request, whatever protocol it arrived in. Rules 1-2 are structural (an image
 * anywhere; tools declared or tool calls/results in the history); rules 3-5 read the latest user
 * message with the text classifier; everything else is `general`.
 */
export function classifyLane(request: CanonicalChatRequest): Lane {
  const hasImage = request.messages.some((m) => m.role === 'user' && m.content.some((p) => p.type === 'image'));
  if (hasImage) return 'vision';
  const agentic =
    request.tools.length > 0 ||
    request.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls.length > 0));
  if (agentic) return 'agent';
  // The text lanes (code, math, multilingual) arrive with the trained classifier.
  return 'general';
}
