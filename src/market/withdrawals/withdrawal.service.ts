import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { conflict } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { ADVISORY_LOCK, lockForTransaction } from '../../storage/advisory-locks.ts';
import type { DatabaseHandle } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';
import { ChainError, type ChainAdapter, type SentWithdrawal } from '../custody/chain-adapter.ts';
import { completeWithdrawal, releaseWithdrawal } from './settle-withdrawal.ts';
import {
  findWithdrawal,
  listAwaitingReceipt,
  listQueuedForSending,
  type WithdrawalRow,
} from './withdrawals.repository.ts';

export interface WithdrawalServiceDeps {
  readonly db: Kysely<Database>;
  readonly dbKind: DatabaseHandle['kind'];
  readonly chain: ChainAdapter;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Period of the reconciler (CHAIN=evm); 0: no periodic check. */
  readonly checkIntervalMs: number;
}

export interface SendOutcome {
  /** The row after the attempt. */
  readonly row: WithdrawalRow;
  /**
   * Set when the chain refused the withdrawal before anything was broadcast: the row is `failed`
   * and its amount unlocked.
   */
  readonly refused: ChainError | null;
}

/** Label of an operator-completed withdrawal when neither the row nor CHAIN names a chain. */
export const DEFAULT_CHAIN_LABEL = 'evm';
/** A row sending without a known transaction for this long is reported to the operator. */
const STUCK_AFTER_MS = 10 * 60_000;
const BATCH = 50;

/**
 * Withdrawals after their row is written: sending them from the hot wallet (CHAIN=evm),
 * following their receipts, and the operator's complete / reject / check. Money that may have left
 * (a signed transaction whose broadcast answer was lost, or a sender that died mid-send) stays
 * locked until the chain or the operator says what happened.
 */
