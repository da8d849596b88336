import { creditsNumber } from '../../accounts/credits.amount.ts';
import type { Catalog, ModelConfig } from '../../config/catalog.ts';
import { ENDPOINT_PATHS } from './endpoint-paths.ts';
import { isModelAvailable } from './model-availability.ts';

/**
 * `created` of every listed model: the catalog has no per-model dates, and a constant keeps the
 * answer identical across instances and restarts (2026-11-25T00:00:00Z, the catalog's release).
 */
export const CATALOG_CREATED = 1795564800;

/** CATALOG_CREATED as RFC 3339, the form of `created_at` in Anthropic's model objects. */
export const CATALOG_CREATED_AT = new Date(CATALOG_CREATED * 1000).toISOString().replace('.000Z', 'Z');

/**
 * A chat model as both SDKs read it: OpenAI's model object (`object`, `created`, `owned_by`) and
 * Anthropic's (`type`, `display_name`, `created_at`), since the list is served at the
 * messages-style base too, where the Anthropic SDK reads it (docs/api-decisions.md, "Inference:
 * seventh audit"). The display name is the brand id: no other name is public.
 */
export interface ModelListItem {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'svc';
  type: 'model';
  display_name: string;
  created_at: string;
}

/** OpenAI's list shape plus Anthropic's page fields: one page holding every chat model. */
export interface ModelList {
  object: 'list';
  data: ModelListItem[];
  has_more: false;
  first_id: string | null;
  last_id: string | null;
}

/** GET /v1/models: the chat models, brand ids only. */
export function listChatModels(catalog: Catalog): ModelList {
  const data = [...catalog.models.values()]
    .filter((m) => m.type === 'chat')
    .map((m) => ({
      id: m.id,
      object: 'model' as const,
      created: CATALOG_CREATED,
      owned_by: 'svc' as const,
      type: 'model' as const,
      display_name: m.id,
      created_at: CATALOG_CREATED_AT,
    }));
  return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export interface AvailableModel {
  id: string;
  object: 'model';
  type: ModelConfig['type'];
  description: string;
  context_length: number | null;
  max_output_tokens: number | null;
  /** The same two limits under the catalog file's names (`context`, `max_output`). */
  context: number | null;
  max_output: number | null;
  /** Embedding models: the length of their vectors, the most `dimensions` may ask; null for the others. */
  dimensions: number | null;
  endpoints: string[];
  capabilities: { vision: boolean; tools: boolean; json_output: boolean; streaming: boolean; reasoning: boolean };
  /** Credits per 1K tokens (per image for per_image); null where the model does not bill that. */
  pricing: { input: number | null; cached_input: number | null; output: number | null; per_image: number | null };
  /**
   * null: billed at its own `pricing`. A list (svc-auto): billed at the prices of the model it
   * chooses for each request, one of these (the answer's `model` and `x-svc-model` name it).
   */
  priced_as: string[] | null;
  available: boolean;
}

const isAuto = (catalog: Catalog, m: ModelConfig) => catalog.auto !== null && m.type === 'chat' && m.pipeline === null && m.deployments.length === 0;

function pricingOf(catalog: Catalog, m: ModelConfig): AvailableModel['pricing'] {
  if (isAuto(catalog, m)) return { input: null, cached_input: null, output: null, per_image: null };
  const p = m.pricing;
  const tokens = m.type !== 'image';
  return {
    input: tokens ? creditsNumber(p.input) : null,
    cached_input: m.type === 'chat' ? creditsNumber(p.cachedInput) : null,
    output: m.type === 'chat' ? creditsNumber(p.output) : null,
    per_image: m.type === 'image' ? creditsNumber(p.perImage) : null,
  };
}

/** GET /v1/available-models: every model with what it does, what it costs and whether it runs now. */
export function describeModels(catalog: Catalog): { object: 'list'; data: AvailableModel[] } {
  const data = [...catalog.models.values()].map((m) => ({
    id: m.id,
    object: 'model' as const,
    type: m.type,
    description: m.description,
    context_length: m.context,
    max_output_tokens: m.maxOutput,
    context: m.context,
    max_output: m.maxOutput,
    dimensions: m.dimensions,
    endpoints: [...m.endpoints].map((e) => ENDPOINT_PATHS[e]),
    capabilities: {
      vision: m.capabilities.vision,
      tools: m.capabilities.tools,
      json_output: m.capabilities.jsonOutput,
      streaming: m.capabilities.streaming,
      reasoning: m.capabilities.reasoning,
    },
    pricing: pricingOf(catalog, m),
    priced_as: isAuto(catalog, m) ? [...catalog.auto!.candidates] : null,
    available: isModelAvailable(catalog, m),
  }));
  return { object: 'list', data };
}
