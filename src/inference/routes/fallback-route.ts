import type { Endpoint, ModelConfig } from '../../config/catalog.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { findModel } from '../http/resolve-model.ts';
import type { InferenceContext } from '../inference-context.ts';
import { readFallbackIds, routeFallbackList } from '../routing/fallback-list.ts';
import type { ModelRoute } from '../routing/route-model.ts';

/**
 * The route of a request that gave a fallback list (`models`, OpenRouter's field): every id
 * checked as `model` is (404 unknown, 400 not on this endpoint), then each model that can take the
 * request, in order (`check`: the route's own feature and context checks).
 */
export function fallbackRoute(
  ctx: InferenceContext,
  endpoint: Endpoint,
  named: string | undefined,
  models: unknown,
  request: CanonicalChatRequest,
  check: (model: ModelConfig) => void,
): ModelRoute {
  const ids = readFallbackIds(models, named);
  const listed = ids.map((id) => findModel(ctx.catalog, id, endpoint));
  return routeFallbackList(ctx.catalog, listed, request, check, ctx.upstreams.health.takesCalls);
}
