// An agent's text can carry terminal sequences: `rm -rf ~ \r\x1b[2Kls` printed raw shows as `ls`
// (CR goes back to the line's start, ESC[2K erases it). Each face must show them, not obey them.
export const HIDDEN = "rm -rf ~ \r\x1b[2Kls";
export const SPELLED = "rm -rf ~ \\r\\x1b[2Kls";

/** What a terminal would obey in `text`: C0 controls but tab and newline, DEL, C1, bidi overrides and isolates. */
export function obeyed(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    const c0 = code < 0x20 && char !== "\t" && char !== "\n";
    return (
      c0 || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)
    );
  });
}
