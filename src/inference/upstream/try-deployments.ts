import type { ModelConfig } from '../../config/catalog.ts';
import type { UpstreamTarget } from './create-upstreams.ts';
import { UpstreamError } from './upstream-error.ts';

/**
 * Tries a model's deployments in catalog order: unconfigured ones are skipped, a retryable
 * UpstreamError moves on to the next, anything else (a request error, the caller's abort) ends it.
 * When every deployment failed, the last failure is thrown; a model with no configured
 * deployment is 503 `model <id> is not available`.
 *
 * Works for streams too: `chatStream` resolves only once output started, so a stream that fails
 * before its first token still falls back.
 */
export async function tryDeployments<T>(
  model: ModelConfig,
  attempt: (target: UpstreamTarget) => Promise<T>,
): Promise<{ readonly result: T; readonly target: UpstreamTarget }> {
  let last: UpstreamError | null = null;
  for (const deployment of model.deployments) {
    if (!deployment.provider.configured) continue;
    const target = { model, deployment };
    try {
      return { result: await attempt(target), target };
    } catch (e) {
      if (!(e instanceof UpstreamError) || !e.retryable) throw e;
      last = e;
    }
  }
  throw last ?? new UpstreamError(503, `model ${model.id} is not available`, false);
}
