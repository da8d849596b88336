import { needsVision } from './documents.ts';
import type { CanonicalChatRequest } from './chat.ts';

/** Capabilities a chat request needs, so routes can refuse a model that lacks them. */
export interface ChatRequestFeatures {
  /** Images or PDF documents: a model with vision. */
  readonly images: boolean;
  readonly tools: boolean;
  readonly jsonOutput: boolean;
}

export function chatRequestFeatures(request: CanonicalChatRequest): ChatRequestFeatures {
  const images = request.messages.some(
    (m) => (m.role === 'user' && m.content.some(needsVision)) || (m.role === 'tool' && m.parts?.some(needsVision) === true),
  );
  const tools = request.tools.length > 0 && request.toolChoice?.type !== 'none';
  return { images, tools, jsonOutput: request.responseFormat !== undefined };
}
