import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../accounts/principal.ts';

// A WeakMap rather than a request decoration: it works on routes of any plugin (and on test
// probes mounted at the root) and is gone with the request.
const principals = new WeakMap<FastifyRequest, Principal>();

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

/** The caller of an authenticated route; throws if the route forgot `authenticate`. */
export function principalOf(request: FastifyRequest): Principal {
  const p = principals.get(request);
  if (!p) throw new Error(`route ${request.routeOptions.url ?? request.url} reads the caller without authenticate()`);
  return p;
}
