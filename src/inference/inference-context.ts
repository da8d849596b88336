import type { ApiKeyService } from '../accounts/api-key.service.ts';
import type { Catalog, Endpoint, ModelConfig } from '../config/catalog.ts';
import type { Clock } from '../shared/clock.ts';
import type { Billing } from './billing/billing.ts';
import type { ReasoningSealer } from './formats/reasoning-content.ts';
import { createAuthenticate, type AuthenticateOptions, type InferenceHook } from './http/authenticate.ts';
import { createLimitRate, createShowRate, type InferenceLimiters, type RateKind } from './http/limit-rate.ts';
import { resolveModel } from './http/resolve-model.ts';
import { createReasoningSealers } from './reasoning-sealer.ts';
import type { Upstreams } from './upstream/create-upstreams.ts';

/**
 * What every inference route needs, built once per app from its deps. The checks of every
 * inference request (docs/inference-endpoints.md) map onto it in order:
 *   onRequest: guard(kind[, { allowXApiKey }])   401 key, 403 email, 429 rate (headers always)
 *   body schema / handler                        400 request shape
 *   resolveModel(id, endpoint)                   404 / 400 / 503
 *   billing.reserve(...)                         402
 */
export interface InferenceContext {
  readonly catalog: Catalog;
  readonly billing: Billing;
  readonly clock: Clock;
  /** The upstream calls (pools to every configured provider). */
  readonly upstreams: Upstreams;
  /** 401 `unauthorized` / 403 `please verify your email first`; sets principalOf(request). */
  readonly authenticate: (opts?: AuthenticateOptions) => InferenceHook;
  /** 429 `rate limit exceeded — try again in a minute`, with the x-ratelimit-* headers. */
  readonly limitRate: (kind: RateKind) => InferenceHook;
  /** The x-ratelimit-* headers without spending the budget. */
  readonly showRate: (kind: RateKind) => InferenceHook;
  /** authenticate + limitRate, for a route's `onRequest` (before the body is parsed). */
  readonly guard: (kind: RateKind, opts?: AuthenticateOptions) => InferenceHook[];
  readonly resolveModel: (id: string, endpoint: Endpoint) => ModelConfig;
  /** Seals and opens the account's reasoning tokens (reasoning items, reasoning_details). */
  readonly reasoningSealer: (accountId: number) => ReasoningSealer;
}

/** What the gateway is built from; the composition root passes it in. */
export interface InferenceContextDeps {
  readonly catalog: Catalog;
  /** One per process: it owns the credit leases (deps.billing). */
  readonly billing: Billing;
  readonly clock: Clock;
  readonly apiKeys: ApiKeyService;
  readonly limiters: InferenceLimiters;
  readonly upstreams: Upstreams;
  /** The instance secret (SECRETS_KEY, shared by the instances of one database); reasoning tokens are sealed under a sub-key of it. */
  readonly secretsKey: Buffer;
  /** The keys it replaced (SECRETS_KEY_PREVIOUS): tokens they sealed still open, so a rotation strands no client. */
  readonly previousSecretsKeys?: readonly Buffer[];
}

export function createInferenceContext(deps: InferenceContextDeps): InferenceContext {
  const authenticate = createAuthenticate(deps.apiKeys);
  const limitRate = createLimitRate(deps.limiters);
  const catalog = deps.catalog;
  return {
    catalog,
    billing: deps.billing,
    clock: deps.clock,
    upstreams: deps.upstreams,
    authenticate,
    limitRate,
    showRate: createShowRate(deps.limiters),
    guard: (kind, opts) => [authenticate(opts), limitRate(kind)],
    resolveModel: (id, endpoint) => resolveModel(catalog, id, endpoint),
    reasoningSealer: createReasoningSealers(deps.secretsKey, deps.previousSecretsKeys),
  };
}
