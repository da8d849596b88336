import { Type } from 'typebox';
import type { CreditedDeposit } from '../deposits/credit-chain-deposit.ts';
import type { WalletLedgerRow } from '../ledger/wallet-ledger.ts';
import { formatUsdc } from '../pricing/index.ts';
import { toBalanceRecord, type BalanceRecord } from '../wallets/balance-record.ts';
import type { WalletRow } from '../wallets/wallets.repository.ts';
import type { WithdrawalRow } from '../withdrawals/withdrawals.repository.ts';

/** JSON shapes of the custody routes (the market API's Balance record and Ledger entry). */

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const BalanceView = Type.Object({
  wallet_addr: Type.String(),
  balance: Type.Number({ description: 'total USDC including locked' }),
  locked: Type.Number({ description: 'USDC held by open withdrawals' }),
  available: Type.Number({ description: 'balance minus locked' }),
  total_deposited: Type.Number(),
  total_withdrawn: Type.Number(),
  max_withdraw: Type.Number({ description: 'min(available, on_chain_available), or available when the chain amount is unknown' }),
  on_chain_available: Type.Union([Type.Number(), Type.Null()], { description: "what the hot wallet can pay now; null without a chain or when it did not answer" }),
});

/** A wallet that never received money has a zero record rather than a 404. */
export function balanceView(address: string, w: WalletRow | undefined, onChainAvailable: bigint | null): BalanceRecord {
  return toBalanceRecord(w ?? { address, balance: 0n, locked: 0n, total_deposited: 0n, total_withdrawn: 0n }, onChainAvailable);
}

export const LedgerEntryView = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  amount: Type.Number({ description: 'USDC, signed as the wallet saw it: trades and withdrawals negative' }),
  tx_hash: Type.Optional(Type.String({ description: 'on-chain entries only' })),
  chain: Type.Optional(Type.String({ description: 'on-chain entries only' })),
  note: Type.String(),
  market_id: Type.Optional(Type.Integer()),
  trade_id: Type.Optional(Type.Integer()),
  created_at: Type.String(),
});

function defaultNote(e: WalletLedgerRow): string {
  if (e.type === 'trade') return `trade #${e.trade_id} on market ${e.market_id}`;
  return e.type;
}

export function ledgerEntryView(e: WalletLedgerRow) {
  return {
    id: Number(e.id),
    type: e.type,
    amount: formatUsdc(e.amount),
    ...(e.tx_hash === null ? {} : { tx_hash: e.tx_hash }),
    ...(e.chain === null ? {} : { chain: e.chain }),
    note: e.note ?? defaultNote(e),
    ...(e.market_id === null ? {} : { market_id: e.market_id }),
    ...(e.trade_id === null ? {} : { trade_id: e.trade_id }),
    created_at: e.created_at.toISOString(),
  };
}

export const WithdrawalView = Type.Object({
  id: Type.Integer(),
  wallet_addr: Type.String(),
  amount: Type.Number(),
  status: Type.String({ description: 'pending, sending, completed, rejected or failed' }),
  tx_hash: NullableString,
  chain: NullableString,
  note: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
  completed_at: NullableString,
});

export function withdrawalView(w: WithdrawalRow) {
  return {
    id: w.id,
    wallet_addr: w.wallet,
    amount: formatUsdc(w.amount),
    status: w.status,
    tx_hash: w.tx_hash,
    chain: w.chain,
    note: w.note,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
    completed_at: iso(w.completed_at),
  };
}

export const DepositView = Type.Object({
  wallet_addr: Type.String(),
  amount: Type.Number(),
  tx_hash: Type.String(),
  chain: Type.String(),
  log_index: Type.Integer(),
  block_number: Type.Integer(),
  credited_at: Type.String(),
});

export function depositView(d: CreditedDeposit) {
  return {
    wallet_addr: d.wallet,
    amount: formatUsdc(d.amount),
    tx_hash: d.tx_hash,
    chain: d.chain,
    log_index: d.log_index,
    block_number: Number(d.block_number),
    credited_at: d.created_at.toISOString(),
  };
}
