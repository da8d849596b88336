import { Cancellation, type CancelSignal } from '../../shared/cancel-signal.ts';
import type { Deployment, ModelConfig, ResilienceSettings } from '../../config/catalog.ts';
import type { UpstreamTarget } from './upstream-target.ts';
import type { CallOutcome, DeploymentHealth } from './deployment-health.ts';
import { UpstreamError } from './upstream-error.ts';

export interface FallbackDeps {
  readonly settings: ResilienceSettings;
  readonly health: DeploymentHealth;
  readonly now: () => number;
  /** [0, 1): jitter and the weighted choice among equals. */
  readonly random: () => number;
}

/** How an upstream call's failure counts for the breaker and the metrics. */
export function classifyFailure(error: UpstreamError): CallOutcome {
  if (!error.retryable) return 'client_error';
  const { upstreamStatus, network } = error.detail;
  if (network === 'connection') return 'connection';
  if (network === 'timeout' || upstreamStatus === 408 || upstreamStatus === 504) return 'timeout';
  if (upstreamStatus === 429) return 'rate_limited';
  if (upstreamStatus === 401 || upstreamStatus === 403 || upstreamStatus === 404) return 'refused';
  return 'server_error';
}

/**
 * The order a model's deployments are tried in: configured ones, by priority; within one
 * priority, fewest calls in flight per unit of weight first, ties broken by a draw weighted by
 * `weight` (so equal, idle deployments share traffic by weight).
 */
export function orderDeployments(deployments: readonly Deployment[], health: DeploymentHealth, random: () => number): readonly Deployment[] {
  // A model served by one deployment (most of them) has no order to choose.
  if (deployments.length === 1) return deployments[0]!.provider.configured ? deployments : [];
  const scored = deployments
    .filter((d) => d.provider.configured)
    .map((d) => ({ d, load: health.inFlight(d) / d.weight, draw: random() ** (1 / d.weight) }));
  // random()^(1/w), highest first, is a weighted draw without replacement (Efraimidis-Spirakis).
  scored.sort((a, b) => a.d.priority - b.d.priority || a.load - b.load || b.draw - a.draw);
  return scored.map((x) => x.d);
}

/** Full jitter: a random wait up to base * 2^retry, capped. */
export function backoffMs(retry: number, settings: ResilienceSettings, random: () => number): number {
  return Math.floor(random() * Math.min(settings.backoffMaxMs, settings.backoffBaseMs * 2 ** retry));
}

