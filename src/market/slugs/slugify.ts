const MAX_SLUG = 80;

/**
 * The URL slug of a title: lower-case ASCII letters and digits joined by single hyphens, accents
 * dropped, at most 80 characters; `fallback` when nothing is left (a title of only symbols).
 */
export function slugify(title: string, fallback: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/g, '');
  return base || fallback;
}

/**
 * The first of `base`, `base-2`, `base-3`, ... not in `taken` (the slugs that start with base).
 */
export function nextFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}
