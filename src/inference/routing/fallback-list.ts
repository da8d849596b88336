import type { Catalog, Deployment, ModelConfig } from '../../config/catalog.ts';
import { HttpError, NO_CLIENT_RETRY, badRequest } from '../../shared/errors.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { isModelAvailable } from '../catalog/model-availability.ts';
import { routeModel, type Executor, type ModelRoute } from './route-model.ts';

/**
 * The most models a caller's fallback list may name, `model` included. OpenRouter documents no
 * bound (peers allow 3 fallbacks after the primary); every model of the list shares one request's
 * `max_attempts`, so a longer list would only name models that never get a call.
 */
export const MAX_FALLBACK_MODELS = 5;

/**
 * The `models` field of a chat request (OpenRouter's fallback list), given: the ids to try in
 * order, `model` first when given, each once. 400 naming the field when it is not an array of
 * 1..MAX_FALLBACK_MODELS non-empty strings.
 */
export function readFallbackIds(value: unknown, model: string | undefined): readonly string[] {
  if (!Array.isArray(value)) throw badRequest('models: must be an array of model ids');
  if (value.length === 0) throw badRequest('models: must name at least one model');
  const ids: string[] = model !== undefined ? [model] : [];
  value.forEach((id: unknown, i) => {
    if (typeof id !== 'string' || id === '') throw badRequest(`models[${i}]: must be a non-empty string`);
    if (!ids.includes(id)) ids.push(id);
  });
  if (ids.length > MAX_FALLBACK_MODELS) throw badRequest(`models: at most ${MAX_FALLBACK_MODELS} different models, \`model\` included`);
  return ids;
}

/**
 * A model that stands for every model of a list when the request is held: each price the highest
 * of the list's, and the largest context and max output (none when one has none), so the hold
 * covers whichever model serves, and the balance floor (402) is the dearest model's.
 */
function dearestOf(models: readonly ModelConfig[]): ModelConfig {
  const first = models[0]!;
  if (models.length === 1) return first;
  const most = (pick: (m: ModelConfig) => bigint) => models.reduce((a, m) => (pick(m) > a ? pick(m) : a), 0n);
  const largest = (pick: (m: ModelConfig) => number | null) =>
    models.some((m) => pick(m) === null) ? null : Math.max(...models.map((m) => pick(m)!));
  return Object.assign({}, first, {
    pricing: { input: most((m) => m.pricing.input), cachedInput: most((m) => m.pricing.cachedInput), output: most((m) => m.pricing.output), perImage: most((m) => m.pricing.perImage) },
    context: largest((m) => m.context),
    maxOutput: largest((m) => m.maxOutput),
  });
}

/**
 * The route of a caller's fallback list (`models`): each model of the list routed as it would be
 * alone (a pipeline's executors, svc-auto's choice), one after the other, each executor billed at
 * the prices of the list's model it came from. A model that cannot take the request (`check`: the
 * route's feature and context checks), or has no upstream configured, or routes to nothing, is
 * left out; when every one is, the first one's refusal is the answer, as when it is asked for alone.
 */
export function routeFallbackList(
  catalog: Catalog,
  models: readonly ModelConfig[],
  request: CanonicalChatRequest,
  check: (model: ModelConfig) => void,
  takesCalls?: (d: Deployment) => boolean,
): ModelRoute {
  let refusal: HttpError | null = null;
  const executors: Executor[] = [];
  const served: ModelConfig[] = [];
  for (const model of models) {
    let route: ModelRoute;
    try {
      if (!isModelAvailable(catalog, model)) throw new HttpError(503, `model ${model.id} is not available`, NO_CLIENT_RETRY);
      check(model);
      route = routeModel(catalog, model, request, takesCalls);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      refusal ??= e;
      continue;
    }
    served.push(route.billed);
    // svc-auto may choose a model listed before it: its deployments were already tried.
    for (const x of route.executors) if (!executors.some((y) => y.upstreamModel === x.upstreamModel)) executors.push({ ...x, billedAs: route.billed });
  }
  if (executors.length === 0) throw refusal!;
  return { requested: models[0]!, billed: dearestOf(served), lane: null, executors, fallbackList: true };
}
