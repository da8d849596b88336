import { sql, type Kysely } from 'kysely';

/**
 * Inference accounts: balances in micro-credits (1 credit = 1,000,000), hashed `svk_` keys,
 * the credit ledger that explains every balance change, open reservations and usage records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table accounts (
      id serial primary key,
      email text not null check (length(email) between 3 and 254),
      email_verified boolean not null default false,
      credits bigint not null default 0,
      reserved bigint not null default 0 check (reserved >= 0),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index accounts_email_lower on accounts (lower(email))`.execute(db);

  await sql`
    create table api_keys (
      id serial primary key,
      account_id integer not null references accounts(id),
      name text not null default '',
      key_hash text not null unique check (key_hash ~ '^[0-9a-f]{64}$'),
      prefix text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_account on api_keys (account_id, id)`.execute(db);

  await sql`
    create table usage_records (
      id bigserial primary key,
      account_id integer not null references accounts(id),
      key_id integer references api_keys(id),
      model text not null,
      served_model text,
      provider_id text,
      upstream_model text,
      endpoint text not null,
      input_tokens integer not null default 0 check (input_tokens >= 0),
      cached_input_tokens integer not null default 0 check (cached_input_tokens >= 0),
      output_tokens integer not null default 0 check (output_tokens >= 0),
      image_count integer not null default 0 check (image_count >= 0),
      cost bigint not null default 0 check (cost >= 0),
      latency_ms integer not null default 0 check (latency_ms >= 0),
      status integer not null,
      usage_source text check (usage_source in ('upstream', 'estimated')),
      request_id text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index usage_records_account on usage_records (account_id, id desc)`.execute(db);

  await sql`
    create table credit_ledger (
      id bigserial primary key,
      account_id integer not null references accounts(id),
      amount bigint not null check (amount <> 0),
      kind text not null check (kind in ('grant', 'charge', 'adjustment')),
      balance_after bigint not null,
      usage_id bigint references usage_records(id),
      note text,
      created_at timestamptz not null default now(),
      check ((kind = 'charge') = (usage_id is not null))
    )`.execute(db);
  await sql`create index credit_ledger_account on credit_ledger (account_id, id desc)`.execute(db);

  await sql`
    create table credit_reservations (
      id bigserial primary key,
      account_id integer not null references accounts(id),
      amount bigint not null check (amount > 0),
      request_id text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index credit_reservations_time on credit_reservations (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['credit_reservations', 'credit_ledger', 'usage_records', 'api_keys', 'accounts']) {
    await sql`drop table if exists ${sql.table(t)}`.execute(db);
  }
}
