import { sql, type Kysely } from 'kysely';

const money = (name: string) => sql.raw(`${name} bigint not null default 0`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table events (
      id serial primary key,
      slug text not null unique,
      title text not null,
      description text not null default '',
      category text not null,
      image_url text not null default '',
      status text not null default 'active' check (status in ('active', 'resolved')),
      end_date timestamptz,
      featured_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table markets (
      id serial primary key,
      event_id integer references events(id),
      slug text not null unique,
      title text not null,
      description text not null default '',
      category text not null,
      market_type text not null check (market_type in ('yesno', 'threeway', 'updown', 'custom')),
      status text not null check (status in ('pending', 'active', 'resolved', 'cancelled')),
      image_url text not null default '',
      end_date timestamptz not null,
      featured_at timestamptz,
      outcome_labels jsonb not null,
      ${money('pool_yes')}, ${money('pool_no')}, ${money('pool_draw')},
      ${money('seed_yes')}, ${money('seed_no')}, ${money('seed_draw')},
      ${money('shares_yes')}, ${money('shares_no')}, ${money('shares_draw')},
      ${money('escrow')},
      ${money('volume')},
      trade_count integer not null default 0,
      last_trade_at timestamptz,
      resolved_outcome text check (resolved_outcome in ('yes', 'no', 'draw')),
      resolved_at timestamptz,
      cancelled_at timestamptz,
      settled_fee bigint,
      settled_dust bigint,
      settled_paid bigint,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (escrow >= 0 and pool_yes >= 0 and pool_no >= 0 and pool_draw >= 0),
      check (seed_yes >= 1 and seed_no >= 1 and (market_type <> 'threeway' or seed_draw >= 1))
    )`.execute(db);

  await sql`
    create table wallets (
      address text primary key check (address ~ '^0x[0-9a-f]{40}$'),
      ${money('balance')},
      ${money('locked')},
      ${money('total_deposited')},
      ${money('total_withdrawn')},
      username text,
      avatar_url text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (balance >= 0 and locked >= 0 and locked <= balance)
    )`.execute(db);
  await sql`create unique index wallets_username_lower on wallets (lower(username)) where username is not null`.execute(db);

  await sql`
    create table trades (
      id serial primary key,
      market_id integer not null references markets(id),
      wallet text not null references wallets(address),
      outcome text not null check (outcome in ('yes', 'no', 'draw')),
      amount bigint not null check (amount > 0),
      shares bigint not null check (shares > 0),
      price double precision not null,
      price_yes_after double precision not null,
      price_no_after double precision not null,
      price_draw_after double precision,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index trades_market_time on trades (market_id, created_at desc, id desc)`.execute(db);
  await sql`create index trades_wallet_time on trades (wallet, created_at desc)`.execute(db);
  await sql`create index trades_time on trades (created_at desc, id desc)`.execute(db);

  await sql`
    create table positions (
      market_id integer not null references markets(id),
      wallet text not null references wallets(address),
      outcome text not null check (outcome in ('yes', 'no', 'draw')),
      ${money('shares')},
      ${money('cost_basis')},
      payout bigint,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (market_id, wallet, outcome)
    )`.execute(db);
  await sql`create index positions_wallet on positions (wallet)`.execute(db);

  await sql`
    create table ledger_entries (
      id bigserial primary key,
      movement_id uuid not null,
      account text not null,
      amount bigint not null,
      type text not null check (type in ('deposit', 'withdraw', 'trade', 'settlement', 'refund', 'fee')),
      wallet text,
      market_id integer,
      trade_id integer,
      tx_hash text,
      chain text,
      note text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index ledger_account on ledger_entries (account, id desc)`.execute(db);
  await sql`create index ledger_movement on ledger_entries (movement_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['ledger_entries', 'positions', 'trades', 'wallets', 'markets', 'events']) {
    await sql`drop table if exists ${sql.table(t)}`.execute(db);
  }
}
