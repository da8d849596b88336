import { ProviderFailure } from '../provider-failure.ts';

export interface UpstreamImage {
  readonly base64?: string;
  readonly url?: string;
  readonly revisedPrompt?: string;
}

/** Each generated image as base64 or, for URL-answering models, the URL to fetch it from. */
export function parseOpenAIImagesResponse(json: unknown): UpstreamImage[] {
  const data = (json as { data?: { b64_json?: unknown; url?: unknown; revised_prompt?: unknown }[] } | null)?.data;
  if (!Array.isArray(data) || data.length === 0) throw new ProviderFailure(502, 'the upstream returned no images');
  return data.map((d) => {
    const revised = typeof d.revised_prompt === 'string' ? { revisedPrompt: d.revised_prompt } : {};
    if (typeof d.b64_json === 'string' && d.b64_json !== '') return { base64: d.b64_json, ...revised };
    if (typeof d.url === 'string' && d.url !== '') return { url: d.url, ...revised };
    throw new ProviderFailure(502, 'the upstream returned an image without data');
  });
}
