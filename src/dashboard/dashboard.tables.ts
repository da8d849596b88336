import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

/** A signed-in browser; the cookie holds the id, the table only its sha256. */
export interface DashboardSessionsTable {
  id_hash: string;
  /** Null for a console session opened with the admin token. */
  account_id: number | null;
  operator: ColumnType<boolean, boolean | undefined, boolean>;
  /** Sent back by the pages in `x-csrf-token` on every state-changing request. */
  csrf_token: string;
  created_at: CreatedAt;
  expires_at: ColumnType<Date, Date | string, Date | string>;
}

/** A single-use link sent by email; only the token's sha256 is kept. */
export interface EmailTokensTable {
  token_hash: string;
  account_id: number;
  purpose: 'verify' | 'reset';
  created_at: CreatedAt;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A Stripe event already credited: its primary key makes a redelivery a no-op. */
export interface StripeEventsTable {
  event_id: string;
  account_id: number;
  credits: bigint;
  created_at: CreatedAt;
}

export interface DashboardTables {
  dashboard_sessions: DashboardSessionsTable;
  email_tokens: EmailTokensTable;
  stripe_events: StripeEventsTable;
}
