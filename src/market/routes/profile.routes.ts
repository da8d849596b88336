import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { HttpError } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import { updateProfile } from '../users/profile.update.ts';
import { envelope, ErrorBody } from './read-schemas.ts';
import { AUTH_DESCRIPTION, signedErrors, strict, tags, WalletAddress } from './signed-schemas.ts';
import { marketSignedValidatorCompiler } from './schema-errors.ts';

const ProfileBody = Type.Object(
  {
    username: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    avatar_url: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { ...strict, description: 'fields left out stay as they are; null clears one' },
);

/** As the profile shows them: an unset username or avatar is `""`. */
const ProfileView = Type.Object({
  wallet: Type.String(),
  username: Type.String(),
  avatar_url: Type.String(),
});

/**
 * PUT /users/:wallet under /api: a wallet names itself. Only a wallet signature counts (an API
 * key is for trading bots, not for speaking as the person), and only for the wallet it signs as.
 */
export function profileRoutes(deps: { readonly db: Db; readonly auth: preValidationHookHandler }): FastifyPluginAsync {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/users/:wallet',
      {
        preValidation: deps.auth,
        validatorCompiler: marketSignedValidatorCompiler,
        schema: {
          tags,
          summary: "Set the signing wallet's username and avatar",
          description: `Wallet signature only. ${AUTH_DESCRIPTION}`,
          params: Type.Object({ wallet: WalletAddress }, strict),
          body: ProfileBody,
          response: { 200: envelope(ProfileView), 409: ErrorBody, ...signedErrors },
        },
      },
      async (req) => {
        const who = req.marketAuth!;
        if (who.method !== 'wallet') throw new HttpError(403, 'Wallet signature required');
        if (who.wallet !== req.params.wallet.toLowerCase()) throw new HttpError(403, 'Wallet mismatch');
        const p = await updateProfile(deps.db, who.wallet, req.body);
        return { success: true, data: { wallet: p.wallet, username: p.username ?? '', avatar_url: p.avatar_url ?? '' } };
      },
    );
  };
}
