import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { refuseNul } from '../markets/market-fields.ts';
import { withdrawalView, WithdrawalView } from '../routes/custody.views.ts';
import { normalizeWalletAddress } from '../wallets/wallet-address.ts';
import type { WithdrawalService } from '../withdrawals/withdrawal.service.ts';
import { findWithdrawal, listWithdrawals, WITHDRAWAL_STATES, type WithdrawalRow } from '../withdrawals/withdrawals.repository.ts';

export interface WithdrawalsAdminDeps {
  readonly db: Kysely<Database>;
  readonly withdrawals: WithdrawalService;
}

const tags = ['admin'];
const strict = { additionalProperties: false } as const;
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }, strict);
const CHAIN_LABEL = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Any chain's transaction id: visible ASCII, no spaces. */
const TX_ID = /^[\x21-\x7e]{1,128}$/;
const Note = Type.String({ maxLength: 500 });

const AdminWithdrawalView = Type.Object({
  ...WithdrawalView.properties,
  nonce: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  movement_id: Type.Union([Type.String(), Type.Null()]),
});

function adminView(w: WithdrawalRow) {
  return { ...withdrawalView(w), nonce: w.nonce, error: w.error, movement_id: w.movement_id };
}

const CompleteBody = Type.Object(
  {
    tx_hash: Type.String({ description: 'the transfer that paid it' }),
    chain: Type.Optional(Type.String({ description: "ledger chain label; default: the withdrawal's chain, else CHAIN_NAME, else evm" })),
    note: Type.Optional(Note),
    force: Type.Optional(Type.Boolean({ description: 'complete a row whose sender never recorded a transaction' })),
  },
  strict,
);
const RejectBody = Type.Object(
  {
    note: Type.Optional(Note),
    force: Type.Optional(Type.Boolean({ description: 'reject a row already handed to the chain (after making sure it cannot be mined)' })),
  },
  strict,
);

/** The operator's side of withdrawals (mounted by adminPlugin under /admin). */
export function withdrawalsAdminRoutes(deps: WithdrawalsAdminDeps): FastifyPluginAsync {
  const { db, withdrawals } = deps;
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const optionalBody = async (request: { body: unknown }) => {
      request.body ??= {};
    };

    app.get(
      '/withdrawals',
      {
        schema: {
          tags,
          summary: 'Withdrawals, newest first (e.g. ?status=pending for the ones waiting on the operator)',
          querystring: Type.Object(
            {
              status: Type.Optional(Type.Enum([...WITHDRAWAL_STATES])),
              wallet: Type.Optional(Type.String()),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
              before: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'withdrawal id: list older rows' })),
            },
            strict,
          ),
          response: { 200: Type.Object({ data: Type.Array(AdminWithdrawalView), count: Type.Integer() }) },
        },
      },
      async (req) => {
        const q = req.query;
        const rows = await listWithdrawals(db, {
          status: q.status,
          wallet: q.wallet === undefined ? undefined : normalizeWalletAddress(q.wallet),
          limit: q.limit ?? 100,
          beforeId: q.before,
        });
        return { data: rows.map(adminView), count: rows.length };
      },
    );

    app.get(
      '/withdrawals/:id',
      { schema: { tags, summary: 'One withdrawal', params: IdParams, response: { 200: AdminWithdrawalView } } },
      async (req) => {
        const w = await findWithdrawal(db, req.params.id);
        if (!w) throw notFound('Withdrawal not found');
        return adminView(w);
      },
    );

    app.post(
      '/withdrawals/:id/complete',
      {
        schema: {
          tags,
          summary: 'Record that a withdrawal was paid (ledger withdraw with its tx hash; unlocks and debits the balance)',
          params: IdParams,
          body: CompleteBody,
          response: { 200: AdminWithdrawalView },
        },
      },
      async (req) => {
        const b = req.body;
        const tx = refuseNul(b.tx_hash, 'tx_hash').trim();
        if (!TX_ID.test(tx)) throw badRequest('invalid tx_hash: must be 1 to 128 visible characters without spaces');
        if (b.chain !== undefined && !CHAIN_LABEL.test(b.chain)) {
          throw badRequest('invalid chain: must be 1-32 lower-case letters, digits, - or _');
        }
        const row = await withdrawals.operatorComplete(req.params.id, {
          txHash: /^0x[0-9a-fA-F]+$/.test(tx) ? tx.toLowerCase() : tx,
          chain: b.chain,
          note: b.note === undefined ? undefined : refuseNul(b.note, 'note'),
          force: b.force,
        });
        return adminView(row);
      },
    );

    app.post(
      '/withdrawals/:id/reject',
      {
        preValidation: optionalBody,
        schema: { tags, summary: 'Refuse a withdrawal; its amount is unlocked', params: IdParams, body: RejectBody, response: { 200: AdminWithdrawalView } },
      },
      async (req) => {
        const b = req.body;
        const row = await withdrawals.operatorReject(req.params.id, {
          note: b.note === undefined ? undefined : refuseNul(b.note, 'note'),
          force: b.force,
        });
        return adminView(row);
      },
    );

    app.post(
      '/withdrawals/:id/check',
      {
        schema: {
          tags,
          summary: "Follow a sent withdrawal's receipt now: confirmed -> completed, reverted -> failed (unlocked)",
          params: IdParams,
          response: { 200: AdminWithdrawalView },
        },
      },
      async (req) => {
        const row = await withdrawals.finalize(req.params.id);
        if (!row) throw notFound('Withdrawal not found');
        return adminView(row);
      },
    );
  };
}
