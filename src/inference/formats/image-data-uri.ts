import { invalid } from './read-fields.ts';

// MIME types are case-insensitive (RFC 2045), so is the scheme.
const DATA_URI_HEAD = /^data:(image\/[a-zA-Z0-9.+-]+);base64,/i;

/** The image types both upstream kinds take: Anthropic's four, which OpenAI's vision models take too. */
const TAKEN: Readonly<Record<string, string>> = {
  'image/jpeg': 'image/jpeg',
  // Not a registered type, but what many clients write for a .jpg; OpenAI takes it, Anthropic does not.
  'image/jpg': 'image/jpeg',
  'image/png': 'image/png',
  'image/gif': 'image/gif',
  'image/webp': 'image/webp',
};

/**
 * An image part's URL as the upstreams are sent it. A base64 data URI must declare a JPEG, PNG,
 * GIF or WebP image, the only types Anthropic takes and OpenAI documents, else 400 naming `path`
 * before any upstream call; the scheme and type are written in lower case, `image/jpg` as
 * `image/jpeg`, so every upstream (and the adapters' own `data:` checks) reads them. Before, `image/svg+xml`, `image/bmp` or `image/jpg` went upstream and
 * the client got the upstream's own refusal, redacted, depending on the deployment
 * (docs/api-decisions.md, "Inference: twelfth audit"). Other URLs (http(s)) are returned as they are:
 * what they point to is known only when fetched. Call it after the URL's shape was checked.
 */
export function imageUrlForUpstream(url: string, path: string): string {
  const head = DATA_URI_HEAD.exec(url);
  if (!head) return url;
  const declared = head[1]!;
  const type = TAKEN[declared.toLowerCase()];
  if (type === undefined) invalid(path, `must be a JPEG, PNG, GIF or WebP image, not ${declared}`);
  const normalized = `data:${type};base64,`;
  return head[0] === normalized ? url : `${normalized}${url.slice(head[0].length)}`;
}
