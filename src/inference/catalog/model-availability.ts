import type { Catalog, ModelConfig } from '../../config/catalog.ts';

/**
 * Whether a model can answer now: one of its deployments has a configured provider. A pipeline
 * is available when one of its lanes' models is (the lane step falls back to an available lane);
 * svc-auto when one of its candidates is.
 */
export function isModelAvailable(catalog: Catalog, model: ModelConfig, seen: ReadonlySet<string> = new Set()): boolean {
  if (seen.has(model.id)) return false;
  if (model.deployments.some((d) => d.provider.configured)) return true;
  const next = new Set(seen).add(model.id);
  const targets = model.pipeline
    ? Object.values(model.pipeline).flat()
    : model.deployments.length === 0 && catalog.auto && model.id === 'svc-auto'
      ? catalog.auto.candidates
      : [];
  return targets.some((id) => {
    const t = catalog.models.get(id);
    return t !== undefined && isModelAvailable(catalog, t, next);
  });
}
