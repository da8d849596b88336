import type { CanonicalEmbeddingRequest } from '../../canonical/embeddings.ts';

/**
 * The /embeddings body. Vectors are asked for as floats, the one encoding every OpenAI-compatible
 * server supports; the service encodes base64 for clients itself.
 */
export function buildOpenAIEmbeddingsBody(request: CanonicalEmbeddingRequest, upstreamModel: string) {
  return {
    model: upstreamModel,
    input: request.input,
    ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
  };
}
