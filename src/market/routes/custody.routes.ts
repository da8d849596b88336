import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, preValidationAsyncHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Clock } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { findStoredAnswer, forgetIdempotencyKey, replaceStoredAnswer } from '../auth/idempotency-outside.ts';
import { withIdempotency, type IdempotentRequest } from '../auth/idempotency.ts';
import { idempotentRequestOf, sendStoredAnswer } from '../auth/market-auth.fastify.ts';
import { ChainError, type ChainAdapter } from '../custody/chain-adapter.ts';
import { chainHttpError } from '../custody/chain-http-error.ts';
import { creditChainDeposit } from '../deposits/credit-chain-deposit.ts';
import { listWalletLedger, WALLET_LEDGER_TYPES } from '../ledger/wallet-ledger.ts';
import { inTransaction } from '../market-transaction.ts';
import { parseUsdcAmount } from '../pricing/index.ts';
import { normalizeWalletAddress } from '../wallets/wallet-address.ts';
import { findWallet, type WalletRow } from '../wallets/wallets.repository.ts';
import { requestWithdrawal } from '../withdrawals/request-withdrawal.ts';
import type { WithdrawalService } from '../withdrawals/withdrawal.service.ts';
import { listWithdrawals, WITHDRAWAL_STATES, type WithdrawalRow } from '../withdrawals/withdrawals.repository.ts';
import { marketSchemaErrors, refuseNonDecimalIntegers, refuseRepeatedParameters } from './schema-errors.ts';
import { MAX_ID } from './read-schemas.ts';
import {
  BalanceView,
  balanceView,
  DepositView,
  depositView,
  LedgerEntryView,
  ledgerEntryView,
  WithdrawalView,
  withdrawalView,
} from './custody.views.ts';

export interface CustodyRoutesDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly chain: ChainAdapter;
  readonly withdrawals: WithdrawalService;
  readonly minWithdrawalUnits: bigint;
  /** requireMarketAuth(...): signs the money-moving routes in (context with the raw JSON parser). */
  readonly auth: preValidationAsyncHookHandler;
}

const tags = ['market'];
const strict = { additionalProperties: false } as const;
const WalletParams = Type.Object({ wallet: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: '0x + 40 hex digits, any case' }) }, strict);
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** The ledger's `limit`: default 50, at most 100 like every `limit` (docs/api-decisions.md). */
export const LEDGER_MAX_LIMIT = 100;

const envelope = <T extends object>(data: T) => Type.Object({ success: Type.Boolean(), data });
const authHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'a repeat with the same key and body returns the first answer' })),
});

const WithdrawBody = Type.Object(
  {
    wallet_addr: Type.String({ description: 'the authenticated wallet; the withdrawal is paid to it' }),
    amount: Type.Unknown({ description: 'USDC as a number or decimal string, at most 6 decimals' }),
  },
  strict,
);
/**
 * The cursor of a wallet's ledger and withdrawals, which have no pages: the rows older than this
 * id (the last id of the previous answer), so a wallet reaches all of them past `limit`
 * (docs/api-decisions.md, "Market API: seventh audit").
 */
const BeforeId = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'id: list the rows older than this one (the last id of the previous answer)' }));

const DepositBody = Type.Object(
  {
    wallet_addr: Type.String({ description: 'the authenticated wallet, which sent the transfer' }),
    tx_hash: Type.String({ description: 'the transaction that moved USDC from wallet_addr to the vault' }),
  },
  strict,
);

/**
 * Custody under /api: balances and ledgers (public reads, as every GET), a wallet's
 * withdrawals, and the signed money moves `POST /pool/withdraw` and `POST /pool/deposit`.
 */
