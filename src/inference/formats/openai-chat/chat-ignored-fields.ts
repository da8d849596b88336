import { at, invalid, readBoolean, readEnum, type Fields } from '../read-fields.ts';
import { readMetadata } from '../openai-metadata.ts';

const SERVICE_TIERS = ['auto', 'default', 'flex', 'scale', 'priority'] as const;
const VERBOSITIES = ['low', 'medium', 'high'] as const;
const MODALITIES = ['text', 'audio'] as const;

/**
 * Chat fields that change nothing here, checked as OpenAI checks them so that a request it refuses
 * is refused here too (as /v1/responses does for `metadata` and `service_tier`). Audio output is
 * refused: the answer would be text without the audio the client asked for
 * (docs/api-decisions.md, "Inference: nineteenth audit").
 */
export function checkChatIgnoredFields(body: Fields): void {
  readMetadata(body);
  readEnum(body, 'service_tier', '', SERVICE_TIERS);
  readBoolean(body, 'store', '');
  readEnum(body, 'verbosity', '', VERBOSITIES);
  const modalities = body.modalities;
  if (modalities !== undefined && modalities !== null) {
    if (!Array.isArray(modalities)) invalid('modalities', 'must be an array');
    modalities.forEach((m, i) => {
      if (!(MODALITIES as readonly unknown[]).includes(m)) invalid(at('modalities', i), `must be one of ${MODALITIES.join(', ')}`);
    });
    if (modalities.includes('audio')) invalid('modalities', 'audio output is not supported; leave modalities out or send ["text"]');
  }
  if (body.audio !== undefined && body.audio !== null) invalid('audio', 'audio output is not supported');
}
