export interface CanonicalImageRequest {
  readonly prompt: string;
  readonly n: number;
  readonly size?: string;
  readonly quality?: string;
  readonly style?: string;
  readonly background?: string;
  readonly outputFormat?: string;
  readonly user?: string;
}

export interface GeneratedImage {
  /** The image bytes, base64. Always bytes: an upstream URL would reveal the upstream's host. */
  readonly base64: string;
  readonly mediaType: string;
  readonly revisedPrompt?: string;
}

export interface CanonicalImageResponse {
  readonly images: readonly GeneratedImage[];
}
