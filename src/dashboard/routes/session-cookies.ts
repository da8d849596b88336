import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardService, DashboardSession } from '../dashboard.service.ts';
import { newSecretToken } from '../secret-token.ts';

export const SESSION_COOKIE = 'svc_session';
/** The pre-sign-in CSRF token: readable by the page, which echoes it in `x-csrf-token`. */
export const CSRF_COOKIE = 'svc_csrf';
const SESSION_SECONDS = 30 * 86_400;

const secure = (request: FastifyRequest) => request.protocol === 'https';

export async function readSession(request: FastifyRequest, service: DashboardService): Promise<DashboardSession | null> {
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie || cookie.length > 100) return null;
  return service.session(cookie);
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  void reply.setCookie(SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure: secure(request), maxAge: SESSION_SECONDS });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/** The current pre-sign-in CSRF token, minting the cookie when the browser has none. */
export function setCsrfCookie(request: FastifyRequest, reply: FastifyReply): string {
  const have = request.cookies[CSRF_COOKIE];
  if (have && /^[A-Za-z0-9_-]{20,100}$/.test(have)) return have;
  const token = newSecretToken();
  void reply.setCookie(CSRF_COOKIE, token, { path: '/', httpOnly: false, sameSite: 'strict', secure: secure(request) });
  return token;
}
