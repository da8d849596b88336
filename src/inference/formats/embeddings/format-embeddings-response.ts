import type { CanonicalEmbeddingResponse } from '../../canonical/embeddings.ts';
import { encodeFloat32Base64 } from '../../canonical/float32-base64.ts';
import type { EmbeddingEncoding } from './parse-embeddings-request.ts';

/** The OpenAI embeddings list; base64 vectors are little-endian float32, as OpenAI sends them. */
export function formatEmbeddingsResponse(response: CanonicalEmbeddingResponse, options: { readonly model: string; readonly encodingFormat: EmbeddingEncoding }) {
  return {
    object: 'list' as const,
    data: response.embeddings.map((v, index) => ({
      object: 'embedding' as const,
      index,
      embedding: options.encodingFormat === 'base64' ? encodeFloat32Base64(v) : v,
    })),
    model: options.model,
    usage: { prompt_tokens: response.usage.inputTokens, total_tokens: response.usage.inputTokens },
  };
}
