import type { Migration } from 'kysely';
import * as market from './2026_11_25_10_market.ts';
import * as marketCore from './2026_11_25_11_market_core.ts';
import * as marketReads from './2026_11_25_12_market_reads.ts';
import * as accounts from './2026_11_25_20_accounts.ts';
import { marketAuthMigration } from './2026_11_25_30_market_auth.ts';
import { custodyMigration } from './2026_11_25_40_custody.ts';
import { responsesMigration } from './2026_11_26_20_responses.ts';
import { instanceSecretsMigration } from './2026_11_26_80_instance_secrets.ts';
import { marketLiveMigration } from './2026_11_26_50_market_live.ts';
import * as creditLeases from './2026_11_26_40_credit_leases.ts';
import * as dashboard from './2026_11_26_60_dashboard.ts';
import { usageLaneMigration } from './2026_11_26_96_usage_lane.ts';
import { apiKeyNotifyMigration } from './2026_11_26_97_api_key_notify.ts';
import { appendOnlyUsageMigration } from './2026_11_26_98_append_only_usage.ts';
import { ledgerTradeIndexMigration } from './2026_11_27_10_ledger_trade_index.ts';
import { settledNotFeaturedMigration } from './2026_11_27_20_settled_not_featured.ts';
import { marketKeyNotifyMigration } from './2026_11_28_10_market_key_notify.ts';
import { marketStatusNotifyMigration } from './2026_11_28_30_market_status_notify.ts';
import { messageThreadsMigration } from './2026_11_28_40_message_threads.ts';
import { retiredSecretsMigration } from './2026_11_29_10_retired_secrets.ts';
import { inputItemIdsMigration } from './2026_11_29_20_response_input_item_ids.ts';
import { responsesRunningMigration } from './2026_11_29_30_responses_running.ts';
import { responseInputItemRefsMigration } from './2026_11_29_42_response_input_item_refs.ts';
import { ascendingOwnerIndexesMigration } from './2026_11_30_00_ascending_owner_indexes.ts';

/**
 * Every migration, by name; names sort in the order they run. Listed explicitly (not read from
 * the folder) so the same list works from TypeScript sources and from a build.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_25_10_market': market,
  '2026_11_25_11_market_core': marketCore,
  '2026_11_25_12_market_reads': marketReads,
  '2026_11_25_20_accounts': accounts,
  '2026_11_25_30_market_auth': marketAuthMigration,
  '2026_11_25_40_custody': custodyMigration,
  '2026_11_26_20_responses': responsesMigration,
  '2026_11_26_50_market_live': marketLiveMigration,
  '2026_11_26_40_credit_leases': creditLeases,
  '2026_11_26_60_dashboard': dashboard,
  '2026_11_26_80_instance_secrets': instanceSecretsMigration,
  '2026_11_26_96_usage_lane': usageLaneMigration,
  '2026_11_26_97_api_key_notify': apiKeyNotifyMigration,
  '2026_11_26_98_append_only_usage': appendOnlyUsageMigration,
  '2026_11_27_10_ledger_trade_index': ledgerTradeIndexMigration,
  '2026_11_27_20_settled_not_featured': settledNotFeaturedMigration,
  '2026_11_28_10_market_key_notify': marketKeyNotifyMigration,
  '2026_11_28_30_market_status_notify': marketStatusNotifyMigration,
  '2026_11_28_40_message_threads': messageThreadsMigration,
  '2026_11_29_10_retired_secrets': retiredSecretsMigration,
  '2026_11_29_20_response_input_item_ids': inputItemIdsMigration,
  '2026_11_29_30_responses_running': responsesRunningMigration,
  '2026_11_29_42_response_input_item_refs': responseInputItemRefsMigration,
  '2026_11_30_00_ascending_owner_indexes': ascendingOwnerIndexesMigration,
};
