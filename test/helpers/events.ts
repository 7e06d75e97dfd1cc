import type { ParsedEvent } from "../../src/core/foundation/events.js";

/** The events of one type, typed as that variant. */
export function ofType<T extends ParsedEvent["type"]>(
  events: ParsedEvent[],
  type: T,
): Extract<ParsedEvent, { type: T }>[] {
  return events.filter((e): e is Extract<ParsedEvent, { type: T }> => e.type === type);
}

/** The one terminal event of a turn, asserting there is exactly one and that it comes last. */
export function turnEnd(events: ParsedEvent[]) {
  const ends = ofType(events, "turn_end");
  expect(ends).toHaveLength(1);
  expect(events.at(-1)).toBe(ends[0]);
  return ends[0]!;
}
