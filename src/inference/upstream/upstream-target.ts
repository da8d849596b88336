import type { Deployment, ModelConfig } from '../../config/catalog.ts';

/** Which brand model is being served, and by which of its deployments. */
export interface UpstreamTarget {
  readonly model: ModelConfig;
  readonly deployment: Deployment;
}
