import type { Usage } from '../../canonical/usage.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { decodeFloat32Base64 } from '../../canonical/float32-base64.ts';

interface OpenAIEmbeddings {
  data?: { index?: number; embedding?: number[] | string }[];
  usage?: { prompt_tokens?: unknown; total_tokens?: unknown } | null;
}

/** Vectors in input order (float arrays or base64), and the reported input tokens if any. */
export function parseOpenAIEmbeddingsResponse(json: unknown, inputCount: number): { embeddings: number[][]; usage: Usage | null } {
  const body = (json ?? {}) as OpenAIEmbeddings;
  const data = body.data;
  if (!Array.isArray(data) || data.length !== inputCount) {
    throw new ProviderFailure(502, `the upstream returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${inputCount} inputs`);
  }
  const embeddings = new Array<number[]>(inputCount);
  data.forEach((d, i) => {
    const index = typeof d.index === 'number' ? d.index : i;
    const e = d.embedding;
    const vector = typeof e === 'string' ? decodeFloat32Base64(e) : e;
    if (!Array.isArray(vector) || index < 0 || index >= inputCount) throw new ProviderFailure(502, 'the upstream returned a malformed embedding');
    embeddings[index] = vector;
  });
  if (embeddings.includes(undefined as unknown as number[])) throw new ProviderFailure(502, 'the upstream skipped an embedding');
  const tokens = body.usage?.prompt_tokens ?? body.usage?.total_tokens;
  const usage = typeof tokens === 'number' ? { inputTokens: tokens, cachedInputTokens: 0, outputTokens: 0 } : null;
  return { embeddings, usage };
}
