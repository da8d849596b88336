import type { CanonicalChatRequest } from './chat.ts';

/** Capabilities a chat request needs, so routes can refuse a model that lacks them. */
export interface ChatRequestFeatures {
  readonly images: boolean;
  readonly tools: boolean;
  readonly jsonOutput: boolean;
}

export function chatRequestFeatures(request: CanonicalChatRequest): ChatRequestFeatures {
  const images = request.messages.some(
    (m) => m.role === 'user' && m.content.some((p) => p.type === 'image'),
  );
  const tools = request.tools.length > 0 && request.toolChoice?.type !== 'none';
  return { images, tools, jsonOutput: request.responseFormat !== undefined };
}
