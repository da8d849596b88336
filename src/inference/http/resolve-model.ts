import type { Catalog, Endpoint, ModelConfig } from '../../config/catalog.ts';
import { HttpError, NO_CLIENT_RETRY, badRequest, notFound } from '../../shared/errors.ts';
import { ENDPOINT_PATHS } from '../catalog/endpoint-paths.ts';
import { isModelAvailable } from '../catalog/model-availability.ts';

/**
 * The model check of every inference request, after the request shape: 404 `model not found: <id>`,
 * 400 when the model does not serve this endpoint, 503 `model <id> is not available` when
 * none of its upstreams is configured.
 */
export function resolveModel(catalog: Catalog, id: string, endpoint: Endpoint): ModelConfig {
  const model = findModel(catalog, id, endpoint);
  if (!isModelAvailable(catalog, model)) throw new HttpError(503, `model ${id} is not available`, NO_CLIENT_RETRY);
  return model;
}

/**
 * resolveModel without the availability check: a model of a caller's fallback list that has no
 * upstream is passed over when the request is routed, while an unknown id, or one that does not
 * serve the endpoint, is the client's mistake whatever the rest of the list holds.
 */
export function findModel(catalog: Catalog, id: string, endpoint: Endpoint): ModelConfig {
  const model = catalog.models.get(id);
  if (!model) throw notFound(`model not found: ${id}`);
  if (!model.endpoints.has(endpoint)) throw badRequest(`model ${id} does not support ${ENDPOINT_PATHS[endpoint]}`);
  return model;
}
