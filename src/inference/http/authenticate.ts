import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyService } from '../../accounts/api-key.service.ts';
import type { Principal } from '../../accounts/principal.ts';
import { forbidden, unauthorized } from '../../shared/errors.ts';
import { setPrincipal } from './principal.ts';

/**
 * An inference route's onRequest check, as a callback hook rather than an async function: the key
 * check answers synchronously when the key is cached, and the rate limit wraps its limiter's
 * promise without another one around it.
 */
export type InferenceHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

export interface AuthenticateOptions {
  /** Also accept `x-api-key: <key>` (the messages routes, for Anthropic SDKs). */
  readonly allowXApiKey?: boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key a request presents: `Authorization: Bearer` first, then `x-api-key` where allowed. */
export function presentedKey(request: FastifyRequest, opts: AuthenticateOptions = {}): string | null {
  const auth = request.headers.authorization;
  const m = typeof auth === 'string' ? BEARER.exec(auth) : null;
  if (m) return m[1]!;
  const x = request.headers['x-api-key'];
  if (opts.allowXApiKey && typeof x === 'string' && x.trim() !== '') return x.trim();
  return null;
}

/**
 * The first two checks of every inference route: a live `svk_` key (401 `unauthorized`) whose
 * account has a verified email (403 `please verify your email first`). Mount it as an
 * `onRequest` hook so it runs before the body is parsed and validated (401 comes before 400).
 */
export function createAuthenticate(keys: ApiKeyService) {
  const admit = (request: FastifyRequest, principal: Principal | null): Error | undefined => {
    if (!principal) return unauthorized('unauthorized');
    if (!principal.emailVerified) return forbidden('please verify your email first');
    setPrincipal(request, principal);
    return undefined;
  };
  return (opts: AuthenticateOptions = {}): InferenceHook =>
    function authenticate(request, _reply, done) {
      const key = presentedKey(request, opts);
      if (key === null) return done(unauthorized('unauthorized'));
      const known = keys.known(key);
      if (known !== undefined) return done(admit(request, known));
      keys.authenticate(key).then((principal) => done(admit(request, principal)), done);
    };
}
