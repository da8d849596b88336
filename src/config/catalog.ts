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
  readonly timeoutMs: number;
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
}

export interface ModelConfig {
  readonly id: string;
  readonly type: ModelType;
  readonly description: string;
  readonly context: number | null;
  readonly maxOutput: number | null;
  readonly pricing: ModelPricing;
  readonly endpoints: ReadonlySet<Endpoint>;
  readonly capabilities: ModelCapabilities;
  readonly deployments: readonly Deployment[];
  /** Lane name -> brand model id, for multi-agent pipelines. */
  readonly pipeline: Readonly<Record<string, string>> | null;
}

export interface Catalog {
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  readonly models: ReadonlyMap<string, ModelConfig>;
  readonly auto: { readonly candidates: readonly string[]; readonly default: string } | null;
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
    providers.set(p.id, {
      id: p.id,
      type: p.type,
      baseUrl,
      apiKey: apiKey === '' ? null : apiKey,
      configured: baseUrl !== '' && apiKey !== '',
      timeoutMs: p.timeout_ms ?? 120_000,
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
    const deployments = (m.deployments ?? []).map((d, j) => {
      const p = providers.get(d.provider);
      if (!p) throw new ConfigError(`${key}.deployments[${j}].provider`, `unknown provider ${d.provider}`);
      if (!SERVES[m.type].includes(p.type)) {
        throw new ConfigError(`${key}.deployments[${j}].provider`, `a ${p.type} provider cannot serve a ${m.type} model`);
      }
      return { provider: p, model: substituteEnv(d.model, env) };
    });
    if (m.pipeline && m.type !== 'chat') throw new ConfigError(`${key}.pipeline`, 'only chat models have pipelines');
    if (!m.pipeline && deployments.length === 0 && m.id !== 'svc-auto') {
      throw new ConfigError(`${key}.deployments`, 'a model needs deployments or a pipeline');
    }
    const c = m.capabilities ?? {};
    models.set(m.id, {
      id: m.id,
      type: m.type,
      description: m.description ?? '',
      context: m.context ?? null,
      maxOutput: m.max_output ?? null,
      pricing,
      endpoints,
      capabilities: {
        vision: c.vision ?? false,
        tools: c.tools ?? m.type === 'chat',
        jsonOutput: c.json_output ?? m.type === 'chat',
        streaming: c.streaming ?? m.type === 'chat',
        reasoning: c.reasoning ?? false,
      },
      deployments,
      pipeline: m.pipeline ?? null,
    });
  });

  file.models.forEach((m, i) => {
    for (const [lane, target] of Object.entries(m.pipeline ?? {})) {
      const t = models.get(target);
      if (!t || t.type !== 'chat' || t.pipeline) {
        throw new ConfigError(`CONFIG_FILE models[${i}].pipeline.${lane}`, `${target} is not a chat model with deployments`);
      }
    }
  });

  let auto: Catalog['auto'] = null;
  if (file.auto) {
    for (const id of [...file.auto.candidates, file.auto.default]) {
      if (models.get(id)?.type !== 'chat') throw new ConfigError('CONFIG_FILE auto', `${id} is not a chat model`);
    }
    auto = { candidates: file.auto.candidates, default: file.auto.default };
  }
  return { providers, models, auto, demo: false };
}

/**
 * When no provider of the catalog is configured, every model with deployments is served by the
 * built-in demo provider instead, so a fresh install answers (marked as a demo) before anyone owns
 * an upstream key. One configured provider turns it off for all models: a real catalog never
 * mixes demo answers with real ones.
 */
export function withDemoUpstream(catalog: Catalog): Catalog {
  if ([...catalog.providers.values()].some((p) => p.configured)) return catalog;
  const demo: ProviderConfig = { id: 'svc-demo', type: 'demo', baseUrl: '', apiKey: null, configured: true, timeoutMs: 120_000, connections: 1 };
  const models = new Map<string, ModelConfig>();
  for (const [id, m] of catalog.models) {
    models.set(id, m.deployments.length === 0 ? m : { ...m, deployments: [{ provider: demo, model: m.id }] });
  }
  return { ...catalog, providers: new Map([...catalog.providers, [demo.id, demo]]), models, demo: true };
}