export function createWithdrawalService(deps: WithdrawalServiceDeps) {
  const { db, chain, clock, logger } = deps;
  const evm = chain.kind === 'evm' && chain.name !== null;
  const inFlight = new Map<number, Promise<WithdrawalRow | undefined>>();
  const warnedStuck = new Set<number>();
  const now = () => new Date(clock.now());

  const sameSend = (expected: WithdrawalRow) => (r: WithdrawalRow) =>
    r.status === 'sending' && r.tx_hash === expected.tx_hash;

  /** One send at a time from this hot wallet across instances on a PostgreSQL server (nonces). */
  async function sendSerialized(to: string, amount: bigint): Promise<SentWithdrawal> {
    if (deps.dbKind !== 'postgres') return chain.sendWithdrawal(to, amount);
    let sent: SentWithdrawal | undefined;
    try {
      await db.transaction().execute(async (trx) => {
        await lockForTransaction(trx, ADVISORY_LOCK.withdrawalSender);
        sent = await chain.sendWithdrawal(to, amount);
      });
    } catch (e) {
      // The send's result outlives a failing commit of the lock's transaction.
      if (sent === undefined) throw e;
    }
    return sent!;
  }

  /**
   * Sends a queued (pending, CHAIN=evm) withdrawal once: the row is claimed (`sending`) before
   * the transaction is signed, so two senders never both send it, and a crash after the claim
   * leaves a `sending` row that nobody re-sends.
   */
  async function send(id: number): Promise<SendOutcome> {
    if (!evm) throw new Error('send: no chain to send on');
    const claimed = await db
      .updateTable('withdrawals')
      .set({ status: 'sending', updated_at: now() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('chain', '=', chain.name)
      .returningAll()
      .executeTakeFirst();
    if (!claimed) return { row: (await findWithdrawal(db, id))!, refused: null };

    let sent: SentWithdrawal;
    try {
      sent = await sendSerialized(claimed.wallet, claimed.amount);
    } catch (e) {
      if (e instanceof ChainError && e.details.txHash === undefined) {
        // Nothing was broadcast: the money never left, the withdrawal fails and unlocks.
        const row = await releaseWithdrawal(db, id, {
          state: 'failed',
          error: `${e.code}: ${e.message}`,
          at: now(),
          guard: (r) => r.status === 'sending' && r.tx_hash === null,
        });
        logger.warn({ withdrawal: id, code: e.code }, 'withdrawal refused by the chain; unlocked');
        return { row, refused: e };
      }
      if (e instanceof ChainError) {
        // Signed and perhaps broadcast: follow its hash, never unlock on a guess.
        const row = await recordSent(id, e.details.txHash!, null, `broadcast answer lost: ${e.message}`);
        logger.warn({ withdrawal: id, tx_hash: e.details.txHash }, 'withdrawal broadcast answer lost; following its hash');
        return { row: (await finalize(row.id)) ?? row, refused: null };
      }
      await db
        .updateTable('withdrawals')
        .set({ error: `send outcome unknown: ${e instanceof Error ? e.message : String(e)}`, updated_at: now() })
        .where('id', '=', id)
        .execute();
      logger.error({ err: e, withdrawal: id }, 'withdrawal send failed with an unknown outcome; left for the operator');
      return { row: (await findWithdrawal(db, id))!, refused: null };
    }
    const row = await recordSent(id, sent.txHash, sent.nonce, null);
    return { row: (await finalize(row.id)) ?? row, refused: null };
  }

  async function recordSent(id: number, txHash: string, nonce: number | null, error: string | null): Promise<WithdrawalRow> {
    return db
      .updateTable('withdrawals')
      .set({ tx_hash: txHash.toLowerCase(), nonce, error, updated_at: now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Follows a sent withdrawal's receipt: confirmed -> completed (ledger, unlock); reverted ->
   * failed (unlock); otherwise unchanged. Chain errors leave it as it is. Concurrent callers for
   * one withdrawal share one check.
   */
  function finalize(id: number): Promise<WithdrawalRow | undefined> {
    const running = inFlight.get(id);
    if (running) return running;
    const p = finalizeNow(id).finally(() => inFlight.delete(id));
    inFlight.set(id, p);
    return p;
  }

  async function finalizeNow(id: number): Promise<WithdrawalRow | undefined> {
    const row = await findWithdrawal(db, id);
    if (!row || row.status !== 'sending' || row.tx_hash === null || chain.kind !== 'evm') return row;
    let status;
    try {
      status = await chain.withdrawalStatus(row.tx_hash);
    } catch (e) {
      logger.debug({ err: e, withdrawal: id }, 'withdrawal status unknown: the chain did not answer');
      return row;
    }
    if (status === 'confirmed') {
      return completeWithdrawal(db, id, { txHash: row.tx_hash, chain: row.chain ?? chain.name!, at: now(), guard: sameSend(row) });
    }
    if (status === 'failed') {
      logger.warn({ withdrawal: id, tx_hash: row.tx_hash }, 'withdrawal reverted on chain; unlocked');
      return releaseWithdrawal(db, id, {
        state: 'failed',
        error: `transaction ${row.tx_hash} reverted on chain`,
        at: now(),
        guard: sameSend(row),
      });
    }
    return row;
  }

  /** Brings a wallet's sent withdrawals up to date before its balance is shown. Never throws. */
  async function refreshWallet(wallet: string): Promise<void> {
    if (!evm) return;
    try {
      const rows = await listAwaitingReceipt(db, { wallet, limit: BATCH });
      await Promise.all(rows.map((r) => finalize(r.id)));
    } catch (e) {
      logger.warn({ err: e, wallet }, 'could not refresh withdrawals');
    }
  }

  let stopped = false;
  /** One pass: send queued withdrawals, then follow every sent one. */
  async function reconcileOnce(): Promise<{ sent: number; checked: number }> {
    if (!evm) return { sent: 0, checked: 0 };
    let sent = 0;
    let checked = 0;
    for (const r of await listQueuedForSending(db, chain.name!, BATCH)) {
      if (stopped) break;
      await send(r.id);
      sent++;
    }
    for (const r of await listAwaitingReceipt(db, { limit: BATCH * 4 })) {
      if (stopped) break;
      await finalize(r.id);
      checked++;
    }
    await reportStuck();
    return { sent, checked };
  }

  async function reportStuck(): Promise<void> {
    const cutoff = new Date(clock.now() - STUCK_AFTER_MS);
    const stuck = await db
      .selectFrom('withdrawals')
      .select(['id', 'tx_hash', 'nonce', 'updated_at'])
      .where('status', '=', 'sending')
      .where('updated_at', '<', cutoff)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const s of stuck) {
      if (warnedStuck.has(s.id)) continue;
      warnedStuck.add(s.id);
      logger.warn(
        { withdrawal: s.id, tx_hash: s.tx_hash, nonce: s.nonce },
        s.tx_hash === null
          ? 'withdrawal claimed by a sender that never recorded a transaction; the operator must check the hot wallet and complete or reject it'
          : 'withdrawal transaction still not confirmed; the operator may replace its nonce, then complete or reject it',
      );
    }
  }

  let timer: NodeJS.Timeout | null = null;
  let tick: Promise<unknown> | null = null;

  function start(): void {
    if (!evm || deps.checkIntervalMs === 0 || timer) return;
    stopped = false;
    timer = setInterval(() => {
      if (tick) return;
      tick = reconcileOnce()
        .catch((e: unknown) => logger.warn({ err: e }, 'withdrawal reconciler pass failed'))
        .finally(() => (tick = null));
    }, deps.checkIntervalMs);
    timer.unref();
  }

  async function stop(): Promise<void> {
    stopped = true;
    if (timer) clearInterval(timer);
    timer = null;
    await tick;
    await Promise.allSettled([...inFlight.values()]);
  }

  // The operator's side.

  const open = (r: WithdrawalRow) => r.status === 'pending' || r.status === 'sending';
  const notOpen = (r: WithdrawalRow) => conflict(`Withdrawal ${r.id} is already ${r.status}`);
  const mayHaveLeft = (r: WithdrawalRow) =>
    conflict(
      `Withdrawal ${r.id} may have been sent on chain${r.tx_hash ? ` (${r.tx_hash})` : ''}; ` +
        'check it first, or pass force once that transaction can no longer be mined',
    );

  /**
   * The operator paid it (CHAIN=none) or confirms how it was paid. A `sending` row without a
   * transaction (its sender may be broadcasting right now) needs `force`.
   */
  async function operatorComplete(
    id: number,
    input: { txHash: string; chain?: string; note?: string | null; force?: boolean },
  ): Promise<WithdrawalRow> {
    return completeWithdrawal(db, id, {
      txHash: input.txHash,
      chain: input.chain ?? (await findWithdrawal(db, id))?.chain ?? chain.name ?? DEFAULT_CHAIN_LABEL,
      note: input.note,
      at: now(),
      guard: (r) => {
        if (!open(r)) throw notOpen(r);
        if (r.status === 'sending' && r.tx_hash === null && !input.force) throw mayHaveLeft(r);
        return true;
      },
    });
  }

  /** The operator refuses it; a row already handed to the chain needs `force`. */
  async function operatorReject(id: number, input: { note?: string | null; force?: boolean }): Promise<WithdrawalRow> {
    return releaseWithdrawal(db, id, {
      state: 'rejected',
      note: input.note,
      at: now(),
      guard: (r) => {
        if (!open(r)) throw notOpen(r);
        if (r.status === 'sending' && !input.force) throw mayHaveLeft(r);
        return true;
      },
    });
  }

  return { send, finalize, refreshWallet, reconcileOnce, start, stop, operatorComplete, operatorReject };
}

export type WithdrawalService = ReturnType<typeof createWithdrawalService>;
