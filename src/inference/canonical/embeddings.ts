import type { Usage } from './usage.ts';

export interface CanonicalEmbeddingRequest {
  /** One or more texts; the answer has one vector per text, in the same order. */
  readonly input: readonly string[];
  readonly dimensions?: number;
  readonly user?: string;
}

export interface CanonicalEmbeddingResponse {
  readonly embeddings: readonly (readonly number[])[];
  readonly usage: Usage;
  readonly usageEstimated: boolean;
}
