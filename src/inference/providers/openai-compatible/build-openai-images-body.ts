import type { CanonicalImageRequest } from '../../canonical/images.ts';

/**
 * The /images/generations body. No `response_format` is sent: gpt-image models refuse it and
 * always answer base64; models that answer with a URL get their image downloaded instead.
 */
export function buildOpenAIImagesBody(request: CanonicalImageRequest, upstreamModel: string) {
  return {
    model: upstreamModel,
    prompt: request.prompt,
    n: request.n,
    ...(request.size !== undefined ? { size: request.size } : {}),
    ...(request.quality !== undefined ? { quality: request.quality } : {}),
    ...(request.style !== undefined ? { style: request.style } : {}),
    ...(request.background !== undefined ? { background: request.background } : {}),
    ...(request.outputFormat !== undefined ? { output_format: request.outputFormat } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
  };
}
