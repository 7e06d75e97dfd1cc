/**
 * What fits in Raycast's window, for the layout tests and the screenshots (test/screens).
 *
 * Raycast's window is 750 × 475 points at 1× (its Store screenshots are that window at 2000 × 1250,
 * developers.raycast.com "Prepare an Extension for Store"). With a list's detail pane open, the
 * list takes about 40% of the width and the detail the rest, as measured on Window Captures:
 * 300 px and 450 px.
 *
 * A row of that 300 px list: 8 px of inset on each side, 8 px of padding on each side, a 20 px icon
 * and 8 px after it leave 240 px; one status tag ("Needs You", 12 px text with 8 px of padding on
 * each side) and its 8 px gap take about 88 px, leaving 152 px for the title and subtitle. Raycast
 * sets them in 14 px SF Pro, about 6.5 px a character for lowercase text: 23 characters, so 24 is
 * the budget here, and Raycast cuts whatever is longer with an ellipsis.
 */
export const WINDOW = { width: 750, height: 475 } as const;
export const LIST_WITH_DETAIL = { list: 300, detail: 450 } as const;
export const ROW_CHARS_BESIDE_DETAIL = 24;

/** What a row shows beside an open detail pane, as characters: its title and subtitle. */
export function rowChars(props: Record<string, unknown>): number {
  const text = (value: unknown) =>
    typeof value === "string"
      ? value
      : value && typeof value === "object" && "value" in value
        ? String(value.value)
        : "";
  return [...text(props.title)].length + [...text(props.subtitle)].length;
}
