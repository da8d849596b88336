import type { CanonicalRerankRequest } from '../../canonical/rerank.ts';

/**
 * The /rerank body, in the subset Cohere v2 and Jina share. Documents are not asked back: the
 * service has them already and adds their text itself when the client wants it.
 */
export function buildRerankBody(request: CanonicalRerankRequest, upstreamModel: string) {
  return {
    model: upstreamModel,
    query: request.query,
    documents: request.documents,
    ...(request.topN !== undefined ? { top_n: request.topN } : {}),
  };
}
