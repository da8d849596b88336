/** One server-sent event carrying JSON in its data line, as OpenAI-style streams send them. */
export function encodeSseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** A named event (Anthropic-style streams name every event after its `type`). */
export function encodeSseEvent(event: string, value: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
}

/** The OpenAI end-of-stream marker. */
export const SSE_DONE = 'data: [DONE]\n\n';
