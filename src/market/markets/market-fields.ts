import { badRequest } from '../../shared/errors.ts';
import type { MarketType, Outcome } from '../pricing/index.ts';
import { marketOutcomes } from '../pricing/index.ts';

/** Checks of operator-given market and event fields; each 400 names its field. */

/** PostgreSQL text cannot hold NUL; refusing it here keeps such input a 400, not a 500. */
export function refuseNul(value: string, field: string): string {
  if (value.includes('\u0000')) throw badRequest(`invalid ${field}: must not contain NUL characters`);
  return value;
}

export function parseTitle(value: string, field = 'title'): string {
  const t = refuseNul(value, field).trim().replace(/\s+/g, ' ');
  if (t.length === 0) throw badRequest(`invalid ${field}: must not be empty`);
  if (t.length > 200) throw badRequest(`invalid ${field}: must be at most 200 characters`);
  return t;
}

export function parseDescription(value: string | undefined): string {
  const d = refuseNul(value ?? '', 'description').trim();
  if (d.length > 5000) throw badRequest('invalid description: must be at most 5000 characters');
  return d;
}

/** A category as it is stored: trimmed, lower case, single spaces (also how filters compare). */
export function normalizeCategory(value: string): string {
  return value.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** What a category is, in the words of the 400 that refuses another. */
export const CATEGORY_RULE = 'must be 1 to 40 letters, digits, spaces, hyphens or underscores';

/** Whether a normalized category is one a market can be filed under. */
export function isCategory(normalized: string): boolean {
  return /^[a-z0-9][a-z0-9 _-]{0,39}$/.test(normalized);
}

/** Categories are lower-case words (crypto, politics, pop culture...). */
export function parseCategory(value: string): string {
  const c = normalizeCategory(value);
  if (!isCategory(c)) throw badRequest(`invalid category: ${CATEGORY_RULE}`);
  return c;
}

export function parseImageUrl(value: string | undefined): string {
  const u = refuseNul(value ?? '', 'image_url').trim();
  if (u.length > 500) throw badRequest('invalid image_url: must be at most 500 characters');
  // A relative path, one leading slash (docs/api-decisions.md): neither an absolute URL nor a
  // protocol-relative `//host` (or `/\host`, which browsers read the same) reaches a client.
  if (u !== '' && !/^\/(?![/\\])\S*$/.test(u)) throw badRequest('invalid image_url: must be a relative path starting with a single /');
  return u;
}

/** An ISO 8601 date-time with a time zone (`2026-12-31T23:59:59Z`). */
export function parseDateTime(value: string, field = 'end_date'): Date {
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(value.trim());
  const d = new Date(value.trim());
  if (!ok || Number.isNaN(d.getTime())) throw badRequest(`invalid ${field}: must be an ISO 8601 date-time with a time zone`);
  return d;
}

/**
 * The end of a new market or event: a date-time after `now`. An end already past would open
 * something closed from its first second, most likely a mistyped year.
 */
export function parseFutureEnd(value: string, now: Date): Date {
  const end = parseDateTime(value);
  if (end.getTime() <= now.getTime()) throw badRequest('invalid end_date: must be in the future');
  return end;
}

const DEFAULT_LABELS: Record<MarketType, Partial<Record<Outcome, string>> | null> = {
  yesno: { yes: 'Yes', no: 'No' },
  updown: { yes: 'Up', no: 'Down' },
  threeway: { yes: 'Yes', no: 'No', draw: 'Draw' },
  custom: null,
};

/**
 * The labels shown for a market's outcomes: exactly one non-empty label per outcome. Defaults
 * per type (Up/Down on updown); a `custom` market must give its own two.
 */
export function parseOutcomeLabels(marketType: MarketType, value: Record<string, string> | undefined): Record<string, string> {
  const outcomes = marketOutcomes(marketType);
  if (value === undefined) {
    const d = DEFAULT_LABELS[marketType];
    if (!d) throw badRequest(`missing required field: outcome_labels (a custom market names its ${outcomes.join(' and ')} outcomes)`);
    return { ...d } as Record<string, string>;
  }
  const labels: Record<string, string> = {};
  for (const key of Object.keys(value)) {
    if (!(outcomes as readonly string[]).includes(key)) {
      throw badRequest(`invalid outcome_labels: ${key} is not an outcome of a ${marketType} market (${outcomes.join(', ')})`);
    }
  }
  for (const o of outcomes) {
    const label = value[o];
    if (typeof label !== 'string' || label.trim() === '') throw badRequest(`invalid outcome_labels: missing label for ${o}`);
    refuseNul(label, `outcome_labels.${o}`);
    if (label.trim().length > 60) throw badRequest(`invalid outcome_labels.${o}: must be at most 60 characters`);
    labels[o] = label.trim();
  }
  // Outcomes told apart by their labels alone (a custom market's two teams) must not share one:
  // a trader could not know which side a stake backs.
  for (let i = 0; i < outcomes.length; i++) {
    for (let j = i + 1; j < outcomes.length; j++) {
      const [a, b] = [outcomes[i]!, outcomes[j]!];
      if (labels[a]!.toLowerCase() === labels[b]!.toLowerCase()) {
        throw badRequest(`invalid outcome_labels: ${a} and ${b} have the same label "${labels[a]}"; each outcome needs its own`);
      }
    }
  }
  return labels;
}
