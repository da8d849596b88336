import { Value } from 'typebox/value';
import { CatalogFile, type ModelEntry, type ProviderEntry } from './catalog-schema.ts';
import { ConfigError } from './config-error.ts';
import { parseDecimalUnits } from './decimal.ts';

/** `demo` is never written in a catalog file: see withDemoUpstream. */
export type ProviderType = ProviderEntry['type'] | 'demo';
export type ModelType = ModelEntry['type'];
export type Endpoint =
  | 'chat.completions'
  | 'completions'
  | 'responses'
  | 'messages'
  | 'embeddings'
  | 'rerank'
  | 'images.generations';

const ALL_ENDPOINTS: readonly Endpoint[] = [
  'chat.completions', 'completions', 'responses', 'messages', 'embeddings', 'rerank', 'images.generations',
];

const DEFAULT_ENDPOINTS: Record<ModelType, Endpoint[]> = {
  chat: ['chat.completions', 'completions', 'responses', 'messages'],
  embedding: ['embeddings'],
  rerank: ['rerank'],
  image: ['images.generations'],
};

/** Which provider types can serve which model types. */
const SERVES: Record<ModelType, ProviderType[]> = {
  chat: ['openai', 'anthropic'],
  embedding: ['openai'],
  rerank: ['rerank'],
  image: ['images', 'openai'],
};

export interface ProviderConfig {
  readonly id: string;
  readonly type: ProviderType;
  readonly baseUrl: string;
  readonly apiKey: string | null;
  /** False when its base URL or key resolved to nothing: its models answer 503. */
  readonly configured: boolean;
  /** A non-streamed answer must arrive whole within this (and headers of a stream, at most). */
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  /** A stream whose first content has not arrived by then fails over to the next deployment. */
  readonly firstByteTimeoutMs: number;
  /** A started stream silent this long ends with an error event. */
  readonly idleTimeoutMs: number;
  readonly connections: number;
}

/** Micro-credits per 1,000 tokens (1 credit = 1,000,000 micro-credits), or per image. */
export interface ModelPricing {
  readonly input: bigint;
  readonly cachedInput: bigint;
  readonly output: bigint;
  readonly perImage: bigint;
}

export interface ModelCapabilities {
  readonly vision: boolean;
  readonly tools: boolean;
  readonly jsonOutput: boolean;
  readonly streaming: boolean;
  readonly reasoning: boolean;
}

export interface Deployment {
  readonly provider: ProviderConfig;
  readonly model: string;
  /** `provider/model`: the deployment's identity for balancing, breakers, metrics. */
  readonly key: string;
  /** Share of traffic among deployments of the same priority. */
  readonly weight: number;
  /** Lower is tried first; deployments of one priority are balanced. Defaults to catalog order. */
  readonly priority: number;
  /**
   * The upstream model takes reasoning parameters (`reasoning_effort`, Anthropic `thinking`) and
   * reasoning blocks in history. A deployment without it gets the request without them, so a
   * fallback to a model without reasoning answers instead of refusing the parameter. Defaults to
   * the brand model's `capabilities.reasoning`.
   */
  readonly reasoning: boolean;
}

export interface ModelConfig {
  readonly id: string;
  readonly type: ModelType;
  readonly description: string;
  readonly context: number | null;
  readonly maxOutput: number | null;
  /**
   * Embedding models: the length of their vectors and the most `dimensions` a request may ask
   * (DEFAULT_EMBEDDING_DIMENSIONS unless the catalog says); null for the other types.
   */
  readonly dimensions: number | null;
  readonly pricing: ModelPricing;
  readonly endpoints: ReadonlySet<Endpoint>;
  readonly capabilities: ModelCapabilities;
  readonly deployments: readonly Deployment[];
  /** Lane -> executor brand models in order (the first available serves, the next is its fallback). */
  readonly pipeline: Readonly<Record<string, readonly string[]>> | null;
}

/** OpenAI's text-embedding-3-small, the shipped embedding upstream (text-embedding-3-large gives 3072). */
export const DEFAULT_EMBEDDING_DIMENSIONS = 1536;

/**
 * The lanes a pipeline may name. They mirror the lane classifier's lanes (src/inference/routing,
 * checked by a test there); configuration cannot import the gateway, so they are repeated here.
 */
export const PIPELINE_LANES = ['vision', 'agent', 'code', 'math', 'multilingual', 'general'] as const;

