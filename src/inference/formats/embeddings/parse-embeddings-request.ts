import type { CanonicalEmbeddingRequest } from '../../canonical/embeddings.ts';
import { invalid, readBody, readEnum, readInteger, readString } from '../read-fields.ts';

export type EmbeddingEncoding = 'float' | 'base64';

export interface ParsedEmbeddingsRequest {
  readonly model: string;
  readonly request: CanonicalEmbeddingRequest;
  readonly encodingFormat: EmbeddingEncoding;
}

const MAX_INPUTS = 2048;

/** An OpenAI /embeddings body: `input` is a string or an array of strings (token arrays are not taken). */
export function parseEmbeddingsRequest(rawBody: unknown): ParsedEmbeddingsRequest {
  const body = readBody(rawBody);
  const model = readString(body, 'model', '', { required: true, nonEmpty: true })!;
  const raw = body.input;
  let input: string[];
  if (typeof raw === 'string') input = [raw];
  else if (Array.isArray(raw) && raw.every((s): s is string => typeof s === 'string')) input = raw;
  else if (raw === undefined || raw === null) invalid('input', 'is required');
  else invalid('input', 'must be a string or an array of strings');
  if (input.length === 0) invalid('input', 'must not be empty');
  if (input.length > MAX_INPUTS) invalid('input', `must have at most ${MAX_INPUTS} items`);
  input.forEach((s, i) => {
    if (s === '') invalid(typeof raw === 'string' ? 'input' : `input[${i}]`, 'must not be empty');
  });
  const dimensions = readInteger(body, 'dimensions', '', { min: 1 });
  const encodingFormat = readEnum(body, 'encoding_format', '', ['float', 'base64'] as const) ?? 'float';
  const user = readString(body, 'user', '');
  return {
    model,
    encodingFormat,
    request: {
      input,
      ...(dimensions !== undefined ? { dimensions } : {}),
      ...(user !== undefined ? { user } : {}),
    },
  };
}