export function custodyRoutes(deps: CustodyRoutesDeps): FastifyPluginAsync {
  const { db, clock, chain, withdrawals } = deps;
  const now = () => new Date(clock.now());

  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // The public reads answer malformed parameters like every other market GET (`Invalid <name>: <rule>`).
    app.addHook('onRoute', (route) => {
      if (route.method === 'GET') route.schemaErrorFormatter ??= marketSchemaErrors(route.schema as Parameters<typeof marketSchemaErrors>[0]);
    });
    app.addHook('preValidation', refuseRepeatedParameters);
    app.addHook('preValidation', refuseNonDecimalIntegers);

    app.get(
      '/pool/balance/:wallet',
      {
        schema: {
          tags,
          summary: "A wallet's balance, locked and available USDC, and what it can withdraw now",
          params: WalletParams,
          response: { 200: envelope(BalanceView) },
        },
      },
      async (req) => {
        const wallet = normalizeWalletAddress(req.params.wallet);
        // Sent withdrawals are settled first, so the record shows what the chain already did.
        const [onChain] = await Promise.all([chain.onChainAvailable(), withdrawals.refreshWallet(wallet)]);
        return { success: true, data: balanceView(wallet, await findWallet(db, wallet), onChain) };
      },
    );

    app.get(
      '/pool/ledger/:wallet',
      {
        schema: {
          tags,
          summary: "A wallet's ledger entries, newest first",
          params: WalletParams,
          querystring: Type.Object(
            {
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LEDGER_MAX_LIMIT, default: 50 })),
              type: Type.Optional(Type.Enum([...WALLET_LEDGER_TYPES])),
              before: BeforeId,
            },
            strict,
          ),
          response: { 200: Type.Object({ success: Type.Boolean(), data: Type.Array(LedgerEntryView), count: Type.Integer() }) },
        },
      },
      async (req) => {
        const wallet = normalizeWalletAddress(req.params.wallet);
        const rows = await listWalletLedger(db, wallet, { limit: req.query.limit ?? 50, type: req.query.type, beforeId: req.query.before });
        return { success: true, data: rows.map(ledgerEntryView), count: rows.length };
      },
    );

    app.get(
      '/pool/withdrawals/:wallet',
      {
        schema: {
          tags,
          summary: "A wallet's withdrawals, newest first",
          params: WalletParams,
          querystring: Type.Object(
            {
              status: Type.Optional(Type.Enum([...WITHDRAWAL_STATES])),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
              before: BeforeId,
            },
            strict,
          ),
          response: { 200: Type.Object({ success: Type.Boolean(), data: Type.Array(WithdrawalView), count: Type.Integer() }) },
        },
      },
      async (req) => {
        const wallet = normalizeWalletAddress(req.params.wallet);
        await withdrawals.refreshWallet(wallet);
        const rows = await listWithdrawals(db, { wallet, status: req.query.status, limit: req.query.limit ?? 20, beforeId: req.query.before });
        return { success: true, data: rows.map(withdrawalView), count: rows.length };
      },
    );

    const WithdrawAnswer = envelope(Type.Object({ withdrawal: WithdrawalView, balance: BalanceView }));
    const withdrawAnswer = (w: WithdrawalRow, wallet: WalletRow | undefined, onChain: bigint | null) => ({
      success: true,
      data: { withdrawal: withdrawalView(w), balance: balanceView(w.wallet, wallet, onChain) },
    });

    app.post(
      '/pool/withdraw',
      {
        preValidation: deps.auth,
        config: { idempotencyRoute: 'pool.withdraw' },
        schema: {
          tags,
          summary: 'Withdraw USDC to the authenticated wallet (signed; Idempotency-Key)',
          description:
            'Authenticated by wallet signature or API-key HMAC (see /api docs). Locks the amount as a withdrawal. CHAIN=none: pending until the operator completes or rejects it. ' +
            'CHAIN=evm: sent from the hot wallet and completed on its receipt.',
          headers: authHeaders,
          body: WithdrawBody,
          response: { 200: WithdrawAnswer },
        },
      },
      async (req, reply) => {
        const wallet = normalizeWalletAddress(req.body.wallet_addr, 'wallet_addr');
        const amount = parseUsdcAmount(req.body.amount, 'amount');
        const idem = idempotentRequestOf(req, 'pool.withdraw');
        const stored = await replayed(reply, idem);
        if (stored) return stored;
        const onChain = await chain.onChainAvailable();
        if (chain.kind === 'evm' && onChain === null) throw chainHttpError(new ChainError('chain_unavailable', 'the on-chain balance could not be read'));
        const at = now();
        const answer = await inTransaction(db, (trx) =>
          withIdempotency(trx, idem, at, async () => {
            const r = await requestWithdrawal(trx, {
              wallet,
              amount,
              chain: chain.kind === 'evm' ? chain.name : null,
              onChainAvailable: onChain,
              minUnits: deps.minWithdrawalUnits,
              at,
            });
            return { status: 200, body: withdrawAnswer(r.withdrawal, r.wallet, onChain) };
          }),
        );
        if (answer.replayed || chain.kind !== 'evm') return sendStoredAnswer(reply, answer);

        // Committed and locked: now the chain. The stored answer follows what the send did.
        const id = (answer.body as ReturnType<typeof withdrawAnswer>).data.withdrawal.id;
        const outcome = await withdrawals.send(id);
        if (outcome.refused) {
          if (idem) await forgetIdempotencyKey(db, idem);
          throw chainHttpError(outcome.refused);
        }
        const body = withdrawAnswer(outcome.row, await findWallet(db, wallet), await chain.onChainAvailable());
        if (idem) await replaceStoredAnswer(db, idem, { status: 200, body }, now());
        return reply.code(200).send(body);
      },
    );

    // The chain deposits are verified on, or null when the operator credits them (CHAIN=none).
    const depositChain = chain.kind === 'evm' ? chain.name : null;
    app.post(
      '/pool/deposit',
      {
        // Without a chain no body can make a deposit, so the answer says so right after the
        // signature, before any 400 about the body's fields (docs/api-decisions.md, "Market API:
        // seventh audit").
        preValidation: [
          deps.auth,
          async () => {
            if (depositChain === null) throw badRequest('Deposits are credited by the operator');
          },
        ],
        config: { idempotencyRoute: 'pool.deposit' },
        schema: {
          tags,
          summary: 'Credit an on-chain USDC transfer to the vault (signed; Idempotency-Key; CHAIN=evm)',
          description:
            'Authenticated by wallet signature or API-key HMAC. Verifies on chain a Transfer of the configured token from wallet_addr to the vault, with enough ' +
            'confirmations, and credits it exactly once. With CHAIN=none deposits are credited by the operator.',
          headers: authHeaders,
          body: DepositBody,
          response: { 200: envelope(Type.Object({ deposit: DepositView, balance: BalanceView })) },
        },
      },
      async (req, reply) => {
        const chainName = depositChain!;
        const wallet = normalizeWalletAddress(req.body.wallet_addr, 'wallet_addr');
        if (!TX_HASH.test(req.body.tx_hash)) throw badRequest('invalid tx_hash: must be 0x followed by 64 hex digits');
        const idem = idempotentRequestOf(req, 'pool.deposit');
        const stored = await replayed(reply, idem);
        if (stored) return stored;
        let verified;
        let onChain;
        try {
          [verified, onChain] = await Promise.all([chain.verifyDeposit(req.body.tx_hash, wallet), chain.onChainAvailable()]);
        } catch (e) {
          throw chainHttpError(e);
        }
        const at = now();
        const answer = await inTransaction(db, (trx) =>
          withIdempotency(trx, idem, at, async () => {
            const r = await creditChainDeposit(trx, { chain: chainName, wallet, deposit: verified, at });
            return {
              status: 200,
              body: { success: true, data: { deposit: depositView(r.deposit), balance: balanceView(wallet, r.wallet, onChain) } },
            };
          }),
        );
        return sendStoredAnswer(reply, answer);
      },
    );

    /** A repeat of an answered key is answered before the chain is asked again. */
    async function replayed(reply: FastifyReply, idem: IdempotentRequest | null): Promise<FastifyReply | null> {
      if (!idem) return null;
      const stored = await findStoredAnswer(db, idem);
      return stored ? sendStoredAnswer(reply, { ...stored, replayed: true }) : null;
    }
  };
}
