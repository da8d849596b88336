import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../accounts/principal.ts';

// A symbol-keyed property rather than a request decoration: it works on routes of any plugin (and
// on test probes mounted at the root). Not a WeakMap: an entry per request cost the collector an
// ephemeron each, some microseconds of a proxied request (docs/bench-gateway.md, "Session 8").
const PRINCIPAL = Symbol('svc.principal');
type WithPrincipal = FastifyRequest & { [PRINCIPAL]?: Principal };

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  (request as WithPrincipal)[PRINCIPAL] = principal;
}

/** The caller of an authenticated route; throws if the route forgot `authenticate`. */
export function principalOf(request: FastifyRequest): Principal {
  const p = (request as WithPrincipal)[PRINCIPAL];
  if (!p) throw new Error(`route ${request.routeOptions.url ?? request.url} reads the caller without authenticate()`);
  return p;
}