function sleep(ms: number, signal: CancelSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The request's time budget ran out while a call was in flight: that call is cut and the request ends. */
export function budgetExhausted(): UpstreamError {
  return new UpstreamError(504, 'no upstream answered within the time the request may take', true, {
    upstreamStatus: null,
    upstreamMessage: 'max_total_ms ran out during the call',
    network: 'timeout',
  });
}

/**
 * One request's time budget (`max_total_ms`), shared by every model call the request makes: a
 * `/v1/responses` request with MCP tools makes one per tool round, and the client waits for all
 * of them (and the tool calls between them) before its answer. It starts at the request's first
 * call; each later call gets what is left.
 */
export interface RequestBudget {
  startedAt: number | null;
}

/**
 * The signal one call runs under: the caller's, plus the request's deadline when the budget left is
 * shorter than the call's own timeouts (otherwise those fire first, and the call needs nothing of
 * its own: the usual case, at no cost). The deadline is disarmed once the call resolves, so a
 * stream that has started is never cut by it; its signal still follows the caller's.
 */
function attemptSignal(deployment: Deployment, leftMs: number, signal: CancelSignal | undefined): { signal: CancelSignal | undefined; disarm: () => void } {
  const { timeoutMs, firstByteTimeoutMs } = deployment.provider;
  if (leftMs >= Math.max(timeoutMs, firstByteTimeoutMs)) return { signal, disarm: noop };
  const attempt = new Cancellation();
  const timer = setTimeout(() => attempt.abort(budgetExhausted()), leftMs);
  const follow = () => attempt.abort(signal!.reason);
  if (signal?.aborted) attempt.abort(signal.reason);
  else signal?.addEventListener('abort', follow, { once: true });
  return { signal: attempt, disarm: () => clearTimeout(timer) };
}

function noop(): void {}

/**
 * How many deployments after `order[i]` of `models[m]` the chain would still call (configured,
 * breaker letting calls through, not `tried`, each once).
 */
function untriedAfter(health: DeploymentHealth, models: readonly ModelConfig[], m: number, order: readonly Deployment[], i: number, tried: ReadonlySet<string> | null): number {
  const ahead = new Set<string>();
  const count = (d: Deployment) => {
    if (d.provider.configured && !tried?.has(d.key) && health.takesCalls(d)) ahead.add(d.key);
  };
  for (let j = i + 1; j < order.length; j++) count(order[j]!);
  for (let k = m + 1; k < models.length; k++) for (const d of models[k]!.deployments) count(d);
  return ahead.size;
}

/**
 * One upstream call made resiliently over a chain of models (a pipeline lane's executors, or one
 * model): each model's deployments in balanced order, breakers skipped; a retryable failure is
 * retried on the same deployment after an exponential backoff with full jitter (a 429's
 * retry-after instead, when it is within the cap; a longer one moves on at once), up to
 * `max_retries`, then the next deployment, then the next model; a deployment (`key`) is called
 * under one model of the chain only, the first that has it. The whole chain shares one budget:
 * `max_attempts` calls and `max_total_ms`, a deadline that cuts the call in flight (until a stream's
 * first content: one that has started is not cut); a retry is made only while the budget still leaves one
 * call for every deployment further down the chain, so retries never keep a fallback from being
 * tried (the trap of gateways whose rotation was capped by the retry count). `max_total_ms` runs
 * from the first call of the request (`budget`, shared by its calls); `max_attempts` counts this
 * call's attempts. A request error (400, 413) or the caller's abort ends
 * it at once. When everything failed the last failure is thrown; when nothing could be tried
 * (breakers open, nothing configured) 503 `model <id> is not available`.
 *
 * Streams: `call` resolves once output started, so a stream failing before its first content is
 * retried and falls back like any call; after that nothing is retried (the client has bytes).
 */
export async function runWithFallback<T>(
  deps: FallbackDeps,
  models: readonly ModelConfig[],
  call: (target: UpstreamTarget, signal: CancelSignal | undefined) => Promise<T>,
  signal?: CancelSignal,
  budget: RequestBudget = { startedAt: null },
): Promise<{ readonly result: T; readonly target: UpstreamTarget }> {
  const { settings, health } = deps;
  const started = (budget.startedAt ??= deps.now());
  // An earlier call of the request (and what ran after it) spent the budget: this one never starts.
  if (deps.now() - started >= settings.maxTotalMs) throw budgetExhausted();
  let attempts = 0;
  let last: UpstreamError | null = null;
  // Deployments (`provider/model`) this call already failed on: a later model of the chain that
  // shares one (a pipeline executor after the same brand in a caller's list, two brands over one
  // upstream model) moves past it, as OpenRouter never asks a provider's model twice in a request.
  // Made at the first failure: a call that succeeds at once allocates nothing.
  let tried: Set<string> | null = null;
  const outOfBudget = () => attempts >= settings.maxAttempts || deps.now() - started >= settings.maxTotalMs;

  chain: for (let m = 0; m < models.length; m++) {
    const order = orderDeployments(models[m]!.deployments, health, deps.random);
    for (let i = 0; i < order.length; i++) {
      const model = models[m]!;
      const deployment = order[i]!;
      if (tried?.has(deployment.key)) continue;
      for (let retry = 0; retry <= settings.maxRetries; retry++) {
        if (outOfBudget()) break chain;
        if (!health.admits(deployment)) break;
        attempts++;
        const end = health.begin(deployment);
        const attempt = attemptSignal(deployment, settings.maxTotalMs - (deps.now() - started), signal);
        try {
          const result = await call({ model, deployment }, attempt.signal);
          end('success');
          return { result, target: { model, deployment } };
        } catch (e) {
          if (signal?.aborted || !(e instanceof UpstreamError)) {
            end('aborted');
            throw e;
          }
          // A call the budget cut counts as a timeout: a deployment that always stalls past the
          // budget must still open its breaker.
          end(classifyFailure(e));
          if (!e.retryable || attempt.signal?.aborted) throw e;
          last = e;
          (tried ??= new Set()).add(deployment.key);
        } finally {
          attempt.disarm();
        }
        if (retry === settings.maxRetries) break;
        // A retry here must not take the call a deployment further down the chain would get.
        if (settings.maxAttempts - attempts <= untriedAfter(health, models, m, order, i, tried)) break;
        const retryAfter = last.detail.retryAfterMs;
        if (retryAfter !== undefined && retryAfter > settings.retryAfterCapMs) break;
        const wait = retryAfter ?? backoffMs(retry, settings, deps.random);
        if (deps.now() - started + wait >= settings.maxTotalMs) break;
        await sleep(wait, signal);
      }
    }
  }
  throw last ?? new UpstreamError(503, `model ${models[0]?.id ?? 'unknown'} is not available`, true);
}
