import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { badRequest } from '../../shared/errors.ts';

/**
 * TypeBox building blocks shared by the public read routes: parameters (their error messages
 * are derived from these schemas by schema-errors.ts) and the `{success, data, ...}` envelope.
 */

/** Largest id a Postgres `integer` column holds; larger ids are refused as malformed. */
export const MAX_ID = 2_147_483_647;
/** Deepest page a list serves (keeps offsets far inside bigint). */
export const MAX_PAGE = 1_000_000;
/** Most items a list skips by `offset`: the first item of the deepest page at the largest limit. */
export const MAX_OFFSET = (MAX_PAGE - 1) * 100;
export const WALLET_PATTERN = '^0x[0-9a-fA-F]{40}$';

export function stringEnum<const T extends readonly string[]>(values: T, description?: string): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
}

/** A string or JSON null (one `type` array, which fast-json-stringify serializes directly). */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const s = schema as unknown as { type?: string };
  return Type.Unsafe({ ...schema, type: [s.type, 'null'] });
}

const BOOLEANS = ['true', 'false'] as const;
/** A Polymarket list flag (`active`, `closed`): `true` or `false` exactly. */
export const FlagQuery = (description: string) => stringEnum(BOOLEANS, description);
export const flagOf = (v: 'true' | 'false' | undefined): boolean | undefined => (v === undefined ? undefined : v === 'true');

/** 9999-12-31T23:59:59Z: the last second a date holds. */
export const MAX_UNIX_SECONDS = 253_402_300_799;
export const UnixSeconds = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS, description });

export const IdParam = Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Numeric id' });
export const WalletParam = Type.String({ pattern: WALLET_PATTERN, description: '0x followed by 40 hex digits, any case' });

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, from 1 (not with offset)' }),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: 'Items to skip, from 0: pages by offset instead of page (not with page)' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100' }),
};

/**
 * Where a paged list starts, and what its answer says of it: paged by `page`, the envelope as
 * before; paged by `offset`, that offset too, and as `page` the page its first item falls on
 * (docs/api-decisions.md, "Market API: eleventh audit").
 */
export function pageWindow(q: { readonly page: number; readonly limit: number; readonly offset?: number }) {
  if (q.offset === undefined) return { offset: (q.page - 1) * q.limit, answer: { page: q.page, limit: q.limit } };
  return { offset: q.offset, answer: { page: Math.floor(q.offset / q.limit) + 1, limit: q.limit, offset: q.offset } };
}

/**
 * Kalshi's `cursor` on a list: the id of the last item of the page read, the next page being the
 * items after it in the list's order (docs/api-decisions.md, "Market API: seventeenth audit" and
 * "eighteenth audit").
 */
export const CursorQuery = (description: string) => Type.Optional({ ...IdParam, description: `${description} (not with page or offset)` });

/** A cursor is where the page starts: a page or offset besides it would say so twice. */
export function refuseCursorWithPage(q: { readonly cursor?: number; readonly page: number; readonly offset?: number }): void {
  if (q.cursor !== undefined && (q.page !== 1 || q.offset !== undefined)) throw badRequest('Invalid cursor: send it without page or offset');
}

export const Usdc = (description?: string) => Type.Number(description ? { description: `${description} (USDC)` } : {});
export const Price = (description?: string) => Type.Number(description ? { description } : {});
export const IsoTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Boolean(), data });
}

export function pageEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    success: Type.Boolean(),
    data: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer({ description: 'The page answered; paged by offset, the page its first item falls on' }),
    limit: Type.Integer(),
    offset: Type.Optional(Type.Integer({ description: 'Items skipped: only in answers paged by offset' })),
  });
}

export const ErrorBody = Type.Object({ success: Type.Boolean(), error: Type.String() });

/** Responses of every read route: its 200 body, and the error bodies it may give. */
export function readResponses<T extends TSchema>(ok: T, opts: { notFound?: boolean } = {}) {
  return {
    200: ok,
    400: ErrorBody,
    ...(opts.notFound ? { 404: ErrorBody } : {}),
    429: ErrorBody,
  };
}
