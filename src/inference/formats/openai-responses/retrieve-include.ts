import type { OutputItem } from './response-items.ts';

/**
 * `include` of GET /v1/responses/{id} as the `openai` SDK sends it (`include[]=a&include[]=b`,
 * its bracket array form) or as a plain repeated or single `include`.
 */
export function readRetrieveInclude(query: unknown): readonly string[] {
  const q = (query ?? {}) as Record<string, unknown>;
  return [q.include, q['include[]']].flatMap((v) => (Array.isArray(v) ? v : v === undefined ? [] : [v])).filter((v): v is string => typeof v === 'string');
}

/**
 * The stored answer as a retrieve with `include: ["reasoning.encrypted_content"]` sees it: each
 * reasoning item with the `encrypted_content` its stored item keeps (null when there is nothing to
 * send back), as the create with that include would have shown it. OpenAI takes `include` on
 * retrieval too; a client that created without it (the default) and continues statelessly needs it.
 */
export function withEncryptedReasoning(body: Record<string, unknown>, stored: readonly OutputItem[]): Record<string, unknown> {
  const output = body.output;
  if (!Array.isArray(output)) return body;
  const sealed = new Map<string, string | null>();
  for (const item of stored) if (item.type === 'reasoning') sealed.set(item.id, item.encrypted_content ?? null);
  return {
    ...body,
    output: output.map((item: { type?: unknown; id?: unknown }) => {
      if (item.type !== 'reasoning' || typeof item.id !== 'string') return item;
      const { encrypted_content: _, ...rest } = item as { encrypted_content?: unknown };
      return { ...rest, encrypted_content: sealed.get(item.id) ?? null };
    }),
  };
}
