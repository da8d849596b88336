import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../../shared/clock.ts';
import { HttpError, notFound } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import type { ApiKeyLookup } from '../auth/api-key.lookup.ts';
import { issueApiKeyUnderCap, listLiveApiKeys } from '../auth/api-key.repository.ts';
import { envelope, ErrorBody } from './read-schemas.ts';
import { AUTH_DESCRIPTION, signedErrors, strict, tags, WalletAddress } from './signed-schemas.ts';
import { marketSignedValidatorCompiler } from './schema-errors.ts';

export interface KeyRoutesDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly auth: preValidationHookHandler;
  readonly keys: ApiKeyLookup;
  readonly secretsKey: Buffer;
}

/** Live keys one wallet may hold through the wallet-signed route (operators are not limited). */
export const MAX_LIVE_KEYS_PER_WALLET = 20;

const IssueBody = Type.Object(
  { wallet_addr: Type.Optional(WalletAddress) },
  { ...strict, description: 'optional: no body, or `{"wallet_addr": ...}` naming the signing wallet' },
);

const IssuedKey = Type.Object({
  api_key: Type.String(),
  api_secret: Type.String({ description: 'shown only in this answer' }),
  wallet: Type.String(),
  created_at: Type.String(),
});

const ListedKey = Type.Object({
  api_key: Type.String(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  last_used_at: Type.Union([Type.String(), Type.Null()], { description: 'noted at most once a minute per key and instance; null when never used' }),
});

const KeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) }, strict);

/**
 * POST /keys (wallet signature), GET /keys and DELETE /keys/:key (either method, the signer's own
 * keys), under /api.
 */
export function keyRoutes(deps: KeyRoutesDeps): FastifyPluginAsync {
  const { db, clock, auth, keys, secretsKey } = deps;
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/keys',
      {
        preValidation: auth,
        validatorCompiler: marketSignedValidatorCompiler,
        schema: {
          tags,
          summary: 'Issue an API key and secret to the signing wallet',
          description: `Wallet signature only (an API key cannot mint keys). The secret is shown once. At most ${MAX_LIVE_KEYS_PER_WALLET} live keys per wallet. ${AUTH_DESCRIPTION}`,
          body: IssueBody,
          response: { 201: envelope(IssuedKey), ...signedErrors },
        },
      },
      async (req, reply) => {
        const who = req.marketAuth!;
        if (who.method !== 'wallet') throw new HttpError(403, 'Wallet signature required');
        const issued = await issueApiKeyUnderCap(db, secretsKey, who.wallet, MAX_LIVE_KEYS_PER_WALLET, new Date(clock.now()));
        if (!issued) throw new HttpError(400, `Too many API keys (at most ${MAX_LIVE_KEYS_PER_WALLET} live keys per wallet)`);
        return reply.code(201).send({ success: true, data: issued });
      },
    );

    // A wallet that lost a key's id (a bot's config gone) could neither revoke that key nor, at the
    // cap, mint another: the list gives it the ids (docs/api-decisions.md, "Market API: thirteenth
    // audit"). Signed like the revocation: which keys a wallet holds is the wallet's business.
    app.get(
      '/keys',
      {
        preValidation: auth,
        validatorCompiler: marketSignedValidatorCompiler,
        schema: {
          tags,
          summary: 'List the live API keys of the authenticated wallet (never the secrets)',
          description: `Newest first; revoked keys are not listed. ${AUTH_DESCRIPTION}`,
          response: { 200: Type.Object({ success: Type.Boolean(), data: Type.Array(ListedKey), count: Type.Integer() }), ...signedErrors },
        },
      },
      async (req) => {
        const rows = await listLiveApiKeys(db, req.marketAuth!.wallet);
        const data = rows.map((k) => ({ api_key: k.api_key, created_at: k.created_at.toISOString(), last_used_at: k.last_used_at?.toISOString() ?? null }));
        return { success: true, data, count: data.length };
      },
    );

    app.delete(
      '/keys/:key',
      {
        preValidation: auth,
        validatorCompiler: marketSignedValidatorCompiler,
        schema: {
          tags,
          summary: 'Revoke an API key of the authenticated wallet',
          description: `Refused on every instance once the revocation commits. ${AUTH_DESCRIPTION}`,
          params: KeyParams,
          response: {
            200: envelope(Type.Object({ api_key: Type.String(), revoked: Type.Boolean() })),
            ...signedErrors,
            404: ErrorBody,
          },
        },
      },
      async (req) => {
        // Another wallet's key, an unknown key and a revoked key all look the same: nothing to learn.
        if (!(await keys.revoke(req.params.key, req.marketAuth!.wallet))) throw notFound('API key not found');
        return { success: true, data: { api_key: req.params.key, revoked: true } };
      },
    );
  };
}
