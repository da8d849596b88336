import { sql, type RawBuilder } from 'kysely';

/**
 * The words of a search query, each matched case-insensitively as a substring ("partial match").
 * Words are separated by whitespace; empty words are dropped; a word that occurs inside another
 * word of the query (a repeat, `bit` beside `bitcoin`) is dropped too, since wherever the longer
 * one occurs it does. Every other word is matched, however many: words past the eighth used to be
 * ignored, listing markets without them; `q`'s 200 characters bound the count (docs/api-decisions.md,
 * "Market API: twelfth audit").
 */
export function searchTerms(q: string): string[] {
  const words = [
    ...new Set(
      q
        .trim()
        .split(/\s+/)
        .filter((w) => w !== ''),
    ),
  ];
  return words.filter((w) => !words.some((other) => other !== w && other.includes(w)));
}

/** A LIKE pattern matching `term` anywhere, with LIKE's own characters (% _ \) taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Markets (`m`) matching every term in their title, description or category (the generated,
 * trigram-indexed `search_text`), or in the title of their event.
 */
export function marketMatchesTerms(terms: readonly string[]): RawBuilder<boolean> {
  if (terms.length === 0) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(
    terms.map((t) => {
      const p = containsPattern(t);
      return sql`(m.search_text like lower(${p}) or m.event_id in (select e.id from events e where lower(e.title) like lower(${p})))`;
    }),
    sql` and `,
  )})`;
}

/** Events (`e`) matching every term in their title, description or category. */
export function eventMatchesTerms(terms: readonly string[]): RawBuilder<boolean> {
  if (terms.length === 0) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(
    terms.map((t) => sql`e.search_text like lower(${containsPattern(t)})`),
    sql` and `,
  )})`;
}
