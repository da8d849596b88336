import { slugify } from './slugify.ts';

/**
 * Words that follow `/api/events/` as routes of their own (`GET /api/events/featured`), so an
 * event slugged like one could never be served by `GET /api/events/:slugOrId`.
 */
export const EVENT_ROUTE_WORDS: ReadonlySet<string> = new Set(['featured']);

/**
 * The slug base of an event's title. `GET /api/events/:slugOrId` reads digits as an id first,
 * so a slug of digits only would be shadowed by the event of that id (now or once the ids get
 * there), and a route word by its route: both get the `event-` prefix instead
 * (docs/api-decisions.md, "Market API: seventh audit").
 */
export function eventSlugBase(title: string): string {
  const base = slugify(title, 'event');
  return /^[0-9]+$/.test(base) || EVENT_ROUTE_WORDS.has(base) ? `event-${base}` : base;
}
