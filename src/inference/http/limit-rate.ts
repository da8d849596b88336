import { setRateLimitHeaders } from '../../http/rate-limit-headers.ts';
import type { RateDecision, RateLimiter } from '../../ratelimit/limiter.ts';
import { HttpError } from '../../shared/errors.ts';
import type { InferenceHook } from './authenticate.ts';
import { principalOf } from './principal.ts';

/** inference: chat, completions, responses, messages, embeddings, rerank; images: generations. */
export type RateKind = 'inference' | 'images';

export const RATE_LIMITED = 'rate limit exceeded — try again in a minute';

export interface InferenceLimiters {
  readonly inference: RateLimiter;
  readonly images: RateLimiter;
}

const budgetKey = (accountId: number) => `acct:${accountId}`;

/**
 * Per-account budgets (not per key: a user cannot multiply the limit by issuing keys). Every
 * answer after this check carries the x-ratelimit-* headers; a refusal is 429 with retry-after.
 * Runs after authenticate().
 */
export function createLimitRate(limiters: InferenceLimiters) {
  return (kind: RateKind): InferenceHook =>
    function limitRate(request, reply, done) {
      const limiter = limiters[kind];
      const key = budgetKey(principalOf(request).accountId);
      const answer = (d: RateDecision): HttpError | undefined => {
        setRateLimitHeaders(reply, d);
        return d.allowed ? undefined : new HttpError(429, RATE_LIMITED);
      };
      const now = limiter.tryConsume(key);
      if (now) done(answer(now));
      else limiter.consume(key).then(answer).then(done, done);
    };
}

/**
 * The budget's headers without spending it, for the catalog routes (which are not limited): their
 * answer is a 200 even when the budget is spent, so it carries no retry-after (that is a 429's).
 */
export function createShowRate(limiters: InferenceLimiters) {
  return (kind: RateKind): InferenceHook =>
    function showRate(request, reply, done) {
      limiters[kind].peek(budgetKey(principalOf(request).accountId)).then((d) => {
        setRateLimitHeaders(reply, { ...d, allowed: true });
      }).then(() => done(), done);
    };
}
