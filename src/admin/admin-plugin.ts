import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { refuseNonDecimalIntegersLowerCase } from '../http/decimal-integers.ts';
import { readEmptyBodiesAsNone } from '../http/empty-body.ts';
import { notFound } from '../http/error-handler.ts';
import { forbidden, unauthorized } from '../shared/errors.ts';
import { secureEqual } from '../shared/secure-compare.ts';

export interface AdminPluginOptions {
  readonly token: string;
  /**
   * The operator console's session, when the request carries one of an operator: the console
   * calls these routes with its cookie instead of the token, sending its CSRF token on writes.
   */
  readonly operatorSession?: (request: FastifyRequest) => Promise<{ readonly csrfToken: string } | null>;
  /** Each domain's operator routes, mounted under /admin behind the token. */
  readonly routes: readonly FastifyPluginAsync[];
}

/** `Authorization: Bearer <ADMIN_TOKEN>` (or an operator's console session) in front of every operator route. */
export async function adminPlugin(app: FastifyInstance, opts: AdminPluginOptions): Promise<void> {
  // Unknown paths under /admin run the token check below before their 404: without the token,
  // which operator paths exist is not told (docs/api-decisions.md, "Errors and limits: session 29 audit").
  app.setNotFoundHandler(notFound);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header !== undefined || !opts.operatorSession) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
      if (!m || !secureEqual(m[1]!, opts.token)) throw unauthorized('unauthorized');
      return;
    }
    const session = await opts.operatorSession(request);
    if (!session) throw unauthorized('unauthorized');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const sent = request.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !secureEqual(sent, session.csrfToken)) throw forbidden('missing or wrong CSRF token; reload the page');
    }
  });
  // Bodyless operator calls sent with a JSON content type and nothing else (docs/api-decisions.md).
  readEmptyBodiesAsNone(app);
  // Every operator route's ids: `/admin/accounts/0x10` reached account 16 (docs/api-decisions.md).
  app.addHook('preValidation', refuseNonDecimalIntegersLowerCase);
  app.get('/whoami', { schema: { tags: ['admin'], summary: 'Check the admin token (the command line\'s `whoami`)' } }, async () => ({ role: 'operator' }));
  for (const routes of opts.routes) await app.register(routes);
}
