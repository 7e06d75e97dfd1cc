import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The fake `grok` (test/fake-grok/grok.mjs) may print only what xAI's published source says Grok
// Build prints: every line it can write is a `> ` line of fixtures.txt, and each must name, right
// above it, the vendor file (and line) it reproduces.

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fake-grok/fixtures.txt");
const lines = fs.readFileSync(FIXTURES, "utf8").split("\n");
/** A path inside xai-org/grok-build with a line or a range: `crates/…/file.rs:12` or `:12-30`. */
const CITATION = /^# src: crates\/codegen\/[\w./-]+\.(rs|md|toml):\d+(-\d+)?\b/;

/** Each written line with the comment lines just above it (back to the previous line of any other kind). */
const written = lines.flatMap((line, index) => {
  if (!line.startsWith("> ")) return [];
  const comments: string[] = [];
  for (let at = index - 1; at >= 0 && lines[at]!.startsWith("# "); at--) comments.unshift(lines[at]!);
  return [{ number: index + 1, line, comments }];
});

test("the fixtures are there", () => {
  expect(written.length).toBeGreaterThan(20);
});

test.each(written.map((w) => [w.number, w] as const))(
  "fixture line %i names the vendor source it comes from",
  (_, w) => {
    const source = w.comments.find((c) => c.startsWith("# src:"));
    expect(source).toMatch(CITATION);
    // A quote of the vendor's own test, when given, names where it is too.
    for (const quote of w.comments.filter((c) => c.startsWith("# quote:"))) expect(quote.length).toBeGreaterThan(20);
  },
);

test("every JSON fixture line parses, so the fake prints exactly what is written here", () => {
  for (const w of written) {
    const body = w.line.slice(2);
    if (!body.startsWith("{")) continue;
    // {{count}} stands for a number; every other placeholder sits inside a string.
    expect(() => JSON.parse(body.replace(/\{\{count\}\}/g, "0"))).not.toThrow();
  }
});

test("the fake prints nothing that is not a fixture: it has no JSON of its own but the ones it relays", () => {
  const script = fs.readFileSync(path.join(path.dirname(FIXTURES), "grok.mjs"), "utf8");
  // The one message the fake builds itself: the envelope that carries a fixture's result or error
  // as the answer to the request being served.
  const own = [...script.matchAll(/jsonrpc: "2\.0"/g)].length;
  expect(own).toBe(1);
});
