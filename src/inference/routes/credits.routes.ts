import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { getAccountOrThrow } from '../../accounts/account.repository.ts';
import { creditsNumber } from '../../accounts/credits.amount.ts';
import type { Db } from '../../storage/database.ts';
import { anthropicRequestId } from '../http/anthropic-request-id.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import type { InferenceRoutes } from '../inference-plugin.ts';

const Credits = Type.Object({
  object: Type.Literal('credits'),
  credits: Type.Number({ description: 'the balance, in credits (1 credit = 0.001 USD)' }),
  available: Type.Number({ description: 'what the next requests can hold now: the balance less what requests in flight on other instances hold' }),
  credits_micro: Type.String({ description: 'the balance in micro-credits, exact' }),
  available_micro: Type.String({ description: '`available` in micro-credits, exact' }),
});

/**
 * GET /credits: the balance of the key's account, for a client that holds only a key (the way
 * OpenRouter's `GET /api/v1/credits` serves its clients; docs/api-decisions.md). Like the catalog
 * it shows the rate budget without spending it. It reads after this instance's queued charges are
 * written, so it shows every answer this instance sent before it.
 */
export function creditsRoutes(deps: { readonly db: Db }): InferenceRoutes {
  return async (app: FastifyInstance, ctx: InferenceContext) => {
    const allowXApiKey = app.prefix.startsWith('/inference');
    const checks = [ctx.authenticate({ allowXApiKey }), ctx.showRate('inference')];
    app.get(
      '/credits',
      {
        onRequest: allowXApiKey ? [anthropicRequestId, ...checks] : checks,
        schema: {
          tags: ['inference'],
          security: [{ bearer: [] }],
          summary: "The key's account balance in credits (1 credit = 0.001 USD)",
          response: { 200: Credits },
        },
      },
      async (request) => {
        const { accountId } = principalOf(request);
        const { account, available } = await ctx.billing.balance(accountId, () => getAccountOrThrow(deps.db, accountId));
        return {
          object: 'credits' as const,
          credits: creditsNumber(account.credits),
          available: creditsNumber(available),
          credits_micro: account.credits.toString(),
          available_micro: available.toString(),
        };
      },
    );
  };
}
