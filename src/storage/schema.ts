import type { MarketAuthTables } from '../market/auth/auth.tables.ts';

/**
 * The Kysely view of the database: each domain declares its tables in its own file and this
 * interface joins them. Money columns are `bigint` (Int8 -> bigint in both drivers).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database extends MarketAuthTables {}
