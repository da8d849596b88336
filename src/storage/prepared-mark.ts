/**
 * The text a statement starts with when it is to run as a named prepared statement (see PREPARED
 * in database.ts): on PostgreSQL the pool's clients, in PGlite its thread, parse and plan such a
 * statement once per connection and afterwards only bind and execute it.
 */
export const PREPARED_MARK = '/* prepared */ ';
