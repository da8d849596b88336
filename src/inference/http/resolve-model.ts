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
  const model = catalog.models.get(id);
  if (!model) throw notFound(`model not found: ${id}`);
  if (!model.endpoints.has(endpoint)) throw badRequest(`model ${id} does not support ${ENDPOINT_PATHS[endpoint]}`);
  if (!isModelAvailable(catalog, model)) throw new HttpError(503, `model ${id} is not available`, NO_CLIENT_RETRY);
  return model;
}
