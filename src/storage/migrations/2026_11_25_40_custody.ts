import { sql, type Kysely, type Migration } from 'kysely';

/** Custody: withdrawals (locked until completed, rejected or failed) and credited chain deposits. */
export const custodyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table withdrawals (
        id serial primary key,
        wallet text not null references wallets(address),
        amount bigint not null check (amount > 0),
        status text not null check (status in ('pending', 'sending', 'completed', 'rejected', 'failed')),
        chain text,
        tx_hash text,
        nonce integer,
        note text,
        error text,
        movement_id uuid,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        completed_at timestamptz,
        check ((status = 'completed') = (movement_id is not null)),
        check (status <> 'completed' or tx_hash is not null)
      )`.execute(db);
    await sql`create index withdrawals_wallet on withdrawals (wallet, id desc)`.execute(db);
    // Open withdrawals are few; the reconciler and the admin list scan them by status.
    await sql`create index withdrawals_open on withdrawals (status, id) where status in ('pending', 'sending')`.execute(db);
    await sql`create index withdrawals_status on withdrawals (status, id desc)`.execute(db);

    await sql`
      create table chain_deposits (
        chain text not null,
        tx_hash text not null,
        log_index integer not null,
        wallet text not null references wallets(address),
        amount bigint not null check (amount > 0),
        block_number bigint not null,
        movement_id uuid not null,
        created_at timestamptz not null default now(),
        primary key (chain, tx_hash, log_index)
      )`.execute(db);
    await sql`create index chain_deposits_wallet on chain_deposits (wallet)`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table if exists chain_deposits`.execute(db);
    await sql`drop table if exists withdrawals`.execute(db);
  },
};
