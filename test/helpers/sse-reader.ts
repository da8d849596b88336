/** One Server-Sent Event as a test reads it (comments skipped; `retry:` lines ignored). */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads an SSE body and hands out whole events as they arrive, and a wait for one. */
export function sseReader(body: AsyncIterable<Uint8Array>) {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let text = '';
  let wake: (() => void) | null = null;
  void (async () => {
    try {
      for await (const chunk of body) {
        text += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) !== -1) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const e: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const i = line.indexOf(': ');
            const [k, v] = i === -1 ? [line, ''] : [line.slice(0, i), line.slice(i + 2)];
            if (k === 'id' || k === 'event' || k === 'data') e[k] = v;
          }
          if (e.event || e.data) events.push(e);
          (wake as (() => void) | null)?.();
        }
      }
    } catch {
      // The stream was closed by the test.
    }
  })();
  return {
    events,
    /** Waits (up to 5 s) until `pred` holds for some received event. */
    async until(pred: (e: SseEvent) => boolean): Promise<SseEvent> {
      const deadline = Date.now() + 5000;
      for (;;) {
        const found = events.find(pred);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such event; got ${JSON.stringify(events)}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
    },
  };
}
