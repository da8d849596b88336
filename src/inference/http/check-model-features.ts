import type { ModelConfig } from '../../config/catalog.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { badRequest } from '../../shared/errors.ts';

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
      if (m.role !== 'user') return;
      const j = m.content.findIndex((p) => p.type === 'image');
      if (j >= 0) throw badRequest(`messages[${i}].content[${j}]: model ${model.id} does not accept images`);
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
