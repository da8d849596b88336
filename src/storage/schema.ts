import type { AccountsTables } from '../accounts/accounts.tables.ts';
import type { DashboardTables } from '../dashboard/dashboard.tables.ts';
import type { MessageThreadsTables } from '../inference/messages/message-threads.tables.ts';
import type { ResponsesTables } from '../inference/responses/responses.tables.ts';
import type { MarketAuthTables } from '../market/auth/auth.tables.ts';
import type { ChainDepositsTables } from '../market/deposits/chain-deposits.tables.ts';
import type { MarketTables } from '../market/market.tables.ts';
import type { WithdrawalsTables } from '../market/withdrawals/withdrawals.tables.ts';

/**
 * The Kysely view of the database: each domain declares its tables in its own file and this
 * interface joins them. Money columns are `bigint` (int8 -> bigint in both drivers).
 */
export interface Database extends MarketTables, AccountsTables, MarketAuthTables, WithdrawalsTables, ChainDepositsTables, DashboardTables, ResponsesTables, MessageThreadsTables {}