/** One svc-auto rule: when every condition given holds, only `use` may serve (if one can). */
export interface AutoRule {
  readonly lanes: readonly string[] | null;
  readonly images: boolean | null;
  readonly tools: boolean | null;
  readonly structuredOutput: boolean | null;
  /** Whether the request asks for reasoning (an effort other than `none`, or a thinking budget). */
  readonly reasoning: boolean | null;
  readonly minInputTokens: number | null;
  readonly minOutputTokens: number | null;
  readonly use: readonly string[];
}

export interface AutoRouter {
  /** The brand models svc-auto chooses from. */
  readonly candidates: readonly string[];
  /** First match wins; none matching leaves every candidate. */
  readonly rules: readonly AutoRule[];
}

/** Retries, fallbacks and circuit breakers of every upstream call (docs/routing.md). */
export interface ResilienceSettings {
  /** Retries on the same deployment after a retryable failure, before moving on. */
  readonly maxRetries: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** A 429's retry-after is waited up to this; a longer one moves on to the next deployment. */
  readonly retryAfterCapMs: number;
  /** Upstream calls one request may make, over every deployment and executor. */
  readonly maxAttempts: number;
  /** Time one request may spend before its answer starts, over every attempt. */
  readonly maxTotalMs: number;
  readonly breaker: {
    readonly consecutiveFailures: number;
    readonly failureRatio: number;
    readonly minRequests: number;
    readonly windowMs: number;
    readonly cooldownMs: number;
    /** How often an instance reads the breakers other instances opened (with Redis). */
    readonly syncIntervalMs: number;
  };
}

export interface Catalog {
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  readonly models: ReadonlyMap<string, ModelConfig>;
  readonly auto: AutoRouter | null;
  /** The brand model serving chat requests that name no `model` (the budget default), or null. */
  readonly defaultModel: string | null;
  readonly resilience: ResilienceSettings;
  /** True when the built-in demo provider serves every model (see withDemoUpstream). */
  readonly demo: boolean;
}

/** `${VAR}` and `${VAR:-default}`; an unset variable without default becomes ''. */
export function substituteEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def?: string) => {
    const v = env[name];
    return v !== undefined && v !== '' ? v : (def ?? '');
  });
}

function jsonPointerToKey(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
}

function validateShape(raw: unknown): CatalogFile {
  if (Value.Check(CatalogFile, raw)) return raw;
  const errors = [...Value.Errors(CatalogFile, raw)];
  const extra = errors.find((e) => e.keyword === 'additionalProperties');
  if (extra) {
    const names = (extra.params as { additionalProperties?: string[] }).additionalProperties ?? [];
    const at = jsonPointerToKey(extra.instancePath);
    const key = at ? `${at}.${names[0] ?? '?'}` : (names[0] ?? '?');
    throw new ConfigError(`CONFIG_FILE ${key}`, `unknown key ${names.map((n) => JSON.stringify(n)).join(', ')}`);
  }
  const first = errors.find((e) => e.keyword !== 'boolean' && e.keyword !== 'anyOf') ?? errors[0]!;
  throw new ConfigError(`CONFIG_FILE ${jsonPointerToKey(first.instancePath) || '(root)'}`, first.message);
}

