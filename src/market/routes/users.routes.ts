import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../shared/errors.ts';
import { LEADERBOARD_SORTS, leaderboard, userProfile } from '../queries/users.ts';
import { checkUsername } from '../users/profile.update.ts';
import type { ReadRouteOptions } from './read-context.ts';
import { LeaderboardEntry, UserProfile, UsernameCheck } from './read-responses.ts';
import { PageQuery, WalletParam, envelope, readResponses, stringEnum } from './read-schemas.ts';

const tags = ['market'];

export async function usersRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/users/leaderboard',
    {
      schema: {
        tags,
        summary: 'Wallets that traded, best first by total pnl or by volume',
        querystring: Type.Object({
          sort: Type.Optional(stringEnum(LEADERBOARD_SORTS, 'Default pnl')),
          limit: PageQuery.limit,
        }),
        response: readResponses(envelope(Type.Array(LeaderboardEntry))),
      },
    },
    async (req) => ({ success: true, data: await leaderboard(opts.db, req.query.sort ?? 'pnl', req.query.limit) }),
  );

  r.get(
    '/users/check-username/:username',
    {
      schema: {
        tags,
        summary: 'Whether a username follows the rules and is free',
        params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: readResponses(envelope(UsernameCheck)),
      },
    },
    async (req) => ({ success: true, data: await checkUsername(opts.db, req.params.username) }),
  );

  // `/users/check-username/` arrives here without its slash (src/http/surface.ts): the empty
  // username, which breaks the rules like any other, not a wallet named `check-username`.
  r.get(
    '/users/check-username',
    {
      schema: {
        tags,
        summary: 'The empty username: answered as check-username answers any username breaking the rules',
        response: readResponses(envelope(UsernameCheck)),
      },
    },
    async () => ({ success: true, data: await checkUsername(opts.db, '') }),
  );

  r.get(
    '/users/:wallet',
    {
      schema: {
        tags,
        summary: 'Profile and results of a wallet',
        params: Type.Object({ wallet: WalletParam }),
        response: readResponses(envelope(UserProfile), { notFound: true }),
      },
    },
    async (req) => {
      const profile = await userProfile(opts.db, req.params.wallet.toLowerCase());
      if (!profile) throw notFound('User not found');
      return { success: true, data: profile };
    },
  );
}
