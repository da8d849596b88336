import type { CanonicalRerankRequest } from '../../canonical/rerank.ts';
import { at, invalid, isFields, readBoolean, readBody, readInteger, readString } from '../read-fields.ts';
import { checkUserText } from '../user-content.ts';

export interface ParsedRerankRequest {
  readonly model: string;
  readonly request: CanonicalRerankRequest;
  /** Include each document's text in the results (Cohere/Jina `return_documents`); off by default. */
  readonly returnDocuments: boolean;
}

const MAX_DOCUMENTS = 1000;

/**
 * A Cohere/Jina v2 rerank body: documents as strings or `{text}` objects. A blank query or
 * document ranks nothing, so it is a 400 naming it rather than a score the upstream makes up
 * (docs/api-decisions.md, "Inference: nineteenth audit"). `top_n` above the documents is their
 * count: every upstream is asked the same, and the answer is all of them.
 */
export function parseRerankRequest(rawBody: unknown): ParsedRerankRequest {
  const body = readBody(rawBody);
  const model = readString(body, 'model', '', { required: true, nonEmpty: true })!;
  const query = readString(body, 'query', '', { required: true })!;
  checkUserText(query, 'query');
  const raw = body.documents;
  if (raw === undefined || raw === null) invalid('documents', 'is required');
  if (!Array.isArray(raw)) invalid('documents', 'must be an array of strings or {text} objects');
  if (raw.length === 0) invalid('documents', 'must not be empty');
  if (raw.length > MAX_DOCUMENTS) invalid('documents', `must have at most ${MAX_DOCUMENTS} items`);
  const documents = raw.map((d, i) => {
    if (typeof d === 'string') {
      checkUserText(d, at('documents', i));
      return d;
    }
    if (isFields(d) && typeof d.text === 'string') {
      checkUserText(d.text, at(at('documents', i), 'text'));
      return d.text;
    }
    return invalid(at('documents', i), 'must be a string or an object with a text string');
  });
  const topN = readInteger(body, 'top_n', '', { min: 1 });
  const returnDocuments = readBoolean(body, 'return_documents', '') ?? false;
  return {
    model,
    returnDocuments,
    request: { query, documents, ...(topN !== undefined ? { topN: Math.min(topN, documents.length) } : {}) },
  };
}
