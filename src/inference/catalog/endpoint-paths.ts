import type { Endpoint } from '../../config/catalog.ts';

/** The path a client calls each endpoint by, as errors and the model list name it. */
export const ENDPOINT_PATHS: Readonly<Record<Endpoint, string>> = {
  'chat.completions': '/v1/chat/completions',
  completions: '/v1/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
  embeddings: '/v1/embeddings',
  rerank: '/v1/rerank',
  'images.generations': '/v1/images/generations',
};
