import type { CanonicalImageRequest } from '../../canonical/images.ts';
import { invalid, readBody, readBoolean, readEnum, readInteger, readString } from '../read-fields.ts';

export type ImageResponseFormat = 'url' | 'b64_json';

export interface ParsedImageRequest {
  /** Undefined when the body names none: the route picks the catalog's image model. */
  readonly model: string | undefined;
  readonly request: CanonicalImageRequest;
  readonly responseFormat: ImageResponseFormat;
}

const SIZE = /^(?:auto|\d{2,5}x\d{2,5})$/;

/** An OpenAI /images/generations body. */
export function parseImageRequest(rawBody: unknown): ParsedImageRequest {
  const body = readBody(rawBody);
  const model = readString(body, 'model', '', { nonEmpty: true });
  const prompt = readString(body, 'prompt', '', { required: true, nonEmpty: true })!;
  // OpenAI streams partial images for `stream: true` (the SDK reads the answer as events); the
  // upstream here is called for the whole images, so a JSON answer would reach the SDK as an empty
  // stream of events, the images paid for and never shown (docs/api-decisions.md, "Inference:
  // eighteenth audit").
  if (readBoolean(body, 'stream', '') === true) invalid('stream', 'streamed image generation is not supported; leave stream out to get the images as JSON');
  const n = readInteger(body, 'n', '', { min: 1, max: 10 }) ?? 1;
  const size = readString(body, 'size', '');
  if (size !== undefined && !SIZE.test(size)) invalid('size', 'must be auto or WIDTHxHEIGHT, e.g. 1024x1024');
  const quality = readString(body, 'quality', '', { nonEmpty: true });
  const style = readString(body, 'style', '', { nonEmpty: true });
  const background = readString(body, 'background', '', { nonEmpty: true });
  const outputFormat = readEnum(body, 'output_format', '', ['png', 'jpeg', 'webp'] as const);
  const responseFormat = readEnum(body, 'response_format', '', ['url', 'b64_json'] as const) ?? 'url';
  const user = readString(body, 'user', '');
  return {
    model,
    responseFormat,
    request: {
      prompt,
      n,
      ...(size !== undefined ? { size } : {}),
      ...(quality !== undefined ? { quality } : {}),
      ...(style !== undefined ? { style } : {}),
      ...(background !== undefined ? { background } : {}),
      ...(outputFormat !== undefined ? { outputFormat } : {}),
      ...(user !== undefined ? { user } : {}),
    },
  };
}
