import type { Usage } from './usage.ts';

export interface CanonicalRerankRequest {
  readonly query: string;
  readonly documents: readonly string[];
  readonly topN?: number;
}

export interface RerankResult {
  /** Position of the document in the request's `documents`. */
  readonly index: number;
  readonly relevanceScore: number;
}

export interface CanonicalRerankResponse {
  /** Most relevant first, at most `topN`. */
  readonly results: readonly RerankResult[];
  readonly usage: Usage;
  readonly usageEstimated: boolean;
}
