import type { Migration } from 'kysely';

/**
 * Every migration, by name; names sort in the order they run. Listed explicitly (not read from
 * the folder) so the same list works from TypeScript sources and from a build.
 */
export const migrations: Record<string, Migration> = {};