export function buildCatalog(raw: unknown, env: NodeJS.ProcessEnv): Catalog {
  const file = validateShape(raw ?? {});
  const providers = new Map<string, ProviderConfig>();
  (file.providers ?? []).forEach((p, i) => {
    const key = `CONFIG_FILE providers[${i}]`;
    if (providers.has(p.id)) throw new ConfigError(`${key}.id`, `duplicate provider id ${p.id}`);
    const baseUrl = substituteEnv(p.base_url, env).replace(/\/+$/, '');
    const apiKey = p.api_key === undefined ? null : substituteEnv(p.api_key, env);
    if (baseUrl !== '') {
      try {
        const u = new URL(baseUrl);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      } catch {
        throw new ConfigError(`${key}.base_url`, `not an http(s) URL: ${baseUrl}`);
      }
    }
    const timeoutMs = p.timeout_ms ?? 120_000;
    providers.set(p.id, {
      id: p.id,
      type: p.type,
      baseUrl,
      apiKey: apiKey === '' ? null : apiKey,
      configured: baseUrl !== '' && apiKey !== '',
      timeoutMs,
      connectTimeoutMs: p.connect_timeout_ms ?? Math.min(10_000, timeoutMs),
      firstByteTimeoutMs: p.first_byte_timeout_ms ?? timeoutMs,
      idleTimeoutMs: p.idle_timeout_ms ?? timeoutMs,
      connections: p.connections ?? 128,
    });
  });

  const models = new Map<string, ModelConfig>();
  file.models.forEach((m, i) => {
    const key = `CONFIG_FILE models[${i}]`;
    if (models.has(m.id)) throw new ConfigError(`${key}.id`, `duplicate model id ${m.id}`);
    const endpoints = new Set<Endpoint>();
    for (const e of m.endpoints ?? DEFAULT_ENDPOINTS[m.type]) {
      if (!ALL_ENDPOINTS.includes(e as Endpoint)) {
        throw new ConfigError(`${key}.endpoints`, `unknown endpoint ${e}; expected one of ${ALL_ENDPOINTS.join(', ')}`);
      }
      endpoints.add(e as Endpoint);
    }
    const price = (field: 'input' | 'cached_input' | 'output' | 'per_image'): bigint => {
      const v = m.pricing?.[field];
      return v === undefined ? 0n : parseDecimalUnits(v, 6, `${key}.pricing.${field}`);
    };
    const input = price('input');
    const pricing: ModelPricing = {
      input,
      cachedInput: m.pricing?.cached_input === undefined ? input : price('cached_input'),
      output: price('output'),
      perImage: price('per_image'),
    };
    const c = m.capabilities ?? {};
    const reasoning = c.reasoning ?? false;
    const deployments = (m.deployments ?? []).map((d, j): Deployment => {
      const p = providers.get(d.provider);
      if (!p) throw new ConfigError(`${key}.deployments[${j}].provider`, `unknown provider ${d.provider}`);
      if (!SERVES[m.type].includes(p.type)) {
        throw new ConfigError(`${key}.deployments[${j}].provider`, `a ${p.type} provider cannot serve a ${m.type} model`);
      }
      const model = substituteEnv(d.model, env);
      return { provider: p, model, key: `${p.id}/${model}`, weight: d.weight ?? 1, priority: d.priority ?? j, reasoning: d.reasoning ?? reasoning };
    });
    if (m.pipeline && m.type !== 'chat') throw new ConfigError(`${key}.pipeline`, 'only chat models have pipelines');
    if (m.dimensions !== undefined && m.type !== 'embedding') throw new ConfigError(`${key}.dimensions`, 'only embedding models have dimensions');
    if (!m.pipeline && deployments.length === 0 && m.id !== 'svc-auto') {
      throw new ConfigError(`${key}.deployments`, 'a model needs deployments or a pipeline');
    }
    models.set(m.id, {
      id: m.id,
      type: m.type,
      description: m.description ?? '',
      context: m.context ?? null,
      maxOutput: m.max_output ?? null,
      dimensions: m.type === 'embedding' ? (m.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS) : null,
      pricing,
      endpoints,
      capabilities: {
        vision: c.vision ?? false,
        tools: c.tools ?? m.type === 'chat',
        jsonOutput: c.json_output ?? m.type === 'chat',
        streaming: c.streaming ?? m.type === 'chat',
        reasoning,
      },
      deployments,
      pipeline: m.pipeline
        ? Object.fromEntries(Object.entries(m.pipeline).map(([lane, ids]) => [lane, typeof ids === 'string' ? [ids] : ids]))
        : null,
    });
  });

  const servesItself = (id: string) => {
    const t = models.get(id);
    return t !== undefined && t.type === 'chat' && t.pipeline === null && t.deployments.length > 0;
  };
  file.models.forEach((m, i) => {
    const pipeline = models.get(m.id)!.pipeline;
    if (!pipeline) return;
    const key = `CONFIG_FILE models[${i}].pipeline`;
    if (!pipeline.general) throw new ConfigError(key, 'a pipeline needs a general lane (requests of lanes it does not list go there)');
    for (const [lane, targets] of Object.entries(pipeline)) {
      if (!(PIPELINE_LANES as readonly string[]).includes(lane)) {
        throw new ConfigError(`${key}.${lane}`, `unknown lane; expected one of ${PIPELINE_LANES.join(', ')}`);
      }
      for (const target of targets) {
        if (!servesItself(target)) throw new ConfigError(`${key}.${lane}`, `${target} is not a chat model with deployments`);
      }
    }
    // A pipeline takes images when one of its executors sees them, unless the catalog says otherwise.
    if (m.capabilities?.vision === undefined) {
      const model = models.get(m.id)!;
      const vision = Object.values(pipeline).flat().some((id) => models.get(id)!.capabilities.vision);
      models.set(m.id, { ...model, capabilities: { ...model.capabilities, vision } });
    }
  });

  if (models.get('svc-auto')?.deployments.length === 0 && !models.get('svc-auto')?.pipeline && !file.auto) {
    throw new ConfigError('CONFIG_FILE auto', 'svc-auto needs the auto section (its candidates)');
  }
  return {
    providers,
    models,
    auto: file.auto ? buildAutoRouter(file.auto, servesItself) : null,
    defaultModel: buildDefaultModel(file.default_model, models),
    resilience: buildResilience(file.resilience),
    demo: false,
  };
}

