import type { CanonicalImageResponse } from '../../canonical/images.ts';
import type { ImageResponseFormat } from './parse-image-request.ts';

/**
 * The OpenAI images answer. `url` answers are data URIs: the service stores no images, and an
 * upstream's URL would name the upstream's host.
 */
export function formatImageResponse(response: CanonicalImageResponse, options: { readonly created: number; readonly responseFormat: ImageResponseFormat }) {
  return {
    created: options.created,
    data: response.images.map((img) => ({
      ...(options.responseFormat === 'b64_json' ? { b64_json: img.base64 } : { url: `data:${img.mediaType};base64,${img.base64}` }),
      ...(img.revisedPrompt !== undefined ? { revised_prompt: img.revisedPrompt } : {}),
    })),
  };
}
