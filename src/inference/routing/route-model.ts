import type { Catalog, ModelConfig } from '../../config/catalog.ts';
import { HttpError } from '../../shared/errors.ts';
import { isModelAvailable } from '../catalog/model-availability.ts';

/** The lane a pipeline serves ordinary requests on until the routing pipelines exist. */
export const INTERIM_LANE = 'general';
/** The lane for requests with images when the general lane's model cannot see. */
export const VISION_LANE = 'vision';

/** Which model serves a request for a brand model, and how it is billed and named. */
export interface ModelRoute {
  /** The brand the client asked for: its prices are billed and its id is the answer's `model`. */
  readonly requested: ModelConfig;
  /** The brand model whose deployments serve the request (the requested one, or a lane's). */
  readonly served: ModelConfig;
  /** The pipeline lane used, or null for a model with deployments of its own. */
  readonly lane: string | null;
  /**
   * What the upstream layer is given: the served model's deployments under the requested brand's
   * id (upstream errors are redacted to the brand the client asked for) and the tighter of the two
   * output limits.
   */
  readonly upstreamModel: ModelConfig;
}

export interface RouteNeeds {
  /** The request carries images: only a model with vision may serve it. */
  readonly images: boolean;
}

/**
 * Interim routing for pipelines (svc-shiplow, svc-ultra) until the routing pipelines are built:
 * the `general` lane's model serves every request, or, when that model is not available (or
 * cannot see the request's images), the first available lane in catalog order that can (the
 * `vision` lane first for images). A model with deployments serves itself. resolveModel has
 * already checked that the pipeline has an available lane.
 */
export function routeModel(catalog: Catalog, requested: ModelConfig, needs: RouteNeeds): ModelRoute {
  if (!requested.pipeline) return { requested, served: requested, lane: null, upstreamModel: requested };
  const lanes = Object.keys(requested.pipeline);
  const preferred = needs.images ? [INTERIM_LANE, VISION_LANE] : [INTERIM_LANE];
  const order = [...preferred.filter((l) => lanes.includes(l)), ...lanes.filter((l) => !preferred.includes(l))];
  for (const lane of order) {
    const served = catalog.models.get(requested.pipeline[lane]!);
    if (!served || !isModelAvailable(catalog, served)) continue;
    if (needs.images && !served.capabilities.vision) continue;
    const maxOutput =
      requested.maxOutput === null ? served.maxOutput : served.maxOutput === null ? requested.maxOutput : Math.min(requested.maxOutput, served.maxOutput);
    return { requested, served, lane, upstreamModel: { ...served, id: requested.id, maxOutput } };
  }
  throw new HttpError(503, `model ${requested.id} is not available`);
}
