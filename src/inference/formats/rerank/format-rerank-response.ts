import type { CanonicalRerankResponse } from '../../canonical/rerank.ts';

export interface RerankFormatOptions {
  /** Service-issued id (createId). */
  readonly id: string;
  readonly model: string;
  /** The request's documents, to return their text when asked. */
  readonly documents: readonly string[];
  readonly returnDocuments: boolean;
}

/** The Cohere/Jina v2 answer: `results: [{index, relevance_score, document?: {text}}]`, best first. */
export function formatRerankResponse(response: CanonicalRerankResponse, options: RerankFormatOptions) {
  return {
    id: options.id,
    model: options.model,
    results: response.results.map((r) => ({
      index: r.index,
      relevance_score: r.relevanceScore,
      ...(options.returnDocuments ? { document: { text: options.documents[r.index] ?? '' } } : {}),
    })),
    usage: { total_tokens: response.usage.inputTokens },
  };
}