function buildAutoRouter(raw: NonNullable<CatalogFile['auto']>, servesItself: (id: string) => boolean): AutoRouter {
  for (const id of raw.candidates) {
    if (!servesItself(id)) throw new ConfigError('CONFIG_FILE auto.candidates', `${id} is not a chat model with deployments`);
  }
  const rules = (raw.rules ?? []).map((r, i): AutoRule => {
    const key = `CONFIG_FILE auto.rules[${i}]`;
    for (const id of r.use) {
      if (!raw.candidates.includes(id)) throw new ConfigError(`${key}.use`, `${id} is not one of auto.candidates`);
    }
    for (const lane of r.lanes ?? []) {
      if (!(PIPELINE_LANES as readonly string[]).includes(lane)) {
        throw new ConfigError(`${key}.lanes`, `unknown lane ${lane}; expected one of ${PIPELINE_LANES.join(', ')}`);
      }
    }
    return {
      lanes: r.lanes ?? null,
      images: r.images ?? null,
      tools: r.tools ?? null,
      structuredOutput: r.structured_output ?? null,
      reasoning: r.reasoning ?? null,
      minInputTokens: r.min_input_tokens ?? null,
      minOutputTokens: r.min_output_tokens ?? null,
      use: r.use,
    };
  });
  return { candidates: raw.candidates, rules };
}

function buildDefaultModel(id: string | undefined, models: ReadonlyMap<string, ModelConfig>): string | null {
  if (id === undefined) return null;
  const m = models.get(id);
  if (!m || m.type !== 'chat') throw new ConfigError('CONFIG_FILE default_model', `${id} is not a chat model of the catalog`);
  return id;
}

function buildResilience(raw: CatalogFile['resilience']): ResilienceSettings {
  const r = raw ?? {};
  const b = r.breaker ?? {};
  const backoffBaseMs = r.backoff_base_ms ?? 100;
  return {
    maxRetries: r.max_retries ?? 1,
    backoffBaseMs,
    backoffMaxMs: Math.max(backoffBaseMs, r.backoff_max_ms ?? 2000),
    retryAfterCapMs: r.retry_after_cap_ms ?? 5000,
    maxAttempts: r.max_attempts ?? 6,
    maxTotalMs: r.max_total_ms ?? 120_000,
    breaker: {
      consecutiveFailures: b.consecutive_failures ?? 5,
      failureRatio: b.failure_ratio ?? 0.5,
      minRequests: b.min_requests ?? 20,
      windowMs: b.window_ms ?? 60_000,
      cooldownMs: b.cooldown_ms ?? 30_000,
      syncIntervalMs: b.sync_interval_ms ?? 1000,
    },
  };
}

/**
 * When no provider of the catalog is configured, every model with deployments is served by the
 * built-in demo provider instead, so a fresh install answers (marked as a demo) before anyone owns
 * an upstream key. One configured provider turns it off for all models: a real catalog never
 * mixes demo answers with real ones.
 */
export function withDemoUpstream(catalog: Catalog): Catalog {
  if ([...catalog.providers.values()].some((p) => p.configured)) return catalog;
  const demo: ProviderConfig = { id: 'svc-demo', type: 'demo', baseUrl: '', apiKey: null, configured: true, timeoutMs: 120_000, connections: 1,
    connectTimeoutMs: 10_000, firstByteTimeoutMs: 120_000, idleTimeoutMs: 120_000,
  };
  const models = new Map<string, ModelConfig>();
  for (const [id, m] of catalog.models) {
    models.set(id, m.deployments.length === 0 ? m : { ...m, deployments: [{ provider: demo, model: m.id, key: `${demo.id}/${m.id}`, weight: 1, priority: 0, reasoning: true }] });
  }
  return { ...catalog, providers: new Map([...catalog.providers, [demo.id, demo]]), models, demo: true };
}
