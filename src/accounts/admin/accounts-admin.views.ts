import { Type } from 'typebox';
import type { Account } from '../account.repository.ts';
import type { ApiKeyRow } from '../api-key.repository.ts';
import { creditsNumber } from '../credits.amount.ts';
import type { UsageRecord } from '../usage.repository.ts';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * Amounts are shown in credits as JSON numbers (exact to the micro-credit for any balance under
 * 10^9 credits) and, for programs that want integers, in micro-credits as decimal strings.
 */
export const AccountView = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  email_verified: Type.Boolean(),
  credits: Type.Number(),
  reserved: Type.Number(),
  available: Type.Number(),
  credits_micro: Type.String(),
  created_at: Type.String(),
});

export function accountView(a: Account) {
  return {
    id: a.id,
    email: a.email,
    email_verified: a.email_verified,
    credits: creditsNumber(a.credits),
    reserved: creditsNumber(a.reserved),
    available: creditsNumber(a.credits - a.reserved),
    credits_micro: a.credits.toString(),
    created_at: a.created_at.toISOString(),
  };
}

export const KeyView = Type.Object({
  id: Type.Integer(),
  account_id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String(),
  created_at: Type.String(),
  revoked_at: NullableString,
  last_used_at: NullableString,
});

export function keyView(k: ApiKeyRow) {
  return {
    id: k.id,
    account_id: k.account_id,
    name: k.name,
    prefix: k.prefix,
    created_at: k.created_at.toISOString(),
    revoked_at: iso(k.revoked_at),
    last_used_at: iso(k.last_used_at),
  };
}

export const AccountDetailView = Type.Object({ ...AccountView.properties, keys: Type.Array(KeyView) });

export const IssuedKeyView = Type.Object({ ...KeyView.properties, key: Type.String() });

export const UsageView = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  request_id: Type.String(),
  key_id: Type.Union([Type.Integer(), Type.Null()]),
  model: Type.String(),
  served_model: NullableString,
  lane: NullableString,
  provider: NullableString,
  upstream_model: NullableString,
  endpoint: Type.String(),
  status: Type.Integer(),
  input_tokens: Type.Integer(),
  cached_input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  image_count: Type.Integer(),
  cost: Type.Number(),
  cost_micro: Type.String(),
  latency_ms: Type.Integer(),
  usage_source: NullableString,
});

/** For operators only: the internal deployment (provider, upstream model) is shown here. */
export function usageView(u: UsageRecord) {
  return {
    id: u.id.toString(),
    created_at: u.created_at.toISOString(),
    request_id: u.request_id,
    key_id: u.key_id,
    model: u.model,
    served_model: u.served_model,
    lane: u.lane,
    provider: u.provider_id,
    upstream_model: u.upstream_model,
    endpoint: u.endpoint,
    status: u.status,
    input_tokens: u.input_tokens,
    cached_input_tokens: u.cached_input_tokens,
    output_tokens: u.output_tokens,
    image_count: u.image_count,
    cost: creditsNumber(u.cost),
    cost_micro: u.cost.toString(),
    latency_ms: u.latency_ms,
    usage_source: u.usage_source,
  };
}
