import { needsVision } from '../canonical/documents.ts';
import type { ModelConfig } from '../../config/catalog.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { badRequest } from '../../shared/errors.ts';
import { chatInputExceeds, someTextExceeds } from '../tokens/count-tokens.ts';

export interface ChatFieldNames {
  /** The field the client gave its output cap in (`max_tokens` or `max_completion_tokens`). */
  readonly maxTokens: string;
}

/**
 * What a chat request asks of the model it names, checked after the model is resolved (the
 * capabilities and limits are the model's): image parts only for vision models, `max_tokens` up
 * to the model's max output, tools, JSON output and streaming only where the model has them.
 * Every refusal is a 400 naming the field.
 */
export function checkModelFeatures(model: ModelConfig, request: CanonicalChatRequest, fields: ChatFieldNames): void {
  if (!model.capabilities.vision) {
    request.messages.forEach((m, i) => {
      if (m.role === 'tool') {
        // A tool's result may carry images (a screenshot tool); the upstream would get them all the
        // same (docs/api-decisions.md, "Inference: thirteenth audit").
        if (m.parts?.some((p) => p.type === 'image')) throw badRequest(`messages[${i}]: model ${model.id} does not accept images in tool results`);
        if (m.parts?.some(needsVision)) throw badRequest(`messages[${i}]: model ${model.id} does not accept PDF documents in tool results`);
        return;
      }
      if (m.role !== 'user') return;
      const j = m.content.findIndex((p) => p.type === 'image');
      if (j >= 0) throw badRequest(`messages[${i}].content[${j}]: model ${model.id} does not accept images`);
      // A PDF is read page by page as images: a model that sees takes it (text documents go anywhere).
      const d = m.content.findIndex(needsVision);
      if (d >= 0) throw badRequest(`messages[${i}].content[${d}]: model ${model.id} does not accept PDF documents`);
    });
  }
  if (request.maxTokens !== undefined && model.maxOutput !== null && request.maxTokens > model.maxOutput) {
    throw badRequest(`${fields.maxTokens}: must be <= ${model.maxOutput} for model ${model.id}`);
  }
  if (request.tools.length > 0 && !model.capabilities.tools) {
    throw badRequest(`tools: model ${model.id} does not support tools`);
  }
  if (request.responseFormat && !model.capabilities.jsonOutput) {
    throw badRequest(`response_format: model ${model.id} does not support structured output`);
  }
  if (request.stream && !model.capabilities.streaming) {
    throw badRequest(`stream: model ${model.id} does not support streaming`);
  }
}

/**
 * The catalog's context size is the most input a model takes (its max output is a separate limit:
 * svc-pro's is larger than its context): an input over it is a 400 naming the field that carries
 * it, before any hold or upstream call. Counted with the o200k tokenizer (the count of
 * count_tokens and of usage estimates), and only when the body is larger than the context in bytes.
 * Pipelines are held to their own context, whatever their executors take; svc-auto has none (it
 * picks a model whose context fits).
 */
export function checkContext(model: ModelConfig, request: CanonicalChatRequest, field: string): void {
  if (model.context !== null && chatInputExceeds(request, model.context)) throw contextExceeded(model, field);
}

/** The same for embeddings: each input is embedded on its own, so each must fit. */
export function checkEmbeddingsContext(model: ModelConfig, input: readonly string[], field: string): void {
  if (model.context !== null && someTextExceeds(input, model.context)) throw contextExceeded(model, field);
}

/** `dimensions` of an embeddings request: at most what the model gives (the catalog's `dimensions`). */
export function checkEmbeddingsDimensions(model: ModelConfig, dimensions: number | undefined): void {
  if (dimensions !== undefined && model.dimensions !== null && dimensions > model.dimensions) {
    throw badRequest(`dimensions: must be <= ${model.dimensions} for model ${model.id}`);
  }
}

const contextExceeded = (model: ModelConfig, field: string) =>
  badRequest(`${field}: the input exceeds the context of model ${model.id} (${model.context} tokens)`);
