import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyService } from '../../accounts/api-key.service.ts';
import { forbidden, unauthorized } from '../../shared/errors.ts';
import { setPrincipal } from './principal.ts';

export type InferenceHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

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
  return (opts: AuthenticateOptions = {}): InferenceHook =>
    async function authenticate(request) {
      const key = presentedKey(request, opts);
      const principal = key === null ? null : await keys.authenticate(key);
      if (!principal) throw unauthorized('unauthorized');
      if (!principal.emailVerified) throw forbidden('please verify your email first');
      setPrincipal(request, principal);
    };
}
