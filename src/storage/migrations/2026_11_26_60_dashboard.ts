import { sql, type Kysely } from 'kysely';

/**
 * The account dashboard: passwords and the operator flag on accounts, server-side sessions,
 * single-use email tokens (verification, password reset) and the Stripe events already credited.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column password_hash text`.execute(db);
  await sql`alter table accounts add column is_operator boolean not null default false`.execute(db);
  await sql`
    create table dashboard_sessions (
      id_hash text primary key,
      account_id integer references accounts(id),
      operator boolean not null default false,
      csrf_token text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index dashboard_sessions_expiry on dashboard_sessions (expires_at)`.execute(db);
  await sql`
    create table email_tokens (
      token_hash text primary key,
      account_id integer not null references accounts(id),
      purpose text not null check (purpose in ('verify', 'reset')),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  await sql`
    create table stripe_events (
      event_id text primary key,
      account_id integer not null references accounts(id),
      credits bigint not null check (credits > 0),
      created_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table stripe_events`.execute(db);
  await sql`drop table email_tokens`.execute(db);
  await sql`drop table dashboard_sessions`.execute(db);
  await sql`alter table accounts drop column is_operator`.execute(db);
  await sql`alter table accounts drop column password_hash`.execute(db);
}
