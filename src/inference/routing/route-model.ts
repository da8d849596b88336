import type { Catalog, Deployment, ModelConfig } from '../../config/catalog.ts';
import { HttpError, badRequest } from '../../shared/errors.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { isModelAvailable } from '../catalog/model-availability.ts';
import { classifyLane, type Lane } from './classify-lane.ts';
import { describeNeeds, fitsExecutor, hasCapabilities, requestNeeds, type RequestNeeds } from './request-needs.ts';
import { selectAutoModel } from './select-auto-model.ts';

/** The lane every pipeline has; requests of a lane a pipeline does not list go there. */
export const GENERAL_LANE: Lane = 'general';

/** One brand model that may execute a request, in the order they are tried. */
export interface Executor {
  /** The brand that executes: `x-svc-model` and the usage record's `served_model`. */
  readonly brand: ModelConfig;
  /** The pipeline lane it was listed under (`x-svc-lane`), or null for a plain model. */
  readonly lane: Lane | null;
  /**
   * What the upstream layer is given: the executor's deployments under the billed brand's id
   * (upstream errors are redacted to the brand the client sees) and the tighter of the two output
   * limits.
   */
  readonly upstreamModel: ModelConfig;
  /**
   * A caller's fallback list (`models`): the model of the list this executor serves for, whose
   * prices its calls are billed at and whose id is the answer's `model`. Absent otherwise.
   */
  readonly billedAs?: ModelConfig;
}

/** Which models serve a request for a brand model, and how it is billed and named. */
export interface ModelRoute {
  /** The brand the client asked for: the usage record's `model`. */
  readonly requested: ModelConfig;
  /**
   * The brand whose prices are billed and whose id is the answer's `model`: the requested one, or
   * for svc-auto the model it chose.
   */
  readonly billed: ModelConfig;
  /** The request's lane (pipelines and svc-auto), or null for a plain model. */
  readonly lane: Lane | null;
  /** The first serves; each next one is the fallback of the one before, within one attempt budget. */
  readonly executors: readonly Executor[];
  /**
   * A caller's fallback list (routeFallbackList): each executor billed at its `billedAs` prices,
   * `billed` being only what the request is held as (the dearest of the list).
   */
  readonly fallbackList?: true;
}

function underBrand(executor: ModelConfig, billed: ModelConfig): ModelConfig {
  if (executor === billed) return executor;
  const a = billed.maxOutput;
  const b = executor.maxOutput;
  const maxOutput = a === null ? b : b === null ? a : Math.min(a, b);
  return Object.assign({}, executor, { id: billed.id, maxOutput });
}

function pipelineExecutors(catalog: Catalog, requested: ModelConfig, pipeline: Readonly<Record<string, readonly string[]>>, lane: Lane, needs: RequestNeeds | null): Executor[] {
  // The request's lane first, then the general lane, then every other lane in catalog order: a
  // lane whose models are all down or cannot take the request still leaves the pipeline serving.
  const order = [lane, GENERAL_LANE, ...Object.keys(pipeline)] as Lane[];
  const out: Executor[] = [];
  const seen = new Set<string>();
  let tooSmall = false;
  for (const l of order) {
    for (const id of pipeline[l] ?? []) {
      const brand = catalog.models.get(id)!;
      if (seen.has(id) || !isModelAvailable(catalog, brand)) continue;
      if (needs !== null && !hasCapabilities(brand, needs)) continue;
      // An executor whose own output or context limit the request passes would only relay its
      // upstream's refusal (svc-ultra's 1M context and 1.04M output vs svc-vision's 256K / 200K).
      if (needs !== null && !fitsExecutor(brand, needs, requested.context)) {
        tooSmall = true;
        continue;
      }
      seen.add(id);
      out.push({ brand, lane: l, upstreamModel: underBrand(brand, requested) });
    }
  }
  if (out.length === 0 && tooSmall && needs !== null) throw badRequest(`model ${requested.id}: no executor takes this request (${describeNeeds(needs)})`);
  return out;
}

/**
 * Routes a request for a resolved brand model. `request` is the canonical chat request whatever
 * protocol it came in (chat completions, completions, messages, responses), or null for endpoints
 * without one (embeddings, rerank, images), which always serve the model itself.
 *
 * - A model with deployments serves itself.
 * - A pipeline (svc-shiplow, svc-ultra): classifyLane picks the lane; the lane's executors that are
 *   available and can take the request (images, tools, structured output, streaming) serve in
 *   order, then the general lane's, then the other lanes'. Billed at the pipeline's prices.
 * - svc-auto: selectAutoModel picks one model from the lane and the request's needs; it is billed
 *   at that model's prices and its id is the answer's `model`.
 *
 * 503 `model <id> is not available` when nothing can serve it now. `takesCalls` (the upstreams'
 * breakers) lets svc-auto pass over a model whose deployments all refuse calls now; a pipeline needs
 * no such check, as the upstream layer skips an executor whose breakers are open at no cost.
 */
export function routeModel(catalog: Catalog, requested: ModelConfig, request: CanonicalChatRequest | null, takesCalls?: (d: Deployment) => boolean): ModelRoute {
  if (requested.type !== 'chat' || request === null || !choosesByLane(catalog, requested)) return routeForLane(catalog, requested, null, null);
  return routeForLane(catalog, requested, classifyLane(request), requestNeeds(request), takesCalls);
}

/**
 * Whether the lane and the request's needs pick what serves it: a pipeline, or svc-auto. A model
 * that serves itself skips the classifier, whose lane it would not use.
 */
function choosesByLane(catalog: Catalog, requested: ModelConfig): boolean {
  return requested.pipeline !== null || (requested.deployments.length === 0 && catalog.auto !== null);
}

/** routeModel once the lane is known (null for endpoints without a chat request). */
export function routeForLane(catalog: Catalog, requested: ModelConfig, lane: Lane | null, needs: RequestNeeds | null, takesCalls?: (d: Deployment) => boolean): ModelRoute {
  if (requested.pipeline) {
    const executors = pipelineExecutors(catalog, requested, requested.pipeline, lane ?? GENERAL_LANE, needs);
    if (executors.length === 0) throw new HttpError(503, `model ${requested.id} is not available`);
    return { requested, billed: requested, lane: lane ?? GENERAL_LANE, executors };
  }
  if (requested.type === 'chat' && requested.deployments.length === 0 && catalog.auto && needs !== null) {
    const l = lane ?? GENERAL_LANE;
    const chosen = selectAutoModel(catalog, catalog.auto, l, needs, takesCalls);
    return { requested, billed: chosen, lane: l, executors: [{ brand: chosen, lane: l, upstreamModel: chosen }] };
  }
  return { requested, billed: requested, lane: null, executors: [{ brand: requested, lane: null, upstreamModel: requested }] };
}
