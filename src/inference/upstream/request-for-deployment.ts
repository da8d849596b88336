import type { Deployment } from '../../config/catalog.ts';
import type { CanonicalChatRequest, CanonicalMessage } from '../canonical/chat.ts';
import { messagesForSigner } from './reasoning-signer.ts';

/**
 * The request as one deployment receives it. A deployment whose upstream model has no reasoning
 * (`reasoning: false` in the catalog, e.g. a gpt-4.1 fallback of a reasoning brand) gets it
 * without the reasoning parameters (which such models refuse with a 400: OpenAI's
 * `reasoning_effort`, Anthropic's `thinking`) and without the reasoning blocks of earlier
 * assistant turns (signed for another model, and of no use without thinking). One that reasons
 * gets only the blocks its own upstream model signed (reasoning-signer.ts). The client's request
 * is accepted either way; only what this deployment is sent changes.
 */
export function requestForDeployment(deployment: Deployment, request: CanonicalChatRequest): CanonicalChatRequest {
  if (deployment.reasoning) {
    const messages = messagesForSigner(request.messages, deployment.model);
    return messages === request.messages ? request : { ...request, messages };
  }
  const blocks = request.messages.some((m) => m.role === 'assistant' && m.reasoning !== undefined);
  if (request.reasoning === undefined && !blocks) return request;
  const { reasoning: _dropped, ...rest } = request;
  return blocks ? { ...rest, messages: request.messages.map(withoutReasoningBlocks) } : rest;
}

function withoutReasoningBlocks(m: CanonicalMessage): CanonicalMessage {
  if (m.role !== 'assistant' || m.reasoning === undefined) return m;
  const { reasoning: _dropped, ...rest } = m;
  return rest;
}
