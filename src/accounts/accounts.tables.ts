import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** Where a usage record's token counts came from; null when the request produced none. */
export type UsageSource = 'upstream' | 'estimated';
export type CreditLedgerKind = 'grant' | 'charge' | 'adjustment' | 'operator_cost';

/**
 * An inference account. `credits` is the balance in micro-credits and may go below zero (see
 * docs/decisions-accounts.md for the bound); `reserved` is what the instances' credit leases hold.
 */
export interface AccountsTable {
  id: Generated<number>;
  email: string;
  email_verified: ColumnType<boolean, boolean | undefined, boolean>;
  credits: ColumnType<bigint, bigint | undefined, bigint>;
  reserved: ColumnType<bigint, bigint | undefined, bigint>;
  /** scrypt hash of the dashboard password; null for accounts made by an operator. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** May use the operator console with a dashboard session. */
  is_operator: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** `svk_` keys, stored only as the sha256 hex of the key; `prefix` is what a person may see. */
export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: ColumnType<string, string | undefined, string>;
  key_hash: string;
  prefix: string;
  created_at: CreatedAt;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

/**
 * One row per balance change, written in the transaction that changes the balance, so an
 * account's credits always equal the sum of its rows. Charges point at their usage record.
 */
export interface CreditLedgerTable {
  id: Generated<bigint>;
  account_id: number;
  /** Signed micro-credits. */
  amount: bigint;
  kind: CreditLedgerKind;
  balance_after: bigint;
  usage_id: bigint | null;
  note: string | null;
  created_at: CreatedAt;
}

/**
 * An instance's lease on an account's balance: the requests it serves hold credits out of it in
 * memory. Renewed while its instance lives; the stale sweep releases the leases of dead ones.
 */
export interface CreditReservationsTable {
  id: Generated<bigint>;
  account_id: number;
  amount: bigint;
  request_id: string;
  instance_id: string | null;
  created_at: CreatedAt;
  renewed_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/**
 * One row per inference request that reached billing. `model` is the brand id asked for,
 * `served_model` the brand that answered (pipelines, svc-auto); `provider_id` and
 * `upstream_model` are internal and never shown to clients.
 */
export interface UsageRecordsTable {
  id: Generated<bigint>;
  account_id: number;
  key_id: number | null;
  model: string;
  served_model: string | null;
  /** The lane of a pipeline or svc-auto request (x-svc-lane); null for a plain model. */
  lane: string | null;
  provider_id: string | null;
  upstream_model: string | null;
  endpoint: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  image_count: number;
  /** Micro-credits charged. */
  cost: bigint;
  latency_ms: number;
  status: number;
  usage_source: UsageSource | null;
  request_id: string;
  created_at: CreatedAt;
}

export interface AccountsTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  credit_reservations: CreditReservationsTable;
  usage_records: UsageRecordsTable;
}
