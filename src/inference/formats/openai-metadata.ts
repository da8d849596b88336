import { at, expectFields, invalid, type Fields } from './read-fields.ts';

/** OpenAI's `metadata`: at most 16 string values of at most 512 characters, keys of at most 64. */
export function readMetadata(body: Fields): Record<string, string> | null {
  if (body.metadata === undefined || body.metadata === null) return null;
  const f = expectFields(body.metadata, 'metadata');
  const entries = Object.entries(f);
  if (entries.length > 16) invalid('metadata', 'must have at most 16 keys');
  for (const [k, v] of entries) {
    if (k.length > 64) invalid('metadata', `key "${k.slice(0, 20)}..." is longer than 64 characters`);
    if (typeof v !== 'string') invalid(at('metadata', k), 'must be a string');
    if (v.length > 512) invalid(at('metadata', k), 'must be at most 512 characters');
  }
  return f as Record<string, string>;
}
