import fs from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// agy does not install here: the fake replays lines rebuilt from public records, and each must
// say which one. A citation names a repository and a file in it, or a repository's issue or pull.

const DIR = path.join(PROJECT_ROOT, "test", "fixtures", "agy");
const CITATION = /[\w.-]+\/[\w.-]+(?:#\d+| pull \d+| [\w./-]+\.(?:md|ts|mjs|js|go|rs|json))/;
const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".stream"));

test("there are agy fixtures to check", () => {
  expect(files.length).toBeGreaterThanOrEqual(8);
});

test.each(files)("%s: every line agy prints or does is preceded by its public source", (file) => {
  const lines = fs.readFileSync(path.join(DIR, file), "utf8").split("\n");
  const uncited = lines.flatMap((line, i) => {
    if (line === "" || line.startsWith("#")) return [];
    const comment = lines[i - 1] ?? "";
    return comment.startsWith("# ") && CITATION.test(comment) ? [] : [`line ${i + 1}: ${line.slice(0, 80)}`];
  });
  expect(uncited).toEqual([]);
  // Only the directives the fake knows, so a typo cannot hide a line from it.
  const verbs = lines.filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.split(" ")[0]);
  for (const verb of verbs) {
    expect(["stdout", "stderr", "exit", "think", "wait-print-timeout", "write-file", "save-conversation"]).toContain(
      verb,
    );
  }
  expect(verbs.at(-1)).toBe("exit");
});
