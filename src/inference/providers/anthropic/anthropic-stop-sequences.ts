/**
 * The API refuses a stop sequence of whitespace only (`stop_sequences: each stop sequence must
 * contain non-whitespace`), which OpenAI's protocols take (`stop: ["\n"]`).
 */
const refused = (stop: string): boolean => stop.trim() === '';

/**
 * The stop sequences the service must cut the answer at itself: all of the caller's when the API
 * would refuse one of them (the earliest of any ends the answer), null when it refuses none.
 */
export function stopsToCut(stop: readonly string[]): readonly string[] | null {
  return stop.length > 0 && stop.some(refused) ? stop : null;
}

/** The caller's stop sequences that are sent as `stop_sequences`: those the API takes. */
export function sentStopSequences(stop: readonly string[]): readonly string[] {
  return stop.length > 0 && stop.some(refused) ? stop.filter((s) => !refused(s)) : stop;
}
