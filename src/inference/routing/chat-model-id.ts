import type { Catalog } from '../../config/catalog.ts';
import { badRequest } from '../../shared/errors.ts';

/**
 * The model a chat request is served by: the one it names, or, when it names none, the catalog's
 * budget default (`default_model`, svc-shiplow as shipped). Without a default the field is
 * required, as OpenAI's own API has it. Every chat protocol's route calls this before resolving
 * the model (chat completions, completions, messages, responses).
 */
export function chatModelId(catalog: Catalog, named: string | undefined): string {
  if (named !== undefined) return named;
  if (catalog.defaultModel !== null) return catalog.defaultModel;
  throw badRequest('model: is required');
}
