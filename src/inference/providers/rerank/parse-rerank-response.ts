import type { RerankResult } from '../../canonical/rerank.ts';
import { ProviderFailure } from '../provider-failure.ts';

interface RerankAnswer {
  results?: { index?: unknown; relevance_score?: unknown }[];
  // Jina and most compatible servers
  usage?: { total_tokens?: unknown; prompt_tokens?: unknown } | null;
  // Cohere bills search units; some compatible servers put token counts here
  meta?: { tokens?: { input_tokens?: unknown } | null; billed_units?: { input_tokens?: unknown } | null } | null;
}

/**
 * Results sorted most relevant first (upstreams already do; this does not trust it) and limited to
 * topN, plus the input tokens when the upstream counts them (Cohere reports search units instead).
 */
export function parseRerankResponse(json: unknown, documentCount: number, topN: number | undefined): { results: RerankResult[]; inputTokens: number | null } {
  const body = (json ?? {}) as RerankAnswer;
  if (!Array.isArray(body.results)) throw new ProviderFailure(502, 'the upstream returned no rerank results');
  const results = body.results.map((r): RerankResult => {
    if (typeof r.index !== 'number' || !Number.isInteger(r.index) || r.index < 0 || r.index >= documentCount || typeof r.relevance_score !== 'number') {
      throw new ProviderFailure(502, 'the upstream returned a malformed rerank result');
    }
    return { index: r.index, relevanceScore: r.relevance_score };
  });
  results.sort((a, b) => b.relevanceScore - a.relevanceScore || a.index - b.index);
  const tokens = body.usage?.total_tokens ?? body.usage?.prompt_tokens ?? body.meta?.tokens?.input_tokens ?? body.meta?.billed_units?.input_tokens;
  return {
    results: topN === undefined ? results : results.slice(0, topN),
    inputTokens: typeof tokens === 'number' && tokens > 0 ? tokens : null,
  };
}
