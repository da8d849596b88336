import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { unauthorized } from '../shared/errors.ts';
import { secureEqual } from '../shared/secure-compare.ts';

export interface AdminPluginOptions {
  readonly token: string;
  /** Each domain's operator routes, mounted under /admin behind the token. */
  readonly routes: readonly FastifyPluginAsync[];
}

/** `Authorization: Bearer <ADMIN_TOKEN>` in front of every operator route. */
export async function adminPlugin(app: FastifyInstance, opts: AdminPluginOptions): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m || !secureEqual(m[1]!, opts.token)) throw unauthorized('unauthorized');
  });
  app.get('/whoami', { schema: { hide: true } }, async () => ({ role: 'operator' }));
  for (const routes of opts.routes) await app.register(routes);
}
