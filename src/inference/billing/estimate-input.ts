import type { CanonicalChatRequest, UserContentPart } from '../canonical/chat.ts';
import { documentFixedTokens, documentText } from '../canonical/documents.ts';
import type { CanonicalEmbeddingRequest } from '../canonical/embeddings.ts';
import type { CanonicalRerankRequest } from '../canonical/rerank.ts';
import { estimateTokensFromText } from './estimate.ts';

/**
 * Input estimates for reservations: cheap (byte counts, no tokenizer on the request path) and
 * deliberately high (estimateTokensFromText). Billing uses the upstream's count; these only
 * decide how much is held while the request runs.
 */

/** Role markers and separators a chat format adds around each message. */
const PER_MESSAGE = 4;
/**
 * One image, whatever its size: the most either upstream kind charges for one (Anthropic caps an
 * image at about 1,600 tokens; OpenAI's high detail at 1024x1024 is 765). A data URI's length says
 * nothing about its tokens.
 */
export const IMAGE_INPUT_TOKENS = 1600;

/**
 * Input tokens a chat hold adds on top of estimateChatInput when the balance covers them: what
 * upstreams count beyond the client's messages (Anthropic's tool-use system prompt is several
 * hundred tokens, chat templates add a few per message, a short estimate of unusual text).
 * Input the hold did not cover is the operator's cost, so this only lowers how often that is.
 */
export const CHAT_INPUT_MARGIN_TOKENS = 2048;

/**
 * A user part: text by its bytes, an image at its fixed cost, a document by its text or, for a PDF,
 * by its pages (documentFixedTokens: a base64 body's length is not its tokens).
 */
function partTokens(p: UserContentPart, text: (s: string) => void): number {
  if (p.type === 'text') text(p.text);
  else if (p.type === 'image') return IMAGE_INPUT_TOKENS;
  else {
    const t = documentText(p);
    if (t !== undefined) text(t);
    return documentFixedTokens(p);
  }
  return 0;
}

export function estimateChatInput(request: CanonicalChatRequest): number {
  let bytes = 0;
  let tokens = 3;
  const text = (s: string) => void (bytes += Buffer.byteLength(s, 'utf8'));
  for (const m of request.messages) {
    tokens += PER_MESSAGE;
    switch (m.role) {
      case 'system':
        text(m.content);
        break;
      case 'tool':
        text(m.content);
        // Images and documents a tool returned; its text is in `content` already.
        if (m.parts) for (const p of m.parts) if (p.type !== 'text') tokens += partTokens(p, text);
        break;
      case 'user':
        for (const p of m.content) tokens += partTokens(p, text);
        break;
      case 'assistant':
        text(m.content);
        for (const c of m.toolCalls) {
          text(c.name);
          text(c.arguments);
        }
        // Reasoning sent back reaches an Anthropic upstream, which counts the thinking of a tool
        // loop's last turn as input: held for, so the hold covers it (a redacted block by its size).
        if (m.reasoning) for (const r of m.reasoning) text(r.type === 'thinking' ? r.thinking : r.data);
        break;
    }
  }
  if (request.tools.length > 0) text(JSON.stringify(request.tools));
  if (request.responseFormat?.type === 'json_schema') text(JSON.stringify(request.responseFormat.schema));
  return tokens + Math.ceil(bytes / 3);
}

export function estimateEmbeddingsInput(request: CanonicalEmbeddingRequest): number {
  return request.input.reduce((n, s) => n + estimateTokensFromText(s), 0);
}

/** Rerank upstreams read the query once per document. */
export function estimateRerankInput(request: CanonicalRerankRequest): number {
  const q = estimateTokensFromText(request.query);
  return request.documents.reduce((n, d) => n + q + estimateTokensFromText(d), 0);
}
