import { randomFillSync } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes drawn 4 KB at a time: each draw is a synchronous crypto job, whose fixed cost was
// most of an id's when every id drew its own bytes.
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

function randomPart(length: number): string {
  let out = '';
  for (let n = 0; n < length; ) {
    const b = randomByte();
    // 248 = 4 * 62: bytes at or above it are dropped so every character is equally likely.
    if (b < 248) {
      out += ALPHABET[b % 62];
      n++;
    }
  }
  return out;
}

// Words of the providers and model families an answer hides (src/inference/redact): about one id in
// 1,400 spelled "gpt" by chance, which a client checking answers for leaks reads as one. Such a
// draw is made again; the ids left lose a negligible share of their randomness.
const SPELLS_UPSTREAM = /gpt|claude|openai|anthropic|sonnet|gemini|llama|cohere|jina|qwen|grok|mistral/i;

/**
 * A service-issued id such as `chatcmpl-Xy3...` or `call_Ab9...`. Upstream ids never reach a client;
 * every id in an answer comes from here. 24 base62 characters carry ~142 bits.
 */
export function createId(prefix: string, length = 24): string {
  let part = randomPart(length);
  while (SPELLS_UPSTREAM.test(part)) part = randomPart(length);
  return prefix + part;
}
