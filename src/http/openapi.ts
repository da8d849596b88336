type Operation = { parameters?: { in?: string; required?: boolean; schema?: { default?: unknown } }[] };
type Document = { paths?: Record<string, Record<string, Operation>> };

/**
 * The swagger plugin's `transformObject`. A query parameter with a default (`page`, `limit`) is
 * a required property of the validated object (the default fills it in before the check), which
 * the plugin turns into `required: true`; a client may leave it out, so the document says so.
 */
export function optionalDefaultedQueries<T extends object>(doc: T): T[keyof T] {
  const openapiObject = (doc as { openapiObject?: Document }).openapiObject ?? {};
  for (const operations of Object.values(openapiObject.paths ?? {})) {
    for (const op of Object.values(operations)) {
      for (const p of op.parameters ?? []) {
        if (p.in === 'query' && p.required && p.schema?.default !== undefined) delete p.required;
      }
    }
  }
  return openapiObject as T[keyof T];
}
