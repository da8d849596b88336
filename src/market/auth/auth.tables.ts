import type { ColumnType, Generated } from 'kysely';

/** Dates are written as Date (from the injected clock) and read back as Date. */
type Timestamp = ColumnType<Date, Date, Date>;

/** API keys issued to wallets; the secret is kept sealed (AES-256-GCM), never in plain form. */
export interface MarketApiKeysTable {
  id: Generated<bigint>;
  /** The public id sent as `x-api-key` (`mk_...`). */
  key: string;
  /** Lower-case 0x address. */
  wallet: string;
  secret_ciphertext: string;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Signatures already accepted, when no Redis is configured; rows past expires_at are pruned. */
export interface UsedSignaturesTable {
  key: string;
  expires_at: Timestamp;
}

/** One row per (principal, route, Idempotency-Key): the request's digest and the stored answer. */
export interface IdempotencyKeysTable {
  principal: string;
  route: string;
  key: string;
  request_sha256: string;
  /** Null only inside the transaction that claimed the key, before the answer is recorded. */
  response_status: number | null;
  /** The answer's JSON text exactly as first sent. */
  response_json: string | null;
  created_at: Timestamp;
  completed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MarketAuthTables {
  market_api_keys: MarketApiKeysTable;
  used_signatures: UsedSignaturesTable;
  idempotency_keys: IdempotencyKeysTable;
}
