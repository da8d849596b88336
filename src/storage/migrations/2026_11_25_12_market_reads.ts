import { sql, type Kysely } from 'kysely';

/**
 * Indexes and columns for the public read endpoints (lists, prices, history, search).
 * Time-dependent figures (volume_24h, price changes) are read from trades through covering
 * indexes, so they are exact at every request and need no background job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Market lists: one index per sort order, and the same with the common status filter first.
  await sql`create index markets_newest on markets (created_at desc, id desc)`.execute(db);
  await sql`create index markets_volume on markets (volume desc, id desc)`.execute(db);
  await sql`create index markets_ending on markets (end_date, id)`.execute(db);
  await sql`create index markets_status_newest on markets (status, created_at desc, id desc)`.execute(db);
  await sql`create index markets_status_volume on markets (status, volume desc, id desc)`.execute(db);
  await sql`create index markets_category on markets (category)`.execute(db);
  await sql`create index markets_featured on markets (featured_at desc) where featured_at is not null`.execute(db);

  // Market counts per (status, category, market_type), kept by triggers, so a list's `total`
  // and the categories endpoint add up a few rows instead of counting every market.
  await sql`
    create table market_counts (
      status text not null,
      category text not null,
      market_type text not null,
      n integer not null check (n >= 0),
      primary key (status, category, market_type)
    )`.execute(db);
  await sql`
    insert into market_counts (status, category, market_type, n)
    select status, category, market_type, count(*) from markets group by status, category, market_type`.execute(db);
  await sql`
    create function market_counts_apply() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update market_counts set n = n - 1
          where status = old.status and category = old.category and market_type = old.market_type;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into market_counts (status, category, market_type, n) values (new.status, new.category, new.market_type, 1)
          on conflict (status, category, market_type) do update set n = market_counts.n + 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger markets_count_rows after insert or delete on markets
      for each row execute function market_counts_apply()`.execute(db);
  await sql`
    create trigger markets_count_changes after update of status, category, market_type on markets
      for each row when (old.status is distinct from new.status or old.category is distinct from new.category
                         or old.market_type is distinct from new.market_type)
      execute function market_counts_apply()`.execute(db);

  // Search: case-insensitive substring matching (LIKE '%term%') served by trigram indexes.
  await sql`
    alter table markets add column search_text text
      generated always as (lower(title || ' ' || description || ' ' || category)) stored`.execute(db);
  await sql`create index markets_search_trgm on markets using gin (search_text gin_trgm_ops)`.execute(db);
  await sql`
    alter table events add column search_text text
      generated always as (lower(title || ' ' || description || ' ' || category)) stored`.execute(db);
  await sql`create index events_search_trgm on events using gin (search_text gin_trgm_ops)`.execute(db);
  await sql`create index events_title_trgm on events using gin (lower(title) gin_trgm_ops)`.execute(db);
  await sql`create index events_newest on events (created_at desc, id desc)`.execute(db);
  await sql`create index events_featured on events (featured_at desc) where featured_at is not null`.execute(db);

  // Trades per market by time, carrying what volume_24h and price-at-time read, so both are
  // index-only scans; it replaces the narrower index of the schema migration.
  await sql`
    create index trades_market_time_cover on trades (market_id, created_at desc, id desc)
      include (amount, price_yes_after, price_no_after, price_draw_after)`.execute(db);
  await sql`drop index trades_market_time`.execute(db);
  // Recent trades of every market (trending, the global trade list).
  await sql`create index trades_time_cover on trades (created_at desc, id desc) include (market_id, amount)`.execute(db);
  await sql`drop index trades_time`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists markets_count_changes on markets`.execute(db);
  await sql`drop trigger if exists markets_count_rows on markets`.execute(db);
  await sql`drop function if exists market_counts_apply()`.execute(db);
  await sql`drop table if exists market_counts`.execute(db);
  await sql`create index trades_time on trades (created_at desc, id desc)`.execute(db);
  await sql`create index trades_market_time on trades (market_id, created_at desc, id desc)`.execute(db);
  for (const i of [
    'trades_time_cover',
    'trades_market_time_cover',
    'events_featured',
    'events_newest',
    'events_title_trgm',
    'events_search_trgm',
    'markets_search_trgm',
    'markets_featured',
    'markets_category',
    'markets_status_volume',
    'markets_status_newest',
    'markets_ending',
    'markets_volume',
    'markets_newest',
  ]) {
    await sql`drop index if exists ${sql.id(i)}`.execute(db);
  }
  await sql`alter table events drop column if exists search_text`.execute(db);
  await sql`alter table markets drop column if exists search_text`.execute(db);
}
